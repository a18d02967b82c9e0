import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { deferred, uniqueName, useDocket, waitFor, waitsInLine } from '../utils.js';

@Injectable()
class Held {
  started = deferred();
  gate = deferred();

  @DocketTask({ concurrency: { max: 1 } })
  async single(value: string): Promise<string> {
    this.started.resolve();
    await this.gate.promise;
    return value;
  }
}

describe('read model: counts and dockets', { timeout: 120_000, concurrency: true }, () => {
  it('snapshot() counts every task in full and cuts only its lists', async (t) => {
    const docket = await useDocket(t, [], { worker: false });
    await docket.client.addMany(
      'sleep',
      Array.from({ length: 1_200 }, (_, i) => [i]),
      { delay: 600_000 },
    );
    await docket.client.addMany('trace', [['a'], ['b'], ['c']]);
    const counts = { running: 0, queued: 3, scheduled: 1_200, held: 0 };
    assert.deepEqual(await docket.inspector.counts(), counts);

    const snapshot = await docket.inspector.snapshot();
    assert.equal(snapshot.totalTasks, 1_203);
    assert.deepEqual(snapshot.counts, counts);
    assert.equal(snapshot.limit, 1_000);
    assert.equal(snapshot.future.length, 1_000);
    assert.deepEqual(
      snapshot.future.slice(0, 4).map((f) => [f.taskName, f.state]),
      [
        ['trace', 'queued'],
        ['trace', 'queued'],
        ['trace', 'queued'],
        ['sleep', 'scheduled'],
      ],
    );

    const short = await docket.client.snapshot({ limit: 2 });
    assert.deepEqual(short.counts, counts);
    assert.equal(short.totalTasks, 1_203);
    assert.deepEqual(
      short.future.map((f) => f.args),
      [['a'], ['b']],
    );
    assert.equal((await docket.client.snapshot({ limit: 0 })).future.length, 0);
    assert.equal((await docket.client.snapshot({ limit: Infinity })).future.length, 1_203);
    await assert.rejects(docket.client.snapshot({ limit: -1 }), TypeError);
  });

  it('counts a running task, and one waiting for a concurrency slot as queued', async (t) => {
    const docket = await useDocket(t, [Held], {
      worker: { minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    const held = docket.module.get(Held);
    t.after(() => held.gate.resolve());
    await docket.client.add(Held.prototype.single, { key: 'holder' })('first');
    void docket.worker.runForever();
    await held.started.promise;
    await docket.client.add(Held.prototype.single, { key: 'waiter' })('second');
    await waitFor(() => waitsInLine(docket, 'waiter', 1), 'the second task to wait for the slot');
    await docket.client.add('sleep', { key: 'later', delay: 600_000 })(1);

    const snapshot = await docket.client.snapshot();
    assert.deepEqual(snapshot.counts, { running: 1, queued: 1, scheduled: 1, held: 0 });
    assert.equal(snapshot.totalTasks, 3);
    assert.deepEqual(
      snapshot.running.map((r) => r.key),
      ['holder'],
    );
    assert.deepEqual(
      snapshot.future.map((f) => [f.key, f.state]),
      [
        ['waiter', 'queued'],
        ['later', 'scheduled'],
      ],
    );
  });

  it('exists() and dockets() tell a docket that was used from one that never was', async (t) => {
    const used = await useDocket(t, [], { name: uniqueName('used'), worker: false });
    const struck = await useDocket(t, [], { name: uniqueName('struck'), worker: false });
    const never = await useDocket(t, [], { name: uniqueName('never'), worker: false });
    assert.equal(await used.inspector.exists(), false);

    // a future task only, a key that looks like another docket's marker, and a strike only
    await used.client.add('trace', { key: 'x}:stream', delay: 600_000 })('x');
    await struck.client.strike({ task: 'trace' });
    assert.equal(await used.inspector.exists(), true);
    assert.equal(await struck.inspector.exists(), true);
    assert.equal(await never.inspector.exists(), false);

    const names = await never.inspector.dockets();
    assert.ok(names.includes(used.name), names.join(', '));
    assert.ok(names.includes(struck.name), names.join(', '));
    assert.ok(!names.includes(never.name));
    assert.ok(
      names.every((name) => !/[{}\s]/.test(name)),
      names.join(', '),
    );
    assert.deepEqual(names, [...names].sort());
  });
});
