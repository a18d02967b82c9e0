import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DocketInspector } from '../../../lib/index.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

/** More waiting tasks than a snapshot lists by default (1 000) and the page shows (500). */
const WAITING = 1_100;

describe('dashboard: counts of a long list', () => {
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp();
    const args = Array.from({ length: WAITING }, (_, i) => [i]);
    await docket.client.addMany('quick', args, { delay: 600_000 });
  });
  after(() => docket?.close());

  it('gives the total from the counts, not from the length of a cut list', async () => {
    const response = await fetch(`${docket.url}/docket/api/scheduled`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { total: number; tasks: { state: string }[] };
    assert.equal(body.total, WAITING);
    assert.equal(body.tasks.length, 500);
    assert.ok(body.tasks.every((task) => task.state === 'scheduled'));
  });

  it(
    'pages through all of them on the page, to the last page',
    { skip: chromiumMissing() },
    async () => {
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        await page.goto(`${docket.url}/docket#scheduled`);
        await page.waitForFunction(
          (total) =>
            document.querySelector('#scheduled-pager .range')?.textContent === `1–50 of ${total}`,
          WAITING,
        );
        assert.equal(await page.locator('#scheduled tbody tr').count(), 50);
        const tab = await page.textContent('nav a[data-view="scheduled"]');
        assert.match(tab ?? '', /^Queued & scheduled\b/);

        await page.click('#scheduled-pager [data-page="last"]');
        await page.waitForFunction(
          (total) =>
            document.querySelector('#scheduled-pager .range')?.textContent ===
            `1051–${total} of ${total}`,
          WAITING,
        );
        assert.equal(await page.locator('#scheduled tbody tr').count(), 50);
        assert.equal(await page.isDisabled('#scheduled-pager [data-page="next"]'), true);
        // the rows of the last page, in the order the read model lists them
        const keys = await page.$$eval('#scheduled tbody tr', (rows) =>
          rows.map((row) => row.dataset.key),
        );
        const last = await docket.app
          .get(DocketInspector)
          .tasks({ states: ['queued', 'scheduled'], offset: WAITING - 50, limit: 50 });
        assert.deepEqual(
          keys,
          last.tasks.map((task) => task.key),
        );

        await page.click('#scheduled-pager [data-page="prev"]');
        await page.waitForFunction(
          (total) =>
            document.querySelector('#scheduled-pager .range')?.textContent ===
            `1001–1050 of ${total}`,
          WAITING,
        );
      } finally {
        await browser.close();
      }
    },
  );
});
