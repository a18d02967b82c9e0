/** Redis did not answer; nothing was written. */
export class RedisUnavailableError extends Error {
  override name = 'RedisUnavailableError';
}
