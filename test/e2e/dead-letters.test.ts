import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { assertNoKeyWithoutTtl, pendingCount, rawRedis, runsHash, useDocket } from '../utils.js';

@Injectable()
class Tasks {
  calls: string[] = [];

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }

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

function message(fields: Record<string, string>): string[] {
  return Object.entries(fields).flat();
}

describe('dead letters', { timeout: 60_000 }, () => {
  it('take malformed messages and unknown tasks; the worker goes on with good ones', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const stream = `{${docket.name}}:stream`;
    const now = String(Date.now());
    const good = { task: 'record', args: '["ok"]', when: now, attempt: '1', generation: '1' };
    const bad: [string, Record<string, string>, RegExp][] = [
      ['missing', { key: 'missing', task: 'record' }, /field "args" is missing/],
      ['json', { ...good, key: 'json', args: '{not json' }, /args cannot be decoded/],
      ['array', { ...good, key: 'array', args: '{"a":1}' }, /args cannot be decoded/],
      ['tag', { ...good, key: 'tag', args: '[{"$t":"Function","v":"x"}]' }, /cannot be decoded/],
      ['when', { ...good, key: 'when', when: 'soon' }, /"when" is not epoch ms/],
      ['attempt', { ...good, key: 'attempt', attempt: 'zero' }, /"attempt"/],
      ['generation', { ...good, key: 'generation', generation: 'g1' }, /"generation"/],
      ['unknown', { ...good, key: 'unknown', task: 'no.such.task' }, /no task "no\.such\.task"/],
    ];
    const redis = rawRedis();
    try {
      const first = await docket.client.add(Tasks.prototype.record)('before');
      for (const [, fields] of bad) await redis.xadd(stream, '*', ...message(fields));
      const last = await docket.client.add(Tasks.prototype.record)('after');
      await docket.worker.runUntilFinished();
      assert.deepEqual(tasks.calls, ['before', 'after']);
      assert.equal(await first.result({ timeout: 2_000 }), 'before');
      assert.equal(await last.result({ timeout: 2_000 }), 'after');

      const letters = await docket.client.deadLetters();
      assert.equal(letters.length, bad.length);
      for (const [key, fields, reason] of bad) {
        const letter = letters.find((l) => l.key === key);
        assert.ok(letter, `no dead letter for ${key}`);
        assert.match(letter.error, reason, key);
        assert.equal(letter.taskName, fields.task, key);
        assert.ok(letter.deadAt instanceof Date && !Number.isNaN(letter.deadAt.getTime()));
      }
      assert.equal(letters.find((l) => l.key === 'json')?.args, '{not json');
      assert.deepEqual(letters.find((l) => l.key === 'unknown')?.args, ['ok']);
      assert.equal(await redis.xlen(stream), 0);
      assert.equal(await pendingCount(docket.name), 0);
    } finally {
      redis.disconnect();
    }
    await assertNoKeyWithoutTtl(docket.name);
  });

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
    const hash = await runsHash(docket.name, 'd');
    assert.equal(hash.state, 'failed');
    assert.equal(hash.attempt, '2');
    await assertNoKeyWithoutTtl(docket.name);
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
    await assertNoKeyWithoutTtl(producer.name);
  });

  it('take a message whose arguments do not fit the handler', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
    const missing = await docket.client.add('pair', { key: 'missing' })('only-left');
    const extra = await docket.client.add('pair', { key: 'extra' })('a', 'b', 'c');
    const fine = await docket.client.add('pair', { key: 'fine' })('a', 'b');
    await docket.worker.runUntilFinished();
    assert.equal(await fine.result({ timeout: 2_000 }), 'a+b');
    assert.deepEqual(tasks.calls, ['a+b']);
    await assert.rejects(missing.result({ timeout: 2_000 }));
    await assert.rejects(extra.result({ timeout: 2_000 }));
    const letters = await docket.client.deadLetters();
    assert.deepEqual(letters.map((l) => l.key).sort(), ['extra', 'missing']);
    for (const letter of letters) assert.match(letter.error, /argument/);
    await assertNoKeyWithoutTtl(docket.name);
  });
});
