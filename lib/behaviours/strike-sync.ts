import type { StrikeOperator } from '../interfaces/strike-condition.interface.js';
import { decodeResult } from '../execution/codec.js';
import type { DocketStore } from '../store/docket-store.js';
import { StrikeList } from './strike-list.js';

const PAGE = 1_000;

/**
 * Keeps this process's `StrikeList` in step with the docket's strike log: loads it once, then
 * reads new entries whenever a strike is announced (and after a reconnect).
 */
export class StrikeSync {
  readonly list = new StrikeList();
  private lastId = '0-0';
  private loading?: Promise<void>;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<DocketStore, 'readStrikes' | 'onStrike' | 'onReconnect'>,
    private readonly warn: (message: string) => void,
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
    await this.store.onStrike(() => void this.catchUp().catch(() => undefined));
    this.store.onReconnect(() => void this.catchUp().catch(() => undefined));
    await this.catchUp();
  }

  /** Read the entries after the last one seen (reads run one after another). */
  catchUp(): Promise<void> {
    const next = this.tail.catch(() => undefined).then(() => this.read());
    this.tail = next;
    return next;
  }

  private async read(): Promise<void> {
    for (;;) {
      const entries = await this.store.readStrikes(this.lastId, PAGE);
      for (const entry of entries) {
        this.lastId = entry.id;
        try {
          this.list.apply(
            entry.op,
            {
              task: entry.task || null,
              parameter: entry.parameter || null,
              operator: entry.operator as StrikeOperator,
              value: entry.value ? decodeResult(entry.value) : undefined,
            },
            entry.value,
          );
        } catch (error) {
          this.warn(`strike ${entry.id} ignored: ${(error as Error).message}`);
        }
      }
      if (entries.length < PAGE) return;
    }
  }
}
