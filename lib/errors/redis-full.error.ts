/** Redis refuses writes for lack of memory (`maxmemory` reached with `noeviction`); nothing was written. */
export class RedisFullError extends Error {
  override name = 'RedisFullError';
}
