import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { compilePlan } from './behaviours/plan.js';
import { StrikeSync } from './behaviours/strike-sync.js';
import type { DocketModuleOptions } from './config/docket-module-options.interface.js';
import { ignoredEnvironment } from './config/environment.js';
import { resolveOptions, type ResolvedDocketOptions } from './config/resolve-options.js';
import { DOCKET_MODULE_OPTIONS } from './docket.module-definition.js';
import {
  DOCKET_METRICS,
  DOCKET_OPTION_DEFAULTS,
  DOCKET_OPTIONS,
  DOCKET_PLAN_COMPILER,
  DOCKET_STORE,
  DOCKET_TRACING,
} from './docket.tokens.js';
import { DocketInspector } from './inspection/docket-inspector.js';
import { NO_METRICS, type DocketMetrics } from './observability/docket-metrics.js';
import { DocketTracing } from './observability/docket-tracing.js';
import { prometheusMetrics } from './observability/prometheus-metrics.js';
import { ScheduleBatcher } from './producer/schedule-batcher.js';
import type { DocketStore } from './store/docket-store.js';
import { RedisDocketStore } from './store/redis-docket-store.js';

const logger = new Logger('Docket');

/** The options with defaults merged in and validated: a bad option fails the boot here. */
const optionsProvider: Provider = {
  provide: DOCKET_OPTIONS,
  useFactory: (
    options: DocketModuleOptions & { isGlobal?: boolean },
    below?: Pick<DocketModuleOptions, 'name' | 'url' | 'worker'>,
  ) => {
    const { isGlobal: _isGlobal, ...rest } = options ?? {};
    const resolved = resolveOptions(rest, below ?? {});
    const ignored = ignoredEnvironment(resolved);
    if (ignored.length > 0) {
      logger.warn(
        `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} set but not used: DocketModule ` +
          'reads them only when given { ...docketOptionsFromEnvironment() } in forRoot()',
      );
    }
    return resolved;
  },
  inject: [DOCKET_MODULE_OPTIONS, { token: DOCKET_OPTION_DEFAULTS, optional: true }],
};

const storeProvider: Provider = {
  provide: DOCKET_STORE,
  useFactory: (options: ResolvedDocketOptions): DocketStore =>
    new RedisDocketStore(options.name, options.url, options.connection, (message) =>
      logger.warn(message),
    ),
  inject: [DOCKET_OPTIONS],
};

/** Prometheus metrics when prom-client is installed and `metrics` is on; else no-ops. */
const metricsProvider: Provider = {
  provide: DOCKET_METRICS,
  useFactory: async (
    options: ResolvedDocketOptions,
    store: DocketStore,
    inspector: DocketInspector,
  ): Promise<DocketMetrics> => {
    if (!options.metrics) return NO_METRICS;
    const metrics = await prometheusMetrics(options.name, {
      docket: options.name,
      // a scrape never waits for a connection that is down
      depths: () =>
        store.connected ? inspector.depths() : Promise.reject(new Error('Redis is not connected')),
      paused: () =>
        store.connected ? store.pausedNames() : Promise.reject(new Error('Redis is not connected')),
    });
    return metrics ?? NO_METRICS;
  },
  inject: [DOCKET_OPTIONS, DOCKET_STORE, DocketInspector],
};

/** OpenTelemetry spans when `@opentelemetry/api` is installed. */
const tracingProvider: Provider = {
  provide: DOCKET_TRACING,
  useFactory: (options: ResolvedDocketOptions) => DocketTracing.create(options.name),
  inject: [DOCKET_OPTIONS],
};

const strikesProvider: Provider = {
  provide: StrikeSync,
  useFactory: (store: DocketStore) => new StrikeSync(store, (message) => logger.warn(message)),
  inject: [DOCKET_STORE],
};

const batcherProvider: Provider = {
  provide: ScheduleBatcher,
  useFactory: (store: DocketStore) => new ScheduleBatcher(store),
  inject: [DOCKET_STORE],
};

/** Closes the connections and stops the metrics once the application has shut down. */
@Injectable()
export class DocketResources implements OnApplicationShutdown {
  constructor(
    @Inject(DOCKET_STORE) private readonly store: DocketStore,
    @Optional() @Inject(DOCKET_METRICS) private readonly metrics?: DocketMetrics,
  ) {}

  onApplicationShutdown(): void {
    this.metrics?.close();
    this.store.close();
  }
}

/** The engine's internal providers (the module adds the public ones). */
export const DOCKET_PROVIDERS: Provider[] = [
  optionsProvider,
  storeProvider,
  metricsProvider,
  tracingProvider,
  strikesProvider,
  batcherProvider,
  { provide: DOCKET_PLAN_COMPILER, useValue: compilePlan },
  DocketResources,
];
