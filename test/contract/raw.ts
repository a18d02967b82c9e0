// The raw view of a docket's storage: its keys, their TTLs, its hashes, its stream and the
// pending entries of its consumer group. For the storage contract suite (test/contract/) only:
// every other test goes through the public API and the read model (DocketClient, Execution,
// DocketWorker, DocketInspector), so that a change of the storage layout breaks these tests and
// no other.
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { MemoryClient } from '../../lib/store/memory/memory-client.js';
import { BACKEND, REDIS_URL } from '../utils.js';

/**
 * A plain client for looking into the backend directly (on memory://, a client of the same
 * in-process server with the same commands); close it with `disconnect()`.
 */
export function rawRedis(): Redis {
  if (BACKEND === 'memory') return new MemoryClient('tests') as unknown as Redis;
  return new Redis(REDIS_URL);
}

/** Run `body` with a raw client, disconnected afterwards. */
export async function withRaw<T>(body: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = rawRedis();
  try {
    return await body(redis);
  } finally {
    redis.disconnect();
  }
}

/** The name of a key of docket `name`: `{name}:<suffix>`. */
export function keyOf(name: string, suffix: string): string {
  return `{${name}}:${suffix}`;
}

const PERMANENT = new Set(['stream', 'queue', 'strikes', 'workers', 'dead', 'lanes']);
/** The lanes of priorities other than 5, and of resumed work: permanent like the stream. */
const LANE = /^(stream|resumed):\d$/;

/**
 * Assert that every key of docket `name` has a TTL, except its permanent structures and the
 * records of live tasks (scheduled, queued or running).
 */
export async function assertNoKeyWithoutTtl(name: string): Promise<void> {
  await withRaw(async (redis) => {
    const prefix = `{${name}}:`;
    const keys = await redis.keys(`${prefix}*`);
    const leaks: string[] = [];
    for (const key of keys) {
      const suffix = key.slice(prefix.length);
      if (PERMANENT.has(suffix) || LANE.test(suffix)) continue;
      if ((await redis.pttl(key)) !== -1) continue;
      const match = /^(runs|parked|progress):(.*)$/.exec(suffix);
      if (match) {
        const state = await redis.hget(`${prefix}runs:${match[2]}`, 'state');
        if (state === 'scheduled' || state === 'queued' || state === 'running') continue;
      }
      leaks.push(key);
    }
    assert.deepEqual(leaks, [], `keys without a TTL: ${leaks.join(', ')}`);
  });
}

/** The keys of docket `name`, without the `{name}:` prefix, sorted. */
export function docketKeys(name: string): Promise<string[]> {
  return withRaw(async (redis) => {
    const prefix = `{${name}}:`;
    return (await redis.keys(`${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
  });
}

/** The number of messages of docket `name` that a worker read and has not acknowledged. */
export async function pendingCount(name: string): Promise<number> {
  try {
    return await withRaw(async (redis) => {
      const [count] = (await redis.xpending(`{${name}}:stream`, 'docket-workers')) as [number];
      return Number(count);
    });
  } catch (error) {
    if (String(error).includes('NOGROUP')) return 0;
    throw error;
  }
}

/** The runs hash of a task key of docket `name`. */
export function runsHash(name: string, key: string): Promise<Record<string, string>> {
  return withRaw((redis) => redis.hgetall(keyOf(name, `runs:${key}`)));
}

/**
 * The due time (epoch ms) of `key` in the queue (the sorted set of future tasks) of docket
 * `name`, or null: its score is when * 1024 + its place among the tasks due in that ms.
 */
export async function queueScore(name: string, key: string): Promise<number | null> {
  const score = await rawQueueScore(name, key);
  return score === null ? null : Math.floor(score / 1024);
}

/** The raw score of `key` in the queue of docket `name`, or null. */
export function rawQueueScore(name: string, key: string): Promise<number | null> {
  return withRaw(async (redis) => {
    const score = await redis.zscore(keyOf(name, 'queue'), key);
    return score === null ? null : Number(score);
  });
}

/** The entries of the stream of docket `name`, each with its fields as a record. */
export function streamEntries(name: string): Promise<[string, Record<string, string>][]> {
  return withRaw(async (redis) =>
    (await redis.xrange(keyOf(name, 'stream'), '-', '+')).map(([id, fields]) => {
      const record: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) record[fields[i]] = fields[i + 1];
      return [id, record] as [string, Record<string, string>];
    }),
  );
}

/** The number of entries of the stream of docket `name`. */
export function streamLength(name: string): Promise<number> {
  return withRaw((redis) => redis.xlen(keyOf(name, 'stream')));
}

/**
 * Append an entry to a stream of docket `name` (`stream` by default) as a producer that writes
 * only the stream would (see the README's wire format): the fields in the order given.
 */
export function writeEntry(
  name: string,
  fields: Record<string, string> | string[],
  stream = 'stream',
): Promise<string> {
  const list = Array.isArray(fields) ? fields : Object.entries(fields).flat();
  return withRaw(async (redis) => (await redis.xadd(keyOf(name, stream), '*', ...list))!);
}
