import type { DocketStore, Unsubscribe } from '../store/docket-store.js';
import { within } from '../util/time.js';

/** Hears `cancel(key)` of running tasks (a sweep after a reconnect is the lease keeper's). */
export class CancelListener {
  private undo?: Unsubscribe;

  constructor(
    private readonly store: Pick<DocketStore, 'onCancel'>,
    private readonly cancelled: (key: string) => void,
  ) {}

  async start(): Promise<void> {
    this.undo ??= await this.store.onCancel(this.cancelled);
  }

  async stop(): Promise<void> {
    await within(this.undo?.(), 1_000);
    this.undo = undefined;
  }
}
