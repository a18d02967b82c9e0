import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { DocketInspector } from '../../../lib/index.js';
import { BACKEND, REDIS_URL } from '../../utils.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, callApi, startDashboardApp, type DashboardApp } from './fixture.js';

interface HistoryPage {
  total: number;
  offset: number;
  limit: number;
  items: { key: string; taskName: string; state: string; error: string | null; worker: string }[];
}

describe('dashboard history of finished tasks', () => {
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({ worker: { name: 'worker-1' } });
    // the dashboard keeps it from its bootstrap; taken here too, so that no end comes first
    await docket.app.get(DocketInspector).keepHistory(1_000);
    const { client } = docket;
    // one after the other, so that their ends are in this order
    for (const key of ['hist-1', 'hist-2', 'hist-3']) {
      await (await client.add('quick', { key })(1)).result({ timeout: 10_000 });
    }
    const bad = await client.add('flaky', { key: 'hist-bad' })({ id: 7, amount: 1n });
    await assert.rejects(bad.result({ timeout: 10_000 }), /payment gateway down for order 7/);
    const later = await client.add('quick', { key: 'hist-cancel', delay: 600_000 })(2);
    assert.equal(await client.cancel(later.key), 'cancelled');
  });
  after(() => docket?.close());

  const history = async (query = ''): Promise<HistoryPage> => {
    const { status, body } = await callApi(docket, 'GET', `history?${query}`);
    assert.equal(status, 200, query);
    return body as HistoryPage;
  };

  it('lists the ends newest first, with state, task and search filters and pages', async () => {
    const all = await history();
    assert.equal(all.total, 5);
    assert.deepEqual(
      all.items.map((i) => [i.key, i.state]),
      [
        ['hist-cancel', 'cancelled'],
        ['hist-bad', 'failed'],
        ['hist-3', 'completed'],
        ['hist-2', 'completed'],
        ['hist-1', 'completed'],
      ],
    );
    assert.equal(all.items[1].error, 'Error: payment gateway down for order 7');
    assert.equal(all.items[2].worker, 'worker-1');
    assert.deepEqual(
      (await history('state=failed')).items.map((i) => i.key),
      ['hist-bad'],
    );
    assert.deepEqual(
      (await history('task=flaky')).items.map((i) => i.key),
      ['hist-bad'],
    );
    assert.equal((await history('q=gateway')).total, 1);
    const page = await history('offset=3&limit=2');
    assert.deepEqual([page.total, page.items.map((i) => i.key)], [5, ['hist-2', 'hist-1']]);
    const refused = await callApi(docket, 'GET', 'history?state=running');
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /"state" is one of all, completed, failed, cancelled/);
  });

  it('shows them on the History view, filtered by state', { skip: chromiumMissing() }, async () => {
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${docket.url}/docket#history`);
      await page.waitForSelector('#history tbody tr:nth-child(5)');
      assert.equal(await page.locator('#history tbody tr').count(), 5);
      assert.match((await page.textContent('#history-pager .range')) ?? '', /^1–5 of 5$/);
      await page.selectOption('#history-filter select[name="state"]', 'failed');
      await page.waitForFunction(
        () => (globalThis as any).document.querySelectorAll('#history tbody tr').length === 1,
      );
      assert.match((await page.textContent('#history tbody tr')) ?? '', /hist-bad.*failed/s);
      // a task that ends now joins the list without a reload
      await page.selectOption('#history-filter select[name="state"]', 'all');
      await (await docket.client.add('quick', { key: 'hist-new' })(3)).result({ timeout: 10_000 });
      await page.waitForSelector('#history tbody tr:first-child a[href$="tasks/hist-new"]');
    } finally {
      await browser?.close();
    }
  });
});

describe('dashboard with keepFinished: 0', () => {
  let docket: DashboardApp;
  before(async () => {
    docket = await startDashboardApp({ dashboard: { keepFinished: 0 } });
  });
  after(() => docket?.close());

  it('keeps no history and costs the engine nothing', async () => {
    await (await docket.client.add('quick', { key: 'no-hist' })(1)).result({ timeout: 10_000 });
    const { status, body } = await callApi(docket, 'GET', 'history');
    assert.equal(status, 200);
    assert.deepEqual([body.total, body.items], [0, []]);
    if (BACKEND === 'redis') {
      const redis = new Redis(REDIS_URL);
      try {
        const keys = [`{${docket.name}}:history:on`, `{${docket.name}}:history`];
        assert.equal(await redis.exists(...keys), 0);
      } finally {
        await redis.quit();
      }
    }
  });
});
