// Stale copies of a key's message on the stream, as a producer that lost a race leaves them
// (written here with XADD): a copy of an older generation, or of a key that already ended, is
// acknowledged and deleted without running, and clear() counts the key once and removes the
// copy too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { assertNoKeyWithoutTtl, pendingCount, runsHash, streamLength, writeEntry } from './raw.js';

@Injectable()
class Tasks {
  runs: string[] = [];

  @DocketTask()
  async record(value: string): Promise<string> {
    this.runs.push(value);
    return value;
  }
}

/** A message of `record(value)` for `key` with `generation`, written straight to the stream. */
function staleCopy(name: string, key: string, value: string, generation: string) {
  return writeEntry(name, [
    ...['key', key, 'task', 'record', 'args', JSON.stringify([value]), 'when', String(Date.now())],
    ...['attempt', '1', 'generation', generation],
  ]);
}

describe('stale messages', { timeout: 60_000 }, () => {
  it('a message with an old generation is acknowledged and skipped', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    const { name } = docket;
    const tasks = docket.module.get(Tasks);
    await docket.client.add(Tasks.prototype.record, { key: 'k' })('first');
    const current = await docket.client.replace(Tasks.prototype.record, { key: 'k' })('second');
    assert.equal(current.generation, 2);
    await staleCopy(name, 'k', 'stale', '1');
    assert.equal(await streamLength(name), 2);
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.runs, ['second']);
    assert.equal(await current.result({ timeout: 2_000 }), 'second');
    assert.equal(await pendingCount(name), 0);
    assert.equal(await streamLength(name), 0);
    const hash = await runsHash(name, 'k');
    assert.equal(hash.state, 'completed');
    assert.equal(hash.generation, '2');
    await assertNoKeyWithoutTtl(name);
  });

  it('a stale message read after its key completed does not run it again', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    const { name } = docket;
    const tasks = docket.module.get(Tasks);
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'once' })('only');
    await docket.worker.runUntilFinished();
    await staleCopy(name, 'once', 'again', String(execution.generation));
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.runs, ['only']);
    assert.equal(await pendingCount(name), 0);
    assert.equal((await runsHash(name, 'once')).state, 'completed');
    await assertNoKeyWithoutTtl(name);
  });

  it('clear() counts each task once and removes a stale copy of its message', async (t) => {
    const docket = await useDocket(t, [Tasks]);
    await docket.client.add(Tasks.prototype.record, { key: 'k' })('old');
    await docket.client.replace(Tasks.prototype.record, { key: 'k' })('new');
    await staleCopy(docket.name, 'k', 'stale', '1');
    assert.equal(await docket.client.clear(), 1);
    assert.equal(await streamLength(docket.name), 0);
  });
});
