import { setTimeout as delay } from 'node:timers/promises';

/** Wait `ms`, or stop at once with the signal's reason when it is aborted. */
export async function pause(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    signal.throwIfAborted();
    throw error;
  }
}
