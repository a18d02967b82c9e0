import type { DocketStore, ScheduleOutcome, ScheduleRequest } from '../store/docket-store.js';

interface Pending {
  request: ScheduleRequest;
  resolve: (result: ScheduleOutcome) => void;
  reject: (error: unknown) => void;
}

/** Most schedules in one call, and most bytes of arguments. */
const BATCH_MAX = 32;
const BATCH_BYTES = 1_048_576;

/**
 * Sends the schedules asked for in one turn of the event loop to the store together, in
 * order (a few dozen per call, so that Redis works on one call while the next is built).
 */
export class ScheduleBatcher {
  private pending: Pending[] = [];
  private pendingBytes = 0;

  constructor(private readonly store: Pick<DocketStore, 'schedule'>) {}

  /** Resolves once Redis has taken the request; rejects when the key's records are unreadable. */
  schedule(request: ScheduleRequest): Promise<ScheduleOutcome> {
    return new Promise<ScheduleOutcome>((resolve, reject) => {
      if (this.pending.length === 0) process.nextTick(() => void this.flush());
      this.pending.push({ request, resolve, reject });
      this.pendingBytes += request.args.length;
      if (this.pending.length >= BATCH_MAX || this.pendingBytes >= BATCH_BYTES) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    this.pendingBytes = 0;
    if (batch.length === 0) return;
    try {
      const results = await this.store.schedule(
        batch.map((p) => p.request),
        Date.now(),
      );
      batch.forEach(({ request, resolve, reject }, i) => {
        const result = results[i];
        if (result.disposition === 'error') {
          reject(new Error(`key ${request.key} cannot be scheduled: ${result.error}`));
        } else {
          resolve(result);
        }
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }
}
