import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { DocketClient } from '../docket.client.js';
import { DocketRuntime } from '../docket.runtime.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import { StrikeLog } from './strike-log.js';

/**
 * The docket the dashboard shows: the application's `DocketClient` and, for what the client
 * does not offer (key names, the connection), the engine's runtime.
 */
@Injectable()
export class DashboardDocket implements OnModuleInit {
  private resolved?: DocketRuntime;
  private strikeLog?: StrikeLog;

  constructor(
    readonly client: DocketClient,
    private readonly moduleRef: ModuleRef,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  onModuleInit(): void {
    const wanted = this.options.docket;
    if (wanted !== undefined && wanted !== this.client.name) {
      throw new DocketConfigurationError(
        `DocketDashboardModule: docket "${wanted}" is not this application's docket ` +
          `("${this.client.name}"); an application has one DocketModule, so leave "docket" out ` +
          `or give DocketModule.forRoot({ name: "${wanted}" }).`,
      );
    }
  }

  /** The engine's runtime (internal to the package; not exported by DocketModule). */
  get runtime(): DocketRuntime {
    this.resolved ??= this.moduleRef.get(DocketRuntime, { strict: false });
    return this.resolved;
  }

  /** The strikes in effect, read from the docket's strike log. */
  get strikes(): StrikeLog {
    this.strikeLog ??= new StrikeLog(this.runtime);
    return this.strikeLog;
  }
}
