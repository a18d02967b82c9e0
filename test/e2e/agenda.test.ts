import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  UnknownTaskError,
  type Agenda,
  type Execution,
  type TaskContext,
} from '../../lib/index.js';
import { places, useDocket } from '../utils.js';

// SPEC §11: an agenda spreads its tasks evenly over a window, each moved by up to ± jitter but
// never out of it; all or none; stable keys make a second scatter `already_scheduled`. (The
// refusal by Redis of one unreadable record is in test/contract/agenda.test.ts.)

@Injectable()
class Tasks {
  @DocketTask()
  async note(label: string): Promise<string> {
    return label;
  }

  @DocketTask()
  async pair(count: number, label: string, @Ctx() ctx: TaskContext): Promise<string> {
    return `${label}×${count}@${ctx.key}`;
  }
}

/** An agenda of `n` notes keyed `k0`… with labels `t0`…. */
function notes(agenda: Agenda, n: number): Agenda {
  for (let i = 0; i < n; i++) agenda.add(Tasks.prototype.note, { key: `k${i}` })(`t${i}`);
  return agenda;
}

/** Whether every execution's `when` lies in [start, start + over). */
function inWindow(executions: Execution[], start: number, over: number): boolean {
  return executions.every((e) => e.when.getTime() >= start && e.when.getTime() < start + over);
}

