import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

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

  it('says on the page how many of them it shows', { skip: chromiumMissing() }, async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${docket.url}/docket#scheduled`);
      await page.waitForSelector('#scheduled-more:not([hidden])');
      assert.equal(await page.textContent('#scheduled-more'), `showing 500 of ${WAITING}`);
      const tab = await page.textContent('nav a[data-view="scheduled"]');
      assert.match(tab ?? '', /^Queued & scheduled\b/);
    } finally {
      await browser.close();
    }
  });
});
