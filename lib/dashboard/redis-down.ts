import { HttpException, ServiceUnavailableException } from '@nestjs/common';
import { RedisUnavailableError } from '../public-api.js';

/**
 * Run a read or an action; when Redis cannot be reached, answer 503 with the reason (an
 * `HttpException`, which Nest does not log: a page polling an unreachable Redis must not fill
 * the logs with stacks). Other errors go on as they are.
 */
export async function unlessRedisIsDown<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HttpException || !isConnectionError(error)) throw error;
    throw new ServiceUnavailableException(`Redis is not reachable: ${(error as Error).message}`);
  }
}

/** What the reads answer for `error`: the reason Redis cannot be reached, or its message. */
export function unavailableReason(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return isConnectionError(error) ? `Redis is not reachable: ${message}` : message;
}

function isConnectionError(error: unknown): boolean {
  if (error instanceof RedisUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  // ioredis, with the engine's settings (no offline queue, no retries of a sent command)
  return (
    error.name === 'MaxRetriesPerRequestError' ||
    /enableOfflineQueue|Connection is closed|ECONNREFUSED|ECONNRESET|ETIMEDOUT/.test(error.message)
  );
}
