import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { StrikeSync } from './behaviours/strike-sync.js';
import { DOCKET_RESOLVED_OPTIONS } from './docket.constants.js';
import type { ResolvedDocketOptions } from './docket-options.js';
import { TaskRegistry } from './explorer/task-registry.js';
import { DocketConnection } from './redis/connection.js';
import { DocketKeys } from './redis/keys.js';
import { Subscriptions } from './redis/subscriptions.js';

/**
 * What the client, the worker and executions share: options, key names, connections and the
 * task registry. Internal; closes the connections when the application has shut down.
 */
@Injectable()
export class DocketRuntime implements OnApplicationShutdown {
  readonly keys: DocketKeys;
  readonly connection: DocketConnection;
  readonly subscriptions: Subscriptions;
  readonly strikes: StrikeSync;

  constructor(
    @Inject(DOCKET_RESOLVED_OPTIONS) readonly options: ResolvedDocketOptions,
    readonly registry: TaskRegistry,
  ) {
    this.keys = new DocketKeys(options.name);
    this.connection = new DocketConnection(options.url, options.connection);
    this.subscriptions = new Subscriptions(this.connection);
    this.strikes = new StrikeSync(this.connection, this.subscriptions, this.keys);
  }

  get hasWorker(): boolean {
    return this.options.worker !== false;
  }

  onApplicationShutdown(): void {
    this.connection.close();
  }
}
