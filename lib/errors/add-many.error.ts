import type { Execution } from '../execution/execution.js';

/**
 * Some items of an `addMany` were not scheduled: `scheduled` holds the executions Redis took
 * (in the order given), `failed` the indexes of the items it did not, so a caller retries
 * exactly those. `cause` is the first error met.
 */
export class AddManyError extends Error {
  override name = 'AddManyError';

  constructor(
    message: string,
    readonly scheduled: Execution[],
    readonly failed: number[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
