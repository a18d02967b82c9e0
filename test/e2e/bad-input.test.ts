import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask, PayloadTooLargeError, UnknownTaskError } from '../../lib/index.js';
import { useDocket, type TestDocket } from '../utils.js';

@Injectable()
class Tasks {
  @DocketTask()
  async take(...values: unknown[]): Promise<number> {
    return values.length;
  }

  async undecorated(value: string): Promise<string> {
    return value;
  }
}

/** Whether the docket holds no task: nothing waits, runs or is listed. */
async function assertEmpty(docket: TestDocket): Promise<void> {
  const snapshot = await docket.inspector.snapshot();
  assert.equal(snapshot.totalTasks, 0);
  assert.deepEqual([...snapshot.running, ...snapshot.future], []);
  const { queue, schedule, running, deadLetters } = await docket.inspector.depths();
  assert.deepEqual(
    { queue, schedule, running, deadLetters },
    {
      queue: 0,
      schedule: 0,
      running: 0,
      deadLetters: 0,
    },
  );
}

function typeErrorAt(position: number, what: RegExp) {
  return (error: Error) => {
    assert.ok(error instanceof TypeError, String(error));
    assert.match(error.message, new RegExp(`^argument ${position}\\b`));
    assert.match(error.message, what);
    return true;
  };
}

describe('bad input at add', { timeout: 60_000 }, () => {
  it('is refused before anything reaches Redis', async (t) => {
    const docket = await useDocket(t, [Tasks], { maxPayloadBytes: 64 });
    const { client } = docket;
    const cycle: Record<string, unknown> = {};
    cycle.again = { back: cycle };

    await assert.rejects(
      async () => client.add(Tasks.prototype.take)('fine', () => 'no'),
      typeErrorAt(1, /function/),
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.take)(Symbol('nope')),
      typeErrorAt(0, /symbol/),
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.take)(1, 2, cycle),
      typeErrorAt(2, /circular/),
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.take)({ nested: [1, { fn: Math.max }] }),
      typeErrorAt(0, /function/),
    );
    // '["' + 60 characters + '"]' is 64 bytes: the limit is inclusive.
    await assert.rejects(
      async () => client.add(Tasks.prototype.take, { key: 'big' })('x'.repeat(61)),
      (error: Error) => {
        assert.ok(error instanceof PayloadTooLargeError);
        assert.equal(error.name, 'PayloadTooLargeError');
        assert.match(error.message, /65 bytes/);
        assert.match(error.message, /maxPayloadBytes is 64/);
        return true;
      },
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.take)('é'.repeat(31)),
      PayloadTooLargeError,
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.undecorated)('x'),
      (error: Error) => error instanceof UnknownTaskError && /undecorated/.test(error.message),
    );
    await assert.rejects(
      async () => client.add('no.such.task')('x'),
      (error: Error) => error instanceof UnknownTaskError && /no\.such\.task/.test(error.message),
    );
    await assert.rejects(
      async () => client.replace('no.such.task', { key: 'k' })('x'),
      UnknownTaskError,
    );
    await assert.rejects(
      async () => client.add(Tasks.prototype.take, { when: new Date('nope') })(),
      TypeError,
    );
    await assert.rejects(async () => client.add(Tasks.prototype.take, { key: '' })(), TypeError);
    await assert.rejects(
      async () => client.replace(Tasks.prototype.take, {} as { key: string })(),
      TypeError,
    );
    // nothing reached the docket (test/contract/key-lifetimes checks that no key was written)
    await assertEmpty(docket);
    assert.equal(await client.getExecution('big'), null);
    assert.equal(await client.getExecution('k'), null);

    const fits = await client.add(Tasks.prototype.take, { key: 'fits' })('x'.repeat(60));
    assert.equal(fits.disposition, 'scheduled');
    await docket.worker.runUntilFinished();
    assert.equal(await fits.result({ timeout: 2_000 }), 1);
  });

  it('a producer-only process accepts any task name', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    const execution = await docket.client.add('defined.elsewhere', { key: 'p' })(1);
    assert.equal(execution.disposition, 'scheduled');
    assert.equal(execution.taskName, 'defined.elsewhere');
    assert.equal(execution.state, 'queued');
    await assert.rejects(
      async () => docket.client.add(Tasks.prototype.undecorated)('x'),
      UnknownTaskError,
    );
    await assert.rejects(
      async () => docket.client.add('anything')(() => 1),
      typeErrorAt(0, /function/),
    );
    // only the accepted add reached the docket: its execution, and its message on the stream
    const snapshot = await docket.inspector.snapshot();
    assert.equal(snapshot.totalTasks, 1);
    assert.deepEqual(
      snapshot.future.map((f) => [f.key, f.taskName, f.args]),
      [['p', 'defined.elsewhere', [1]]],
    );
    assert.equal((await docket.inspector.depths()).queue, 1);
    await docket.client.cancel('p');
    assert.equal((await docket.client.getExecution('p'))?.state, 'cancelled');
  });
});
