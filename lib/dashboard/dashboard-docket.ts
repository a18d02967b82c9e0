import {
  Inject,
  Injectable,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  DeadLetters,
  DocketClient,
  DocketConfigurationError,
  DocketInspector,
} from '../public-api.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';

/**
 * The docket the dashboard shows: the application's `DocketClient` (actions) and
 * `DocketInspector` (reads). Found in any module, so a `DocketModule` with `isGlobal: false`
 * works too.
 */
@Injectable()
export class DashboardDocket implements OnModuleInit, OnModuleDestroy {
  /** Whether the application is shutting down (the dashboard then serves nothing). */
  closing = false;
  private docketClient?: DocketClient;
  private docketInspector?: DocketInspector;
  private docketDeadLetters?: DeadLetters;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
    @Optional() client?: DocketClient,
    @Optional() inspector?: DocketInspector,
    @Optional() deadLetters?: DeadLetters,
  ) {
    this.docketClient = client;
    this.docketInspector = inspector;
    this.docketDeadLetters = deadLetters;
  }

  onModuleInit(): void {
    this.docketClient ??= this.find(DocketClient);
    this.docketInspector ??= this.find(DocketInspector);
    this.docketDeadLetters ??= this.find(DeadLetters);
    if (!this.docketClient || !this.docketInspector || !this.docketDeadLetters) {
      throw new DocketConfigurationError(
        'DocketDashboardModule: no DocketModule in this application; import ' +
          'DocketModule.forRoot({ ... }) next to DocketDashboardModule.forRoot({ ... }).',
      );
    }
    const wanted = this.options.docket;
    if (wanted !== undefined && wanted !== this.docketClient.name) {
      throw new DocketConfigurationError(
        `DocketDashboardModule: docket "${wanted}" is not this application's docket ` +
          `("${this.docketClient.name}"); an application has one DocketModule, so leave ` +
          `"docket" out or give DocketModule.forRoot({ name: "${wanted}" }).`,
      );
    }
  }

  onModuleDestroy(): void {
    this.closing = true;
  }

  private find<T>(type: abstract new (...args: any[]) => T): T | undefined {
    try {
      return this.moduleRef.get(type, { strict: false });
    } catch {
      return undefined;
    }
  }

  get client(): DocketClient {
    return this.docketClient!;
  }

  get inspector(): DocketInspector {
    return this.docketInspector!;
  }

  get deadLetters(): DeadLetters {
    return this.docketDeadLetters!;
  }
}
