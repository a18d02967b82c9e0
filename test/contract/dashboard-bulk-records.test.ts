// One record that cannot be read fails only its own key in a bulk cancel of the dashboard:
// the other keys of the request are cancelled, and the answer counts it as skipped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callApi, startDashboardApp } from '../e2e/dashboard/fixture.js';
import { keyOf, withRaw } from './raw.js';

describe('dashboard bulk cancel', () => {
  it('skips a key whose record cannot be read and cancels the others', async (t) => {
    const docket = await startDashboardApp();
    t.after(() => docket.close());
    for (const key of ['good-1', 'broken', 'good-2']) {
      await docket.client.add('quick', { key, delay: 600_000 })(1);
    }
    await withRaw(async (redis) => {
      await redis.del(keyOf(docket.name, 'runs:broken'));
      await redis.set(keyOf(docket.name, 'runs:broken'), 'not a hash');
    });
    const answer = await callApi(docket, 'POST', 'bulk', {
      action: 'cancel',
      keys: ['good-1', 'broken', 'good-2'],
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      [answer.body.touched, answer.body.skipped, answer.body.reasons],
      [2, 1, { unreadable: 1 }],
    );
    for (const key of ['good-1', 'good-2']) {
      assert.equal((await docket.client.getExecution(key))?.state, 'cancelled');
    }
  });
});
