import assert from 'node:assert/strict';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import { DocketTask, type DocketModuleOptions } from '../../lib/index.js';
import { REDIS_ONLY, REDIS_URL, createDocket, useDocket } from '../utils.js';

// A `connection` client made by another copy of ioredis (pnpm, a monorepo) is not an instance
// of our ioredis classes. It must be recognised by its shape and used — never taken for options
// (which would connect to DOCKET_URL or localhost instead, possibly another server).

@Injectable()
class Tasks {
  @DocketTask()
  async double(n: number): Promise<number> {
    return n * 2;
  }
}

interface ForeignClient {
  status: string;
  disconnect(): void;
}

/** A second copy of ioredis, loaded from its own folder: its classes are not ours. */
function otherIoredis(): new (url: string, options: object) => ForeignClient {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = dirname(dirname(createRequire(import.meta.url).resolve('ioredis')));
  const target = join(here, '.other-ioredis', 'node_modules', 'ioredis');
  rmSync(target, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(source, target, { recursive: true });
  const copy = createRequire(join(here, '.other-ioredis', 'index.js'))('ioredis') as {
    Redis: new (url: string, options: object) => ForeignClient;
  };
  return copy.Redis;
}

describe('a client of another ioredis copy', { timeout: 30_000, skip: REDIS_ONLY }, () => {
  it('is recognised by its shape and used for the docket', async (t) => {
    const OtherRedis = otherIoredis();
    const { Redis: OurRedis } = await import('ioredis');
    const foreign = new OtherRedis(REDIS_URL, { lazyConnect: true });
    t.after(() => foreign.disconnect());
    assert.ok(!(foreign instanceof OurRedis), 'the copy has classes of its own');
    // No url: were the client taken for options, the docket would connect elsewhere.
    const docket = await useDocket(t, [Tasks], {
      url: undefined,
      connection: foreign as unknown as DocketModuleOptions['connection'],
    });
    const execution = await docket.client.add(Tasks.prototype.double)(21);
    await docket.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 5_000 }), 42);
    assert.equal(foreign.status, 'ready', 'the given client carried the commands');
  });

  it('is refused, naming what is missing, when it lacks what the engine needs', async () => {
    const halfClient = { call: () => undefined, status: 'ready' };
    await assert.rejects(
      createDocket([], { connection: halfClient as unknown as DocketModuleOptions['connection'] }),
      /"connection" looks like a Redis client but has no evalsha, eval, duplicate, subscribe, on, disconnect/,
    );
  });
});
