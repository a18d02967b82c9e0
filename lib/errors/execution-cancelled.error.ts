/** `Execution.result()` of an execution that was cancelled. */
export class ExecutionCancelledError extends Error {
  override name = 'ExecutionCancelledError';
}
