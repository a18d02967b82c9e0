// What a worker tells about itself at registration (host, pid, start, version, concurrency)
// reaches the read model and the dashboard's api/workers; a worker of an older version, which
// registers without it, is listed with nulls, and the record leaves with its worker.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { startDashboardApp } from '../e2e/dashboard/fixture.js';
import { waitFor } from '../utils.js';
import { keyOf, withRaw } from './raw.js';

interface Worker {
  name: string;
  host: string | null;
  pid: number | null;
  startedAt: string | null;
  version: string | null;
  concurrency: number | null;
  running: unknown[];
}

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('dashboard workers', () => {
  it('lists host, pid, start, version and concurrency; an older worker’s as null', async (t) => {
    const before = Date.now();
    const docket = await startDashboardApp({ worker: { name: 'told-1', concurrency: 3 } });
    let closed = false;
    t.after(() => (closed ? undefined : docket.close()));
    const workers = async () =>
      (await (await fetch(`${docket.url}/docket/api/workers`)).json()) as Worker[];

    const [told] = await waitFor(async () => {
      const list = await workers();
      return list.length > 0 && list;
    }, 'the worker registered');
    assert.equal(told.name, 'told-1');
    assert.equal(told.host, hostname());
    assert.equal(told.pid, process.pid);
    assert.equal(told.version, VERSION);
    assert.equal(told.concurrency, 3);
    const started = Date.parse(told.startedAt!);
    assert.ok(started >= before - 1_000 && started <= Date.now(), told.startedAt!);
    assert.deepEqual(told.running, []);

    // the record expires like the task registry, and a stopping worker removes it
    await withRaw(async (redis) => {
      assert.ok((await redis.pttl(keyOf(docket.name, 'worker-info:told-1'))) > 0);
      // an older worker: in the registry, without what the new ones tell
      await redis.zadd(keyOf(docket.name, 'workers'), Date.now() + 60_000, 'old-1');
      await redis.sadd(keyOf(docket.name, 'worker-tasks:old-1'), 'quick');
      await redis.pexpire(keyOf(docket.name, 'worker-tasks:old-1'), 60_000);
      // and one whose record is garbage
      await redis.zadd(keyOf(docket.name, 'workers'), Date.now() + 60_000, 'odd-1');
      await redis.set(keyOf(docket.name, 'worker-info:odd-1'), '{"pid":"x","host":7', 'PX', 60_000);
    });
    const byName = new Map((await workers()).map((w) => [w.name, w]));
    for (const name of ['old-1', 'odd-1']) {
      const worker = byName.get(name);
      assert.ok(worker, name);
      assert.deepEqual(
        [worker.host, worker.pid, worker.startedAt, worker.version, worker.concurrency],
        [null, null, null, null, null],
        name,
      );
    }
    assert.deepEqual(byName.get('old-1')!.running, []);

    // a stopping worker takes its record along
    closed = true;
    await docket.close();
    // (unregistering is best effort within a second: wait for it, do not assume it)
    await waitFor(
      () =>
        withRaw(
          async (redis) => (await redis.exists(keyOf(docket.name, 'worker-info:told-1'))) === 0,
        ),
      'the record of the stopped worker to go',
    );
  });
});
