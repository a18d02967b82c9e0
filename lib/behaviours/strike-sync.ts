import { Logger } from '@nestjs/common';
import { decodeResult } from '../execution/codec.js';
import type { StrikeOperator } from '../interfaces/strike-condition.interface.js';
import type { DocketConnection } from '../store/connection.js';
import type { DocketKeys } from '../store/keys.js';
import type { Subscriptions } from '../store/subscriptions.js';
import { StrikeList } from './strike-list.js';

/**
 * Keeps this process's `StrikeList` in step with the docket's strike log: loads it once, then
 * reads new entries whenever a strike is announced (and after a reconnect).
 */
export class StrikeSync {
  readonly list = new StrikeList();
  private readonly logger = new Logger('Docket');
  private lastId = '0-0';
  private loading?: Promise<void>;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: DocketConnection,
    private readonly subscriptions: Subscriptions,
    private readonly keys: DocketKeys,
  ) {}

  /** Resolves once the strikes in effect are known (at most one load per process). */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    await this.subscriptions.subscribe(this.keys.strikesChannel, () => void this.catchUp());
    this.subscriptions.onReconnect(() => void this.catchUp());
    await this.catchUp();
  }

  /** Read the entries after the last one seen (reads run one after another). */
  catchUp(): Promise<void> {
    const next = this.tail.catch(() => undefined).then(() => this.read());
    this.tail = next;
    return next;
  }

  private async read(): Promise<void> {
    await this.connection.ready();
    for (;;) {
      const start = this.lastId === '0-0' ? '-' : `(${this.lastId}`;
      const entries = await this.connection.commands.xrange(
        this.keys.strikes,
        start,
        '+',
        'COUNT',
        1000,
      );
      for (const [id, fields] of entries) {
        this.lastId = id;
        const f: Record<string, string> = {};
        for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
        try {
          this.list.apply(
            f.op,
            {
              task: f.task || null,
              parameter: f.parameter || null,
              operator: (f.operator || '==') as StrikeOperator,
              value: f.value ? decodeResult(f.value) : undefined,
            },
            f.value ?? '',
          );
        } catch (error) {
          this.logger.warn(`strike ${id} ignored: ${(error as Error).message}`);
        }
      }
      if (entries.length < 1000) return;
    }
  }
}
