import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChangeBatch } from '../../lib/dashboard/live-changes.js';
import type { DocketEvent, DocketEventType } from '../../lib/index.js';

const event = (type: DocketEventType, key: string): DocketEvent => ({
  type,
  key,
  taskName: 'quick',
  attempt: 1,
  at: new Date(),
});

describe('live changes', () => {
  it('tells each event by type, key, task and the state it leaves', () => {
    const batch = new ChangeBatch(50);
    const types: DocketEventType[] = [
      'scheduled',
      'started',
      'retrying',
      'completed',
      'failed',
      'dead',
      'cancelled',
    ];
    for (const type of types) batch.add(event(type, type));
    const message = batch.take()!;
    assert.deepEqual(
      message.events.map((e) => `${e.type} ${e.key} ${e.task} ${e.state}`),
      [
        'scheduled scheduled quick waiting',
        'started started quick running',
        'retrying retrying quick waiting',
        'completed completed quick completed',
        'failed failed quick failed',
        'dead dead quick failed',
        'cancelled cancelled quick cancelled',
      ],
    );
    assert.equal(message.more, 0);
  });

  it('names the views the events change, lists the first events and counts the rest', () => {
    const batch = new ChangeBatch(2);
    assert.equal(batch.take(), null);
    batch.add(event('scheduled', 'a'));
    assert.deepEqual(batch.take()!.views.sort(), [
      'failures',
      'history',
      'overview',
      'scheduled',
      'task',
    ]);
    for (const key of ['b', 'c', 'd']) batch.add(event('started', key));
    const message = batch.take()!;
    assert.deepEqual(message.views.sort(), ['overview', 'running', 'scheduled', 'task', 'workers']);
    assert.deepEqual(
      message.events.map((e) => e.key),
      ['b', 'c'],
    );
    assert.equal(message.more, 1);
    assert.equal(batch.take(), null, 'taken: the batch starts again');
    batch.add(event('dead', 'e'));
    assert.deepEqual(batch.take()!.views.sort(), ['failures', 'overview', 'task']);
  });
});
