import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];

  @DocketTask()
  async pair(left: string, right: string): Promise<string> {
    this.calls.push(`${left}+${right}`);
    return `${left}+${right}`;
  }

  @DocketTask({ retry: { attempts: 2 } })
  async doomed(value: string): Promise<never> {
    this.calls.push(value);
    throw new Error(`no way: ${value}`);
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

describe('dead letters', { timeout: 60_000 }, () => {
  it('take an execution that failed its last attempt', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.doomed, { key: 'd' })('x');
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, ['x', 'x']);
    await assert.rejects(execution.result({ timeout: 2_000 }), /no way: x/);
    const letters = await docket.client.deadLetters();
    assert.equal(letters.length, 1);
    assert.equal(letters[0].key, 'd');
    assert.equal(letters[0].taskName, 'doomed');
    assert.deepEqual(letters[0].args, ['x']);
    assert.equal(letters[0].error, 'Error: no way: x');
    assert.equal(letters[0].attempt, 2);
    const stored = await docket.client.getExecution('d');
    assert.equal(stored?.state, 'failed');
    assert.equal(stored?.attempt, 2);
  });

  it('of an unknown task from a producer-only process keep the execution failed', async (t) => {
    const producer = await useDocket(t, [], { worker: false });
    const worker = await useDocket(t, [Tasks], { ...FAST, name: producer.name });
    const execution = await producer.client.add('from.the.future', { key: 'f' })(1, 'two');
    assert.equal(execution.disposition, 'scheduled');
    await worker.worker.runUntilFinished();
    await assert.rejects(execution.result({ timeout: 2_000 }), /no task "from\.the\.future"/);
    const [letter] = await worker.client.deadLetters();
    assert.equal(letter.key, 'f');
    assert.equal(letter.taskName, 'from.the.future');
    assert.deepEqual(letter.args, [1, 'two']);
    assert.match(letter.error, /^UnknownTaskError: /);
  });

  it('take a message with more arguments than the handler declares; fewer is a call', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    // TypeScript's `locale?: string` compiles to a plain parameter: it may be left out
    const missing = await docket.client.add('pair', { key: 'missing' })('only-left');
    const extra = await docket.client.add('pair', { key: 'extra' })('a', 'b', 'c');
    const fine = await docket.client.add('pair', { key: 'fine' })('a', 'b');
    await docket.worker.runUntilFinished();
    assert.equal(await fine.result({ timeout: 2_000 }), 'a+b');
    assert.equal(await missing.result({ timeout: 2_000 }), 'only-left+undefined');
    assert.deepEqual(tasks.calls.sort(), ['a+b', 'only-left+undefined']);
    await assert.rejects(
      extra.result({ timeout: 2_000 }),
      /takes at most 2 argument\(s\), the message has 3/,
    );
    const letters = await docket.client.deadLetters();
    assert.deepEqual(
      letters.map((l) => l.key),
      ['extra'],
    );
  });
});
