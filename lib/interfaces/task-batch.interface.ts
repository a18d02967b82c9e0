/** One execution in a `TaskBatch`: its key, its arguments and which attempt this is. */
export interface BatchItem<Args extends unknown[] = unknown[]> {
  readonly key: string;
  readonly args: Args;
  readonly attempt: number;
}

/**
 * What the handler of a task with the `batch` option receives: the executions of one call, in
 * the order they were read. The handler returns nothing (every item completed), an array of
 * results in item order, or throws (every item failed, each retried by its own policy).
 */
export interface TaskBatch<Args extends unknown[] = unknown[]> extends ReadonlyArray<
  BatchItem<Args>
> {
  /** Fail one item with `error` (an attempt of it, retried by its policy); the rest complete. */
  fail(item: BatchItem<Args>, error: unknown): void;
  /** Aborted when the batch times out or the worker gives up on it at shutdown. */
  readonly signal: AbortSignal;
}
