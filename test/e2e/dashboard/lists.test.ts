import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium, screenshotPath } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

/** Scheduled `quick` tasks, and among them a few `report`s for one customer. */
const QUICK = 10_000;
const REPORTS = ['acme-1', 'acme-2', 'acme-3'];

interface Page_ {
  total: number;
  offset: number;
  limit: number;
  items: { key: string; taskName: string; state: string; args: string }[];
}

describe('dashboard lists: search, filters and pages', () => {
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({ worker: { name: 'worker-1' } });
    const args = Array.from({ length: QUICK }, (_, i) => [i]);
    await docket.client.addMany('quick', args, { delay: 600_000 });
    for (const key of REPORTS) {
      await docket.client.add('report', { key, delay: 600_000 })('Acme Corp');
    }
    await docket.client.add('report', { key: 'globex-1', delay: 600_000 })('Globex');
  });
  after(() => docket?.close());

  const list = async (query: string): Promise<Page_> => {
    const response = await fetch(`${docket.url}/docket/api/tasks?${query}`);
    assert.equal(response.status, 200, query);
    return (await response.json()) as Page_;
  };

  it('gives true totals and pages of the JSON API', async () => {
    const all = await list('');
    assert.equal(all.total, QUICK + REPORTS.length + 1);
    assert.equal(all.items.length, 50);
    const last = await list(`state=scheduled&offset=${QUICK}&limit=50`);
    assert.equal(last.total, QUICK + REPORTS.length + 1);
    assert.equal(last.items.length, REPORTS.length + 1);
    const running = await list('state=running');
    assert.deepEqual([running.total, running.items], [0, []]);
  });

  it('searches by key prefix, task name and argument text, and filters by task', async () => {
    const keys = (page: Page_) => page.items.map((item) => item.key).sort();
    assert.deepEqual(keys(await list('q=acme-')), REPORTS);
    assert.deepEqual(keys(await list('q=ACME%20corp')), REPORTS);
    assert.deepEqual(keys(await list('q=report')), [...REPORTS, 'globex-1']);
    assert.deepEqual(keys(await list('task=report&q=globex')), ['globex-1']);
    assert.equal((await list('task=quick')).total, QUICK);
    assert.equal((await list('q=no-such-thing')).total, 0);
  });

  it('refuses a bad query', async () => {
    for (const query of ['state=done', 'offset=-1', 'limit=x']) {
      const response = await fetch(`${docket.url}/docket/api/tasks?${query}`);
      assert.equal(response.status, 400, query);
    }
  });

  it('searches and pages the dead letters', async () => {
    for (const id of [1, 2, 3]) {
      const execution = await docket.client.add('flaky', { key: `dl-${id}` })({ id, amount: 5n });
      await assert.rejects(execution.result({ timeout: 10_000 }), /payment gateway down/);
    }
    const letters = async (query: string) =>
      (await (await fetch(`${docket.url}/docket/api/dead-letters?${query}`)).json()) as Page_;
    const found = await letters('q=dl-2');
    assert.deepEqual([found.total, found.items.map((item) => item.key)], [1, ['dl-2']]);
    assert.equal((await letters('q=gateway%20down%20for%20order%203')).items[0]?.key, 'dl-3');
    // newest first, two to a page
    const second = await letters('offset=2&limit=2');
    assert.deepEqual([second.total, second.items.map((item) => item.key)], [3, ['dl-1']]);
  });

  describe('in a browser', { skip: chromiumMissing() }, () => {
    let browser: Browser;
    let page: Page;

    before(async () => {
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
      await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
      page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${docket.url}/docket#scheduled`);
    });
    after(() => browser?.close());

    const rows = () =>
      page.$$eval('#scheduled tbody tr', (trs) => trs.map((tr) => tr.dataset.key).sort());

    it('narrows the list to the rows the search finds', async () => {
      const total = QUICK + REPORTS.length + 1;
      await page.waitForFunction(
        (text) => document.querySelector('#scheduled-pager .range')?.textContent === text,
        `1–50 of ${total}`,
      );
      await page.screenshot({ path: screenshotPath('dashboard-list.png'), fullPage: true });
      await page.fill('#scheduled-filter input[name="q"]', 'acme');
      await page.press('#scheduled-filter input[name="q"]', 'Enter');
      await page.waitForFunction(
        () => document.querySelector('#scheduled-pager .range')?.textContent === '1–3 of 3',
      );
      assert.deepEqual(await rows(), REPORTS);

      // the task filter and the search together
      await page.fill('#scheduled-filter input[name="q"]', '');
      await page.selectOption('#scheduled-filter select[name="task"]', 'report');
      await page.waitForFunction(
        () => document.querySelector('#scheduled-pager .range')?.textContent === '1–4 of 4',
      );
      assert.deepEqual(await rows(), [...REPORTS, 'globex-1']);
    });
  });
});
