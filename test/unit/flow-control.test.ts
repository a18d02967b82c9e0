import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlowControl, HALF_BATCH, READ_AHEAD_MS } from '../../lib/worker/flow-control.js';
import type { StreamEntry } from '../../lib/store/docket-store.js';

const entries = (n: number, from = 0): StreamEntry[] =>
  Array.from({ length: n }, (_, i) => [`${from + i}-0`, []]);

/** A flow whose handlers have been quick (`ms` on average). */
function withHandlers(concurrency: number, ms: number): FlowControl {
  const flow = new FlowControl(concurrency);
  flow.started();
  flow.ended(ms);
  return flow;
}

describe('FlowControl', () => {
  it('reads no more than the free slots before a handler has ended', () => {
    const flow = new FlowControl(10);
    assert.equal(flow.readsAhead(), false);
    assert.equal(flow.room(), 10);
    flow.hold(entries(4), false);
    assert.equal(flow.room(), 6);
    flow.claimSent(3);
    assert.equal(flow.room(), 3, 'claimed messages hold their slots');
  });

  it('reads one batch ahead while handlers are quick, and stops when they slow down', () => {
    const flow = withHandlers(10, READ_AHEAD_MS - 1);
    assert.equal(flow.readsAhead(), true);
    assert.equal(flow.room(), 20);
    for (let i = 0; i < 20; i++) {
      flow.started();
      flow.ended(1_000);
    }
    assert.equal(flow.readsAhead(), false, 'the average follows slow handlers');
    assert.equal(flow.room(), 10);
  });

  it('reads a batch of messages for a batch task only while a slot is free or a batch runs', () => {
    const flow = new FlowControl(1);
    flow.batchSize = 100;
    assert.equal(flow.room(), 100, 'a free slot: a batch can fill from one read');
    flow.started(); // a plain task takes the one slot
    assert.equal(flow.room(), 0, 'no free slot and no batch running: nothing more is read');
    flow.batchesRunning = 1;
    assert.equal(flow.room(), 100, 'while a batch runs, the next one is read');
    flow.hold(entries(30), false);
    assert.equal(flow.room(), 70);
    flow.lanes = 2;
    assert.ok(flow.room() <= 0, 'with priorities in use, no more than the free slots');
  });

  it('reads two batches ahead while batch handlers are quick', () => {
    const flow = new FlowControl(10);
    flow.batchSize = 100;
    assert.equal(flow.room(), 100, 'before any handler ended: one batch');
    flow.started();
    flow.ended(2);
    assert.equal(flow.room(), 200, 'quick handlers: two batches');
    flow.hold(entries(150), false);
    assert.equal(flow.room(), 50);
    for (let i = 0; i < 20; i++) {
      flow.started();
      flow.ended(1_000);
    }
    assert.ok(flow.room() <= 0, 'slow handlers: one batch, and 150 are held already');
  });

  it('lets the items of a batch being formed in without a slot of their own', () => {
    const flow = new FlowControl(1);
    flow.batchSize = 4;
    flow.hold(entries(5), false);
    assert.deepEqual(flow.nextClaim()?.length, 1);
    flow.batchOpened(); // the first item opened a batch, which takes the slot
    flow.formingRoom = 3;
    assert.equal(flow.nextClaim(), undefined, 'no slot for a message that does not join');
    assert.deepEqual(
      flow.nextClaim(() => 1)?.map(({ entry }) => entry[0]),
      ['1-0'],
      'one that joins goes in',
    );
    assert.deepEqual(
      flow.nextClaim(() => 2)?.map(({ entry }) => entry[0]),
      ['2-0', '3-0'],
      'the ones that join go in together',
    );
    assert.equal(flow.settled(), false, 'a batch being formed is not settled');
    flow.batchClosed();
    flow.claimSent(1);
    assert.equal(
      flow.nextClaim(() => 0),
      undefined,
      'the batch claim holds the slot',
    );
  });

  it('claims the held messages into the free slots, in order', () => {
    const flow = new FlowControl(3);
    flow.hold(entries(5), false);
    flow.started();
    const batch = flow.nextClaim()!;
    assert.deepEqual(
      batch.map((h) => h.entry[0]),
      ['0-0', '1-0'],
    );
    flow.claimSent(batch.length);
    assert.equal(flow.nextClaim(), undefined, 'no slot is free');
    assert.equal(flow.heldCount, 3);
  });

  it('splits claims in halves with quick handlers and enough slots, one in flight at a time', () => {
    const flow = withHandlers(2 * HALF_BATCH, 1);
    flow.hold(entries(40), false);
    const first = flow.nextClaim()!;
    assert.equal(first.length, HALF_BATCH);
    flow.claimSent(first.length);
    assert.equal(flow.nextClaim(), undefined, 'the second half waits for the first answer');
    flow.claimAnswered();
    const second = flow.nextClaim()!;
    assert.equal(second.length, HALF_BATCH, 'it leaves as soon as the first answered');
  });

  it('claims whole batches below the split size', () => {
    const flow = withHandlers(2 * HALF_BATCH - 1, 1);
    flow.hold(entries(40), false);
    assert.equal(flow.nextClaim()!.length, 2 * HALF_BATCH - 1);
  });

  it('is settled once nothing is claimed or held, and forgets everything on reset', () => {
    const flow = new FlowControl(4);
    assert.equal(flow.settled(), true);
    flow.hold(entries(2), true);
    assert.equal(flow.settled(), false);
    assert.deepEqual(flow.heldIds(), ['0-0', '1-0']);
    flow.started();
    flow.claimSent(1);
    flow.reset();
    assert.equal(flow.settled(), true);
    assert.equal(flow.busy, 0);
    assert.equal(flow.room(), 4);
  });
});

describe('FlowControl with a redelivered message', () => {
  it('reads nothing more while one waits, and starts it alone once nothing else runs', () => {
    const flow = new FlowControl(10);
    flow.hold(entries(2), false);
    flow.hold(entries(1, 100), true);
    flow.hold(entries(1, 200), false);
    assert.equal(flow.room(), 0, 'no read while a redelivery waits');
    const first = flow.nextClaim()!;
    assert.deepEqual(
      first.map((h) => h.entry[0]),
      ['0-0', '1-0'],
      'the messages in front of it go as usual',
    );
    flow.claimSent(first.length);
    assert.equal(flow.nextClaim(), undefined, 'it waits while others are claimed');
    flow.claimAnswered();
    flow.claimSettled(2);
    flow.started();
    assert.equal(flow.nextClaim(), undefined, 'it waits while others run');
    flow.ended(5);
    const alone = flow.nextClaim()!;
    assert.deepEqual(
      alone.map((h) => [h.entry[0], h.redelivered]),
      [['100-0', true]],
    );
    flow.claimSent(1);
    flow.claimAnswered();
    flow.claimSettled(1);
    flow.started();
    assert.equal(flow.room(), 0, 'nothing is read while it runs');
    assert.equal(flow.nextClaim(), undefined, 'nothing else starts beside it');
    flow.ended(5);
    assert.deepEqual(
      flow.nextClaim()!.map((h) => h.entry[0]),
      ['200-0'],
      'after it, work goes on as usual',
    );
  });
});
