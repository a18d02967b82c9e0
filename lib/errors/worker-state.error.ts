/** A worker method called in a process or state that cannot run it (no worker, or shut down). */
export class WorkerStateError extends Error {
  override name = 'WorkerStateError';
}
