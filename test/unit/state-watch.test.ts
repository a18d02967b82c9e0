// StateWatch keeps {name}:states:on while this process waits on executions, and tells the
// waiters to read their state again when the marker was found gone or the subscriber
// reconnected (a unit test of the one class: Redis and the subscriber are stand-ins).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DocketConnection } from '../../lib/store/connection.js';
import { DocketKeys } from '../../lib/store/keys.js';
import { STATES_RENEW_EVERY, StateWatch } from '../../lib/store/state-watch.js';
import type { Subscriptions } from '../../lib/store/subscriptions.js';

function setUp(marker: { exists: boolean }) {
  const calls: string[] = [];
  const connection = {
    commands: {
      call: async (name: string, key: string) => {
        calls.push(`${name} ${key}`);
        if (name === 'set') marker.exists = true;
        return name === 'pexpire' ? (marker.exists ? 1 : 0) : 'OK';
      },
    },
    error: (error: unknown) => error,
  } as unknown as DocketConnection;
  const reconnect = new Set<() => void>();
  let missed = 0;
  const subscriptions = {
    onReconnect: (listener: () => void) => {
      reconnect.add(listener);
      return () => reconnect.delete(listener);
    },
    missed: () => {
      missed++;
      for (const listener of reconnect) listener();
    },
  } as unknown as Subscriptions;
  const watch = new StateWatch(connection, new DocketKeys('w'), subscriptions, (m) => {
    throw new Error(m);
  });
  return {
    watch,
    calls,
    missed: () => missed,
    reconnected: () => {
      for (const listener of reconnect) listener();
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('StateWatch', () => {
  it('sets the marker before a waiter reads, renews it, and resyncs when it lapsed', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval'] });
    const marker = { exists: false };
    const { watch, calls, missed } = setUp(marker);
    const unwatch = await watch.watch();
    assert.deepEqual(calls, ['set {w}:states:on']);

    t.mock.timers.tick(STATES_RENEW_EVERY);
    await flush();
    assert.deepEqual(calls.slice(1), ['pexpire {w}:states:on']);
    assert.equal(missed(), 0, 'a renewed marker is no news');

    marker.exists = false; // it lapsed, or Redis lost it
    t.mock.timers.tick(STATES_RENEW_EVERY);
    await flush();
    assert.deepEqual(calls.slice(2), ['pexpire {w}:states:on', 'set {w}:states:on']);
    assert.equal(missed(), 1, 'the waiters read their state again');

    unwatch();
    t.mock.timers.tick(STATES_RENEW_EVERY * 3);
    await flush();
    assert.equal(calls.length, 4, 'nobody waits: no renewal');
  });

  it('costs a waiter no command while this process set the marker lately', async (t) => {
    t.mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
    const { watch, calls } = setUp({ exists: false });
    // two waiters at once share one set
    const [first, second] = await Promise.all([watch.watch(), watch.watch()]);
    assert.deepEqual(calls, ['set {w}:states:on']);
    first();
    second();
    // a waiter soon after needs none
    t.mock.timers.tick(STATES_RENEW_EVERY - 1);
    (await watch.watch())();
    assert.equal(calls.length, 1);
    // once it may have lapsed, the next waiter sets it again before it reads
    t.mock.timers.tick(1);
    (await watch.watch())();
    assert.deepEqual(calls, ['set {w}:states:on', 'set {w}:states:on']);
  });

  it('sets the marker again after the subscriber reconnected, then resyncs once', async () => {
    const { watch, calls, missed, reconnected } = setUp({ exists: true });
    const unwatch = await watch.watch();
    reconnected();
    await flush();
    assert.deepEqual(calls, ['set {w}:states:on', 'set {w}:states:on']);
    assert.equal(missed(), 1);
    unwatch();
    reconnected();
    await flush();
    assert.equal(calls.length, 2, 'nobody waits: nothing to set');
    // the server may have come back empty: the next waiter sets it even though it was set lately
    (await watch.watch())();
    assert.deepEqual(calls.slice(2), ['set {w}:states:on']);
  });
});
