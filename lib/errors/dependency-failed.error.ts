/**
 * A dependency (a key of `after`) failed or was cancelled, so its waiter ended `failed`
 * without running (`onDependencyFailure: 'fail'`, the default). The message names that
 * dependency and its error: `dependency <key> failed: <its error>`.
 */
export class DependencyFailedError extends Error {
  override name = 'DependencyFailedError';
}
