import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import type { DynamicModule, ModuleMetadata, Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import { DocketClient, DocketModule, DocketWorker } from '../lib/index.js';
import type { DocketModuleOptions } from '../lib/index.js';

/** The test run's own Redis (started by test/run.mjs). */
export const REDIS_URL = process.env.DOCKET_TEST_URL ?? 'redis://127.0.0.1:6379/0';

/** A docket name no other test uses. */
export function uniqueName(prefix = 't'): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** A plain client for looking into Redis directly; close it with `quit()`. */
export function rawRedis(): Redis {
  return new Redis(REDIS_URL);
}

export interface TestDocket {
  module: TestingModule;
  client: DocketClient;
  worker: DocketWorker;
  name: string;
  close(): Promise<void>;
}

/**
 * Boot a Nest testing module with `DocketModule.forRoot` on the test Redis and the given
 * providers. The worker does not start by itself unless `worker.autoStart` is given.
 */
export async function createDocket(
  providers: Provider[] = [],
  options: DocketModuleOptions = {},
  imports: ModuleMetadata['imports'] = [],
): Promise<TestDocket> {
  const name = options.name ?? uniqueName();
  const worker = options.worker === false ? false : { autoStart: false, ...options.worker };
  const docket: DynamicModule = DocketModule.forRoot({ url: REDIS_URL, ...options, name, worker });
  const module = await Test.createTestingModule({
    imports: [docket, ...imports],
    providers,
  }).compile();
  module.useLogger(false);
  await module.init();
  return {
    module,
    client: module.get(DocketClient),
    worker: module.get(DocketWorker),
    name,
    close: () => module.close(),
  };
}

/** A promise with its resolve function, for waiting on what a handler does. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const PERMANENT = new Set(['stream', 'queue', 'strikes', 'workers', 'dead']);

/**
 * Assert that every key of docket `name` has a TTL, except its permanent structures and the
 * records of live tasks (scheduled, queued or running).
 */
export async function assertNoKeyWithoutTtl(name: string): Promise<void> {
  const redis = rawRedis();
  try {
    const prefix = `{${name}}:`;
    const keys = await redis.keys(`${prefix}*`);
    const leaks: string[] = [];
    for (const key of keys) {
      const suffix = key.slice(prefix.length);
      if (PERMANENT.has(suffix)) continue;
      if ((await redis.pttl(key)) !== -1) continue;
      const match = /^(runs|parked|progress):(.*)$/.exec(suffix);
      if (match) {
        const state = await redis.hget(`${prefix}runs:${match[2]}`, 'state');
        if (state === 'scheduled' || state === 'queued' || state === 'running') continue;
      }
      leaks.push(key);
    }
    assert.deepEqual(leaks, [], `keys without a TTL: ${leaks.join(', ')}`);
  } finally {
    redis.disconnect();
  }
}
