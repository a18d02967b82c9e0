// The dashboard shows what Redis holds even when a stored time is garbage (a foreign dead
// letter): its reads answer 200, never a 500.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDashboardApp } from '../e2e/dashboard/fixture.js';
import { rawRedis } from './raw.js';

describe('dashboard reads', () => {
  it('answer 200 for a foreign dead letter whose time is garbage', async (t) => {
    const docket = await startDashboardApp();
    t.after(() => docket.close());
    const redis = rawRedis();
    try {
      await redis.xadd(
        `{${docket.name}}:dead`,
        '*',
        ...['key', 'odd', 'task', 'quick', 'args', '[1]', 'error', 'Error: x'],
        ...['attempt', 'one', 'deadAt', 'not a time'],
      );
    } finally {
      redis.disconnect();
    }
    const response = await fetch(`${docket.url}/docket/api/dead-letters`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      items: { key: string; deadAt: string | null }[];
    };
    assert.deepEqual(
      body.items.map((d) => [d.key, d.deadAt]),
      [['odd', null]],
    );
  });
});
