// A dashboard without a guard refuses every action unless told otherwise.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDashboardApp, type DashboardApp } from './fixture.js';

async function post(docket: DashboardApp, path: string, body: unknown) {
  const response = await fetch(`${docket.url}/docket/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { message?: string } };
}

describe('dashboard without a guard', () => {
  it('refuses actions (403) and says how to allow them', async (t) => {
    const docket = await startDashboardApp({ dashboard: { guard: undefined } });
    t.after(() => docket.close());
    await docket.client.add('quick', { key: 'k', delay: 600_000 })(1);
    const refused = await post(docket, 'cancel', { key: 'k' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.message ?? '', /no guard for its actions.*allowActionsWithoutGuard/);
    assert.equal((await docket.client.getExecution('k'))?.state, 'scheduled');
    const overview = (await (await fetch(`${docket.url}/docket/api/overview`)).json()) as {
      readOnly: boolean;
    };
    assert.equal(overview.readOnly, true, 'the page offers no actions');
  });

  it('lets anyone act with allowActionsWithoutGuard', async (t) => {
    const docket = await startDashboardApp({
      dashboard: { guard: undefined, allowActionsWithoutGuard: true },
    });
    t.after(() => docket.close());
    await docket.client.add('quick', { key: 'k', delay: 600_000 })(1);
    assert.equal((await post(docket, 'cancel', { key: 'k' })).status, 200);
    assert.equal((await docket.client.getExecution('k'))?.state, 'cancelled');
  });
});
