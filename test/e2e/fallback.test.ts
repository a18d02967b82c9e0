import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketConfigurationError,
  DocketTask,
  TimeoutError,
  type TaskContext,
} from '../../lib/index.js';
import { createDocket, useDocket } from '../utils.js';

// SPEC §11: with the worker option `fallbackTask`, a message naming a task this worker does not
// know runs that task, with `ctx.taskName` set to the unknown name and the original arguments,
// instead of being dead-lettered.

interface Seen {
  taskName: string;
  executionTask: string;
  key: string;
  attempt: number;
  args: unknown[];
}

@Injectable()
class Tasks {
  readonly seen: Seen[] = [];
  readonly notes: string[] = [];
  readonly aborts: unknown[] = [];

  @DocketTask()
  async note(label: string): Promise<string> {
    this.notes.push(label);
    return label;
  }

  /** Takes any arguments: the context comes first, the rest after it. */
  @DocketTask({ retry: { attempts: 2 }, timeout: 300 })
  async fallback(@Ctx() ctx: TaskContext, ...args: unknown[]): Promise<string> {
    const { taskName, key, attempt } = ctx;
    this.seen.push({ taskName, executionTask: ctx.execution.taskName, key, attempt, args });
    // a key named "slow" times out on its first attempt: the fallback's own options apply
    if (key === 'slow' && attempt === 1) {
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      this.aborts.push(ctx.signal.reason);
    }
    return `${taskName} handled`;
  }

  /** Declares one argument: more may come, and they are not an error. */
  @DocketTask()
  async narrow(first: unknown, @Ctx() ctx: TaskContext): Promise<unknown[]> {
    return [ctx.taskName, first, ctx.execution.args];
  }
}

const FAST = { minimumCheckInterval: 50 };

describe('fallback task', { timeout: 30_000 }, () => {
  it('runs a task this worker does not know with its name and arguments', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], {
      name: producer.name,
      worker: { ...FAST, fallbackTask: 'fallback' },
    });
    const when = new Date('2030-01-02T03:04:05Z');
    const unknown = await producer.client.add('emails.later', { key: 'u1' })(
      1,
      'two',
      { three: 3 },
      when,
    );
    const known = await producer.client.add('note', { key: 'k1' })('mine');
    await worker.worker.runUntilFinished();
    assert.equal(await unknown.result({ timeout: 2_000 }), 'emails.later handled');
    assert.equal(await known.result({ timeout: 2_000 }), 'mine');
    const tasks = worker.module.get(Tasks);
    assert.deepEqual(tasks.seen, [
      {
        taskName: 'emails.later',
        executionTask: 'emails.later',
        key: 'u1',
        attempt: 1,
        args: [1, 'two', { three: 3 }, when],
      },
    ]);
    assert.deepEqual(tasks.notes, ['mine']);
    // the record keeps the name the producer gave
    const record = await producer.client.getExecution('u1');
    assert.equal(record?.taskName, 'emails.later');
    assert.equal(record?.state, 'completed');
    assert.deepEqual(await worker.client.deadLetters(), []);
  });

  it("applies the fallback task's own retry and timeout", async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], {
      name: producer.name,
      worker: { ...FAST, fallbackTask: 'fallback' },
    });
    const execution = await producer.client.add('reports.slow', { key: 'slow' })('x');
    await worker.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 'reports.slow handled');
    const { seen, aborts } = worker.module.get(Tasks);
    assert.equal(aborts.length, 1);
    assert.ok(aborts[0] instanceof TimeoutError);
    assert.deepEqual(
      seen.map((s) => [s.taskName, s.attempt, s.args]),
      [
        ['reports.slow', 1, ['x']],
        ['reports.slow', 2, ['x']],
      ],
    );
  });

  it('gives a fallback handler more arguments than it declares without an error', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], {
      name: producer.name,
      worker: { ...FAST, fallbackTask: 'narrow' },
    });
    const execution = await producer.client.add('wide')('a', 'b', 'c');
    await worker.worker.runUntilFinished();
    assert.deepEqual(await execution.result({ timeout: 2_000 }), ['wide', 'a', ['a', 'b', 'c']]);
  });

  it('leaves a task struck by its unknown name struck', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], {
      name: producer.name,
      worker: { ...FAST, fallbackTask: 'fallback' },
    });
    await producer.client.add('emails.later', { key: 's1' })(1);
    await worker.client.strike({ task: 'emails.later' });
    await worker.worker.runUntilFinished();
    assert.equal((await producer.client.getExecution('s1'))?.state, 'cancelled');
    assert.deepEqual(worker.module.get(Tasks).seen, []);
  });

  it('is not used without the option: the message is dead-lettered as before', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], { name: producer.name, worker: FAST });
    const execution = await producer.client.add('emails.later', { key: 'd1' })(1, 'two');
    await worker.worker.runUntilFinished();
    await assert.rejects(execution.result({ timeout: 2_000 }), /no task "emails\.later"/);
    const [letter] = await worker.client.deadLetters();
    assert.equal(letter.key, 'd1');
    assert.equal(letter.taskName, 'emails.later');
    assert.deepEqual(letter.args, [1, 'two']);
    assert.match(letter.error, /^UnknownTaskError: /);
    assert.deepEqual(worker.module.get(Tasks).seen, []);
  });

  it('fails the boot when it names no task of the application', async () => {
    await assert.rejects(
      createDocket([Tasks], { worker: { fallbackTask: 'emails.missing' } }),
      (error: Error) =>
        error instanceof DocketConfigurationError &&
        /worker\.fallbackTask "emails\.missing" is not a task of this application/.test(
          error.message,
        ) &&
        /fallback, .*narrow, note/.test(error.message),
    );
    await assert.rejects(
      createDocket([Tasks], { worker: { fallbackTask: '' } }),
      /option "worker\.fallbackTask" is ""; give the name of a @DocketTask/,
    );
  });
});
