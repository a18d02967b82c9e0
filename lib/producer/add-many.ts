import { AddManyError } from '../errors/add-many.error.js';
import type { Execution } from '../execution/execution.js';
import type { ScheduleOutcome, ScheduleRequest, ScheduleResult } from '../store/docket-store.js';

/** Most items in one call, and most bytes of arguments: one call is atomic. */
const CHUNK_ITEMS = 1_000;
const CHUNK_BYTES = 1_048_576;

/** One item of an `addMany`: its request, or the execution of an item not sent (struck). */
export type ManyItem = { request: ScheduleRequest; args: readonly unknown[] } | { done: Execution };

/**
 * Schedule the items of an `addMany` in as few calls as their size allows (each call is
 * atomic: all its items or none). When a call fails, its items are looked up by their keys
 * (fresh ones, so one that exists was written by this call) before answering: the result is
 * every execution Redis took, or an `AddManyError` with exactly the items it did not.
 */
export async function sendMany(
  schedule: (requests: ScheduleRequest[]) => Promise<ScheduleResult[]>,
  items: ManyItem[],
  executionOf: (
    request: ScheduleRequest,
    args: readonly unknown[],
    result: ScheduleOutcome,
  ) => Execution,
  written: (request: ScheduleRequest) => Promise<Execution | undefined>,
): Promise<Execution[]> {
  const executions: (Execution | undefined)[] = items.map((item) =>
    'done' in item ? item.done : undefined,
  );
  const failed: number[] = [];
  let cause: unknown;
  for (const chunk of chunks(items)) {
    const sent = chunk.map(
      (i) => items[i] as { request: ScheduleRequest; args: readonly unknown[] },
    );
    const requests = sent.map((item) => item.request);
    let results: ScheduleResult[] | undefined;
    try {
      results = await schedule(requests);
    } catch (error) {
      cause ??= error;
    }
    for (const [n, i] of chunk.entries()) {
      const result = results?.[n];
      if (result && result.disposition !== 'error') {
        executions[i] = executionOf(requests[n], sent[n].args, result);
        continue;
      }
      if (result) cause ??= new Error(result.error);
      // the reply was lost (or the call refused): an item whose key exists was written
      const found = result ? undefined : await written(requests[n]).catch(() => undefined);
      if (found) executions[i] = found;
      else failed.push(i);
    }
  }
  if (failed.length === 0) return executions as Execution[];
  throw new AddManyError(
    `addMany: ${failed.length} of ${items.length} item(s) were not scheduled: ${(cause as Error)?.message ?? cause}`,
    executions.filter((e): e is Execution => e !== undefined),
    failed,
    { cause },
  );
}

/** Indexes of the items to send, in calls of at most CHUNK_ITEMS items and CHUNK_BYTES. */
function chunks(items: ManyItem[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  items.forEach((item, i) => {
    if (!('request' in item)) return;
    if (
      current.length >= CHUNK_ITEMS ||
      (current.length > 0 && bytes + item.request.args.length > CHUNK_BYTES)
    ) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(i);
    bytes += item.request.args.length;
  });
  if (current.length > 0) out.push(current);
  return out;
}
