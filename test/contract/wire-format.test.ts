// The wire format of the stream (see the README): the entries the engine writes, and what it
// does with the entries a producer that writes only the stream adds with XADD: a generation-0
// entry runs and gets its execution record; a malformed one (missing field, arguments that
// cannot be decoded, bad `when`/`attempt`/`generation`, unknown task, no key) becomes a dead
// letter that keeps what it carried, and the worker goes on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { useDocket, waitFor, type TestDocket } from '../utils.js';
import {
  assertNoKeyWithoutTtl,
  pendingCount,
  runsHash,
  streamEntries,
  streamLength,
  writeEntry,
} from './raw.js';

@Injectable()
class Tasks {
  calls: string[] = [];
  seen: unknown[][] = [];
  broken = true;

  @DocketTask()
  async record(value: string): Promise<string> {
    this.calls.push(value);
    return value;
  }

  @DocketTask()
  async ingest(id: number, tags: string[]): Promise<number> {
    this.seen.push([id, tags]);
    return id * 2;
  }

  /** Fails while `broken`; echoes its arguments. */
  @DocketTask({ retry: { attempts: 2 } })
  async fragile(value: unknown, extra: unknown, @Ctx() ctx: TaskContext): Promise<unknown[]> {
    if (this.broken) throw new TypeError(`broken on ${ctx.key}`);
    return [value, extra];
  }
}

const FAST = { worker: { minimumCheckInterval: 100 } };

/** Fail `keys` of `fragile` through their last attempt. */
async function kill(docket: TestDocket, keys: string[]): Promise<void> {
  for (const key of keys) await docket.client.add('fragile', { key })('v', 1);
  await docket.worker.runUntilFinished();
}

describe('wire format: what the engine writes', { timeout: 60_000 }, () => {
  it('an add writes one entry with key, task, args, when, attempt and generation; a replace of a queued task leaves only its own', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const added = await docket.client.add(Tasks.prototype.record, { key: 'q' })('old');
    const [[, first]] = await streamEntries(docket.name);
    assert.deepEqual(first, {
      key: 'q',
      task: 'record',
      args: '["old"]',
      when: String(added.when.getTime()),
      attempt: '1',
      generation: '1',
    });
    const replaced = await docket.client.replace(Tasks.prototype.record, { key: 'q' })('new');
    const entries = await streamEntries(docket.name);
    assert.equal(entries.length, 1);
    assert.equal(entries[0][1].args, '["new"]');
    assert.equal(entries[0][1].generation, String(replaced.generation));
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).calls, ['new']);
    await assertNoKeyWithoutTtl(docket.name);
  });
});

describe('wire format: a producer that writes only the stream', { timeout: 60_000 }, () => {
  it('runs a generation-0 entry and records its execution', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    await writeEntry(docket.name, [
      ...['key', 'foreign-1', 'task', 'ingest', 'args', '[21,["a"]]'],
      ...['when', String(Date.now()), 'attempt', '1', 'generation', '0'],
    ]);
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).seen, [[21, ['a']]]);
    const execution = await docket.client.getExecution('foreign-1');
    assert.equal(execution?.state, 'completed');
    assert.equal(await execution?.result({ timeout: 1_000 }), 42);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('a generation-0 entry for a new key runs once and gets a runs hash', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const { name } = docket;
    await writeEntry(name, [
      ...['key', 'foreign', 'task', 'record', 'args', '["from afar"]'],
      ...['when', String(Date.now()), 'attempt', '1', 'generation', '0'],
    ]);
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Tasks).calls, ['from afar']);
    const hash = await runsHash(name, 'foreign');
    assert.equal(hash.state, 'completed');
    assert.equal(hash.task, 'record');
    const execution = await docket.client.getExecution('foreign');
    assert.equal(execution?.state, 'completed');
    assert.equal(execution?.taskName, 'record');
    assert.equal(await execution?.result({ timeout: 1_000 }), 'from afar');
    assert.equal(await pendingCount(name), 0);
    await assertNoKeyWithoutTtl(name);
  });

  it('a generation-0 entry due later waits in the queue with its trace context', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const { name } = docket;
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await writeEntry(name, [
      ...['key', 'later', 'task', 'record', 'args', '["later"]'],
      ...['when', String(Date.now() + 3_600_000), 'attempt', '1', 'generation', '0'],
      ...['traceparent', traceparent, 'tracestate', 'vendor=1'],
    ]);
    void docket.worker.runForever();
    t.after(() => docket.close());
    const hash = await waitFor(async () => {
      const runs = await runsHash(name, 'later');
      return runs.state === 'scheduled' && runs;
    }, 'the entry to wait in the queue');
    assert.equal(hash.traceparent, traceparent);
    assert.equal(hash.tracestate, 'vendor=1');
    assert.equal(await streamLength(name), 0);
    assert.deepEqual(docket.module.get(Tasks).calls, []);
  });

  it('malformed messages and unknown tasks become dead letters; the worker goes on with good ones', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const tasks = docket.module.get(Tasks);
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
    const first = await docket.client.add(Tasks.prototype.record)('before');
    for (const [, fields] of bad) await writeEntry(docket.name, fields);
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
    assert.equal(await streamLength(docket.name), 0);
    assert.equal(await pendingCount(docket.name), 0);
    await assertNoKeyWithoutTtl(docket.name);
  });

  it('lists an undecodable message with its raw args, the attempt it carried and the reason', async (t) => {
    const docket = await useDocket(t, [Tasks], FAST);
    const raw = `[{"unterminated": "${'x'.repeat(10_000)}`;
    await writeEntry(docket.name, [
      ...['key', 'raw', 'task', 'fragile', 'args', raw, 'when', String(Date.now())],
      ...['attempt', '3', 'generation', '0'],
    ]);
    const before = Date.now();
    await docket.worker.runUntilFinished();
    const [letter] = await docket.client.deadLetters();
    assert.equal(letter.key, 'raw');
    assert.equal(letter.taskName, 'fragile');
    assert.equal(letter.args, raw);
    assert.equal(letter.attempt, 3);
    assert.match(letter.error, /args cannot be decoded/);
    assert.ok(letter.deadAt.getTime() >= before - 1_000);
    assert.equal(await pendingCount(docket.name), 0);
  });

  it('retryDeadLetter({ all: true }) counts what it scheduled; undecodable letters stay', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const tasks = docket.module.get(Tasks);
    await kill(docket, ['a', 'b', 'c']);
    const base = ['task', 'fragile', 'when', String(Date.now()), 'attempt', '1', 'generation', '0'];
    await writeEntry(docket.name, ['key', 'bad-json', 'args', '[1,', ...base]);
    await writeEntry(docket.name, ['args', '["no key"]', ...base]);
    await docket.worker.runUntilFinished();
    assert.equal((await docket.client.deadLetters()).length, 5);

    tasks.broken = false;
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 3);
    const left = await docket.client.deadLetters();
    assert.deepEqual(left.map((l) => l.key).sort(), ['', 'bad-json']);
    await docket.worker.runUntilFinished();
    for (const key of ['a', 'b', 'c']) {
      assert.equal((await runsHash(docket.name, key)).state, 'completed', key);
    }

    assert.equal(await docket.client.purgeDeadLetters(), 2);
    assert.deepEqual(await docket.client.deadLetters(), []);
    assert.equal(await docket.client.purgeDeadLetters(), 0);
    assert.equal(await docket.client.retryDeadLetter({ all: true }), 0);
  });
});
