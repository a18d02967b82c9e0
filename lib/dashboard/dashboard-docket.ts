import {
  Inject,
  Injectable,
  type OnModuleDestroy,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DocketClient } from '../producer/docket.client.js';
import { DocketRuntime } from '../docket.runtime.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import { StrikeLog } from './strike-log.js';

/**
 * The docket the dashboard shows: the application's `DocketClient` and, for what the client
 * does not offer (key names, the connection), the engine's runtime. Found in any module, so a
 * `DocketModule` with `isGlobal: false` works too.
 */
@Injectable()
export class DashboardDocket implements OnModuleInit, OnModuleDestroy {
  /** Whether the application is shutting down (the dashboard then serves nothing). */
  closing = false;
  private docketClient?: DocketClient;
  private docketRuntime?: DocketRuntime;
  private strikeLog?: StrikeLog;

  constructor(
    private readonly moduleRef: ModuleRef,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
    @Optional() injected?: DocketClient,
  ) {
    this.docketClient = injected;
  }

  onModuleInit(): void {
    this.docketClient ??= this.find(DocketClient);
    this.docketRuntime = this.find(DocketRuntime);
    if (!this.docketClient || !this.docketRuntime) {
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

  /** The engine's runtime (internal to the package; DocketModule does not export it). */
  get runtime(): DocketRuntime {
    return this.docketRuntime!;
  }

  /** The strikes in effect, read from the docket's strike log. */
  get strikes(): StrikeLog {
    this.strikeLog ??= new StrikeLog(this.runtime);
    return this.strikeLog;
  }
}
