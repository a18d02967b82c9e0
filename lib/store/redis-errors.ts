import { RedisFullError } from '../errors/redis-full.error.js';
import { RedisUnavailableError } from '../errors/redis-unavailable.error.js';

/** What a failed Redis command means for its caller. */
export type RedisErrorKind = 'unavailable' | 'nogroup' | 'busygroup' | 'oom' | 'noscript' | 'other';

/** Connection failures as ioredis reports them with the engine's settings (no offline queue). */
const UNAVAILABLE =
  /Stream isn't writeable|enableOfflineQueue|Connection is closed|ECONNREFUSED|ETIMEDOUT|ECONNRESET|EPIPE|EHOSTUNREACH|ENOTFOUND/;

/** The kind of a Redis error, from its class or the reply's first word. */
export function classifyRedisError(error: unknown): RedisErrorKind {
  if (error instanceof RedisUnavailableError) return 'unavailable';
  if (error instanceof RedisFullError) return 'oom';
  const message = (error as Error)?.message ?? String(error);
  if ((error as Error)?.name === 'MaxRetriesPerRequestError' || UNAVAILABLE.test(message)) {
    return 'unavailable';
  }
  // a script error keeps the reply of the command that failed inside it (Redis 6.2 puts it
  // after "ERR Error running script …: @user_script:N: ", 7.0 first)
  const word = /(?:^|: )(NOGROUP|BUSYGROUP|OOM|NOSCRIPT)\b/.exec(message)?.[1];
  switch (word) {
    case 'NOGROUP':
      return 'nogroup';
    case 'BUSYGROUP':
      return 'busygroup';
    case 'OOM':
      return 'oom';
    case 'NOSCRIPT':
      return 'noscript';
    default:
      return 'other';
  }
}

/**
 * The error a caller sees: `RedisUnavailableError` (with `describe`'s reason) for a lost
 * connection, `RedisFullError` when Redis refuses writes for lack of memory, else the error as
 * it is.
 */
export function mapRedisError(error: unknown, unreachable: () => string): Error {
  switch (classifyRedisError(error)) {
    case 'unavailable':
      return error instanceof RedisUnavailableError
        ? error
        : new RedisUnavailableError(unreachable());
    case 'oom':
      return error instanceof RedisFullError
        ? error
        : new RedisFullError(`Redis refuses writes: ${(error as Error).message}`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}
