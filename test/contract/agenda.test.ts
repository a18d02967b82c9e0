// An agenda's scatter is one script call that writes all or nothing (schedule-all-2.lua): a
// record it cannot read refuses the whole call before anything is written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask, type Agenda } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { docketKeys, keyOf, withRaw } from './raw.js';

@Injectable()
class Tasks {
  @DocketTask()
  async note(label: string): Promise<string> {
    return label;
  }
}

function notes(agenda: Agenda, n: number): Agenda {
  for (let i = 0; i < n; i++) agenda.add(Tasks.prototype.note, { key: `k${i}` })(`t${i}`);
  return agenda;
}

describe('agenda scatter', { timeout: 30_000 }, () => {
  it('writes none of 1 000 tasks when the record of one cannot be read', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    await withRaw((redis) => redis.set(keyOf(docket.name, 'runs:k500'), 'wrong type'));
    await assert.rejects(
      notes(docket.client.agenda(), 1_000).scatter({ over: 60_000 }),
      /nothing was scheduled: key k500 \(task 501 of 1000\) cannot be scheduled: UnreadableRecordError: WRONGTYPE/,
    );
    assert.deepEqual(await docketKeys(docket.name), ['runs:k500']);
  });

  it('writes none when a future task of the last key has an unreadable message', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    await withRaw((redis) => redis.rpush(keyOf(docket.name, 'parked:k9'), 'a list'));
    await assert.rejects(
      notes(docket.client.agenda(), 10).scatter({
        over: 60_000,
        start: new Date(Date.now() + 1e6),
      }),
      /key k9 \(task 10 of 10\) cannot be scheduled: UnreadableRecordError: WRONGTYPE .*parked:k9 is a list/,
    );
    assert.deepEqual(await docketKeys(docket.name), ['parked:k9']);
  });

  it('writes none when the queue cannot be read', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: false });
    await withRaw((redis) => redis.set(keyOf(docket.name, 'queue'), 'not a sorted set'));
    await assert.rejects(
      notes(docket.client.agenda(), 3).scatter({ over: 1_000 }),
      /nothing was scheduled: UnreadableRecordError: WRONGTYPE .*queue is a string/,
    );
    assert.deepEqual(await docketKeys(docket.name), ['queue']);
  });
});
