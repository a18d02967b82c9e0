// Dead letters beyond listing (test/e2e/dead-letters.test.ts covers how unknown tasks and
// failed last attempts are listed): what deadLetters() keeps exactly, retryDeadLetter(key) and
// ({ all: true }), purgeDeadLetters(), and a letter of an unknown task retried once a worker
// knows the task. The letters of malformed entries a foreign producer wrote (arguments that
// cannot be decoded, no key) are checked in test/contract/wire-format.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../../lib/index.js';
import { useDocket } from '../../utils.js';

@Injectable()
class Tasks {
  broken = true;
  seen: { key: string; args: unknown[]; attempt: number }[] = [];

  /** Fails while `broken`; echoes its arguments. */
  @DocketTask({ retry: { attempts: 2 } })
  async fragile(value: unknown, extra: unknown, @Ctx() ctx: TaskContext): Promise<unknown[]> {
    this.seen.push({ key: ctx.key, args: [value, extra], attempt: ctx.attempt });
    if (this.broken) throw new TypeError(`broken on ${ctx.key}`);
    return [value, extra];
  }
}

@Injectable()
class LateTasks {
  ran: string[] = [];
  @DocketTask({ name: 'late.task' })
  async late(value: string): Promise<string> {
    this.ran.push(value);
    return `late ${value}`;
  }
}

const FAST = { worker: { minimumCheckInterval: 50 } };

/** Fail `keys` through their last attempt; returns the moment before. */
async function kill(
  docket: Awaited<ReturnType<typeof useDocket>>,
  keys: string[],
  args: unknown[] = ['v', 1],
): Promise<number> {
  const before = Date.now();
  for (const key of keys) await docket.client.add('fragile', { key })(...args);
  await docket.worker.runUntilFinished();
  return before;
}

describe('dead letters: list, retry, purge', { timeout: 60_000 }, () => {
  it('list a failed last attempt with key, task, decoded args, error, attempt and deadAt', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const args = [{ at: new Date(86_400_000), n: 12n, m: new Map([['a', 1]]) }, [undefined, 'x']];
    const before = await kill(docket, ['k'], args);
    const [letter, ...others] = await docket.client.deadLetters();
    assert.deepEqual(others, []);
    assert.equal(letter.key, 'k');
    assert.equal(letter.taskName, 'fragile');
    assert.deepEqual(letter.args, args);
    assert.equal(letter.error, 'TypeError: broken on k');
    assert.equal(letter.attempt, 2);
    assert.ok(letter.deadAt.getTime() >= before && letter.deadAt.getTime() <= Date.now());
  });

  it('retryDeadLetter(key) runs it again with the same key and args; it completes', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const args = [{ at: new Date(0), big: 2n ** 70n }, new Set(['s'])];
    await kill(docket, ['again', 'other'], args);
    assert.equal((await docket.client.deadLetters()).length, 2);
    tasks.broken = false;
    tasks.seen = [];

    assert.equal(await docket.client.retryDeadLetter('again'), 1);
    assert.deepEqual(
      (await docket.client.deadLetters()).map((l) => l.key),
      ['other'],
    );
    const execution = await docket.client.getExecution('again');
    assert.equal(execution?.state, 'queued');
    assert.equal(execution?.attempt, 1);
    await docket.worker.runUntilFinished();
    assert.deepEqual(await execution!.result({ timeout: 2_000 }), args);
    assert.deepEqual(tasks.seen, [{ key: 'again', args, attempt: 1 }]);
    assert.equal((await docket.client.getExecution('again'))?.state, 'completed');

    assert.equal(await docket.client.retryDeadLetter('no-such-key'), 0);
    assert.equal((await docket.client.deadLetters()).length, 1);
  });

  it('retryDeadLetter({ all: true }) counts what it scheduled; purgeDeadLetters() removes the rest', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    await kill(docket, ['a', 'b', 'c', 'busy']);
    // the key of one letter is live again: that letter cannot be retried
    await docket.client.add(Tasks.prototype.fragile, { key: 'busy', delay: 60_000 })('new', 1);
    assert.equal((await docket.client.deadLetters()).length, 4);

    tasks.broken = false;
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 3);
    const left = await docket.client.deadLetters();
    assert.deepEqual(
      left.map((l) => l.key),
      ['busy'],
    );
    await docket.client.cancel('busy');
    await docket.worker.runUntilFinished();
    for (const key of ['a', 'b', 'c']) {
      assert.equal((await docket.client.getExecution(key))?.state, 'completed', key);
    }

    assert.equal(await docket.client.purgeDeadLetters(), 1);
    assert.deepEqual(await docket.client.deadLetters(), []);
    assert.equal(await docket.client.purgeDeadLetters(), 0);
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 0);
  });

  it('a letter of a task this worker did not know runs once a worker that knows it retries it', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const old = await useDocket(t, [Tasks], { ...FAST, name: producer.name });
    await producer.client.add('late.task', { key: 'late' })('hello');
    await old.worker.runUntilFinished();
    const [letter] = await producer.client.deadLetters();
    assert.equal(letter.key, 'late');
    assert.match(letter.error, /^UnknownTaskError/);
    await old.close();

    const upgraded = await useDocket(t, [LateTasks], { ...FAST, name: producer.name });
    assert.equal(await upgraded.client.retryDeadLetter('late'), 1);
    await upgraded.worker.runUntilFinished();
    assert.deepEqual(upgraded.module.get(LateTasks).ran, ['hello']);
    const execution = await upgraded.client.getExecution('late');
    assert.equal(await execution?.result({ timeout: 2_000 }), 'late hello');
    assert.deepEqual(await upgraded.client.deadLetters(), []);
  });

  it('retryDeadLetter keeps a letter whose key is live again (nothing was scheduled)', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await kill(docket, ['busy'], ['dead args', 0]);
    // The key is in use again, with other arguments, before anyone retries the letter.
    await docket.client.add(Tasks.prototype.fragile, { key: 'busy', delay: 60_000 })('new', 1);
    assert.equal(await docket.client.retryDeadLetter('busy'), 0);
    const letters = await docket.client.deadLetters();
    assert.deepEqual(
      letters.map((l) => l.args),
      [['dead args', 0]],
      'the dead letter was dropped',
    );
  });

  it('retryDeadLetter({ all: true }) of two letters of one key schedules one and keeps the other', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await kill(docket, ['twice'], ['first', 0]);
    await kill(docket, ['other'], ['x', 0]);
    // A second letter of the key, with other arguments: the key was added again and failed again.
    await kill(docket, ['twice'], ['second', 0]);
    assert.deepEqual(
      (await docket.client.deadLetters()).map((l) => [l.key, l.args]),
      [
        ['twice', ['first', 0]],
        ['other', ['x', 0]],
        ['twice', ['second', 0]],
      ],
    );
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 2);
    const left = await docket.client.deadLetters();
    assert.deepEqual(
      left.map((l) => [l.key, l.args]),
      [['twice', ['second', 0]]],
      'the letter of the live key was dropped',
    );
  });
});