describe('agenda', { timeout: 60_000 }, () => {
  it('spreads 1 000 tasks evenly over the window, in the order they were added', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const agenda = notes(docket.client.agenda(), 1_000);
    assert.equal(agenda.size, 1_000);
    const start = Date.now() + 60_000;
    const over = 100_000;
    const executions = await agenda.scatter({ over, start: new Date(start) });
    assert.equal(executions.length, 1_000);
    executions.forEach((e, i) => {
      assert.equal(e.key, `k${i}`);
      assert.equal(e.taskName, 'note');
      assert.deepEqual(e.args, [`t${i}`]);
      assert.equal(e.disposition, 'scheduled');
      assert.equal(e.state, 'scheduled');
      assert.equal(e.when.getTime(), start + i * 100);
    });
    assert.ok(inWindow(executions, start, over));
    const gaps = executions.slice(1).map((e, i) => e.when.getTime() - executions[i].when.getTime());
    assert.deepEqual(new Set(gaps), new Set([over / 1_000]));
    // Redis holds what the executions say
    assert.deepEqual(await places(docket), { queue: 0, schedule: 1_000, running: 0 });
    const last = await docket.client.getExecution('k999');
    assert.equal(last?.when.getTime(), start + 999 * 100);
    assert.equal(last?.state, 'scheduled');
  });

  it('schedules none of 1 000 tasks when a strike blocks one of them, and says which', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const agenda = notes(docket.client.agenda(), 1_000);
    await docket.client.strike({ task: 'note', parameter: 'label', value: 't500' });
    await assert.rejects(
      agenda.scatter({ over: 60_000 }),
      /a strike blocks task "note" \(key k500, task 501 of 1000\); nothing was scheduled/,
    );
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
    for (const key of ['k0', 'k499', 'k501', 'k999']) {
      assert.equal(await docket.client.getExecution(key), null);
    }
    await docket.client.restore({ task: 'note', parameter: 'label', value: 't500' });
    const executions = await agenda.scatter({ over: 60_000, start: new Date(Date.now() + 60_000) });
    assert.ok(executions.every((e) => e.disposition === 'scheduled'));
    assert.deepEqual(await places(docket), { queue: 0, schedule: 1_000, running: 0 });
  });

  it('keeps jittered tasks inside the window', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const start = Date.now() + 60_000;
    // a jitter larger than the window: every task is clamped into it
    const wide = await notes(docket.client.agenda(), 200).scatter({
      over: 1_000,
      start: new Date(start),
      jitter: 5_000,
    });
    assert.ok(inWindow(wide, start, 1_000));
    assert.ok(new Set(wide.map((e) => e.when.getTime())).size > 1);
    // a small jitter: each task stays within ± jitter of its even place
    const agenda = docket.client.agenda();
    for (let i = 0; i < 100; i++) agenda.add('note', { key: `j${i}` })(`j${i}`);
    const narrow = await agenda.scatter({ over: 10_000, start: new Date(start), jitter: 10 });
    assert.ok(inWindow(narrow, start, 10_000));
    narrow.forEach((e, i) => assert.ok(Math.abs(e.when.getTime() - (start + i * 100)) <= 10));
  });

  it('answers already_scheduled for the keys of a second scatter while they are live', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const start = new Date(Date.now() + 60_000);
    const agenda = docket.client.agenda();
    agenda.add(Tasks.prototype.note, { key: 'a' })('first a');
    agenda.add(Tasks.prototype.note, { key: 'b' })('first b');
    agenda.add(Tasks.prototype.note)('default key');
    const first = await agenda.scatter({ over: 30_000, start });
    assert.deepEqual(
      first.map((e) => e.disposition),
      ['scheduled', 'scheduled', 'scheduled'],
    );
    // the same agenda again: its keys, the default one included, were fixed when added
    const again = await agenda.scatter({ over: 90_000 });
    assert.deepEqual(
      again.map((e) => [e.key, e.disposition, e.when.getTime()]),
      first.map((e) => [e.key, 'already_scheduled', e.when.getTime()]),
    );
    // another agenda with a live key and a new one: the live execution is left as it was
    const other = docket.client.agenda();
    other.add('note', { key: 'b' })('second b');
    other.add('note', { key: 'c' })('c');
    const [b, c] = await other.scatter({ over: 1_000, start });
    assert.equal(b.disposition, 'already_scheduled');
    assert.deepEqual(b.args, ['first b']);
    assert.equal(c.disposition, 'scheduled');
    assert.deepEqual(await places(docket), { queue: 0, schedule: 4, running: 0 });
  });

  it('runs tasks scattered from now with their typed arguments', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const agenda = docket.client.agenda();
    agenda.add(Tasks.prototype.pair, { key: 'p1' })(2, 'x');
    agenda.add(Tasks.prototype.pair, { key: 'p2', priority: 0 })(3, 'y');
    agenda.add(Tasks.prototype.note)('z');
    const executions = await agenda.scatter({ over: 300 });
    assert.equal(executions[0].state, 'queued');
    await docket.worker.runUntilFinished();
    const results = await Promise.all(executions.map((e) => e.result({ timeout: 5_000 })));
    assert.deepEqual(results, ['x×2@p1', 'y×3@p2', 'z']);
  });

  it('holds at most 2 000 tasks, one atomic call', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const agenda = notes(docket.client.agenda(), 2_000);
    assert.throws(() => agenda.add('note')('one more'), /at most 2000 tasks/);
    assert.equal(agenda.size, 2_000);
    const big = 'x'.repeat(1_000_000);
    const heavy = docket.client.agenda();
    for (let i = 0; i < 33; i++) heavy.add('note')(big);
    assert.throws(() => heavy.add('note')(big), /at most 33554432 bytes/);
  });

  it('resolves [] for an empty agenda', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    assert.deepEqual(await docket.client.agenda().scatter({ over: 1_000 }), []);
  });

  it('refuses bad input at the call', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    const agenda = notes(docket.client.agenda(), 2);
    const bad: [unknown, RegExp][] = [
      [{ over: 0 }, /"over" must be a finite number of ms > 0, not 0/],
      [{ over: -5 }, /"over" must be/],
      [{ over: Infinity }, /"over" must be/],
      [{ over: '10' }, /"over" must be/],
      [{}, /"over" must be/],
      [{ over: 1_000, jitter: -1 }, /"jitter" must be a finite number of ms ≥ 0, not -1/],
      [{ over: 1_000, jitter: NaN }, /"jitter" must be/],
      [{ over: 1_000, start: new Date(NaN) }, /"start" must be a valid Date/],
      [{ over: 1_000, start: Date.now() }, /"start" must be a valid Date/],
      [{ over: 1e16, start: new Date() }, /past the last time a Date can hold/],
      [undefined, /the options are an object/],
    ];
    for (const [options, message] of bad) {
      assert.throws(
        () => agenda.scatter(options as { over: number }),
        (error: Error) => error instanceof TypeError && message.test(error.message),
        String(JSON.stringify(options)),
      );
    }
    assert.throws(() => agenda.add('missing'), UnknownTaskError);
    assert.throws(() => agenda.add('note', { key: '' }), /agenda.add: a task key is a non-empty/);
    assert.throws(() => agenda.add('note', { priority: 10 }), /"priority"/);
    assert.throws(
      () => agenda.add('note', { delay: 5 } as { key?: string }),
      /"when" and "delay" are not options here/,
    );
    assert.throws(() => agenda.add('note', { key: 'k1' })('again'), /already holds key k1/);
    assert.throws(() => agenda.add('note')(() => undefined), TypeError);
    assert.equal(agenda.size, 2);
    assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
  });
});

// Compiled, never run: a method reference types the arguments, as with `add`.
export function typedArguments(agenda: Agenda): void {
  agenda.add(Tasks.prototype.pair)(1, 'label');
  // @ts-expect-error the first argument is a number
  agenda.add(Tasks.prototype.pair)('1', 'label');
  // @ts-expect-error the context is not an argument
  agenda.add(Tasks.prototype.pair)(1, 'label', {} as TaskContext);
  agenda.add('pair')('anything', 'goes', 3);
  agenda.add(Tasks.prototype.note)('a').add(Tasks.prototype.note)('b');
}
