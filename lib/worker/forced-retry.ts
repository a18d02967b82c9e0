/** Thrown by `ctx.retry.in/at`: try again at `when`, still bounded by the task's attempts. */
export class ForcedRetry extends Error {
  override name = 'ForcedRetry';
  constructor(readonly when: number) {
    super(`retry requested for ${new Date(when).toISOString()}`);
  }
}
