/** A task that ran past its `timeout`, or a `result()` wait that expired. */
export class TimeoutError extends Error {
  override name = 'TimeoutError';
}
