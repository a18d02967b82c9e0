import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDocket, waitFor, type TestDocket } from '../../utils.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

// The page follows `api/live`: a list shows what was added elsewhere as it happens, not at
// the next read on its timer; without the stream it reads on its timer and says so.

const skip = chromiumMissing();

async function openPage(browser: Browser, docket: DashboardApp, path: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${docket.url}${path}`);
  await page.waitForSelector('#status.live');
  return page;
}

describe('dashboard page with live updates', { skip, timeout: 90_000 }, () => {
  let browser: Browser;
  let docket: DashboardApp;
  let producer: TestDocket;

  before(async () => {
    // the page's timer would read again in ten minutes: only the stream can explain a change
    docket = await startDashboardApp({ dashboard: { refreshInterval: 600_000 } });
    producer = await createDocket([], { name: docket.name, worker: false });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await producer?.close();
    await docket?.close();
  });

  it('lists a task added from outside without waiting for its timer', async () => {
    const page = await openPage(browser, docket, '/docket#scheduled');
    await page.waitForSelector('#updates[data-mode="live"]');
    assert.equal(await page.textContent('#updates'), 'live');

    // the docket publishes its events once the stream's subscription is in place: probe
    let n = 0;
    await waitFor(
      async () => {
        await producer.client.add('quick', { key: `probe-${n++}`, delay: 3_600_000 })(0);
        return page.waitForSelector('#scheduled tr[data-key^="probe-"]', { timeout: 1_000 }).then(
          () => true,
          () => false,
        );
      },
      'a probe on the page',
      15_000,
    );

    await producer.client.add('quick', { key: 'from-elsewhere', delay: 600_000 })(7);
    await page.waitForSelector('#scheduled tr[data-key="from-elsewhere"]');
    await page.waitForSelector('#scheduled tr[data-key="from-elsewhere"] .pill.scheduled');

    // and it leaves the list when it is cancelled elsewhere
    await producer.client.cancel('from-elsewhere');
    await page.waitForSelector('#scheduled tr[data-key="from-elsewhere"]', { state: 'detached' });
    assert.equal(await page.getAttribute('#updates', 'data-mode'), 'live');
    await page.context().close();
  });
});

describe('dashboard page without its stream', { skip, timeout: 90_000 }, () => {
  let browser: Browser;
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({ dashboard: { refreshInterval: 300 } });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
  });

  it('reads on its timer and says "polling" while the stream is refused, then goes live', async () => {
    const context = await browser.newContext();
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    // a proxy that refuses the stream
    await page.route('**/api/live', (route) => route.fulfill({ status: 503, body: 'no' }));
    await page.goto(`${docket.url}/docket#scheduled`);
    await page.waitForSelector('#status.live');
    assert.equal(await page.getAttribute('#updates', 'data-mode'), 'polling');
    assert.equal(await page.textContent('#updates'), 'polling');

    await docket.client.add('quick', { key: 'polled', delay: 600_000 })(1);
    await page.waitForSelector('#scheduled tr[data-key="polled"]');
    assert.equal(await page.getAttribute('#updates', 'data-mode'), 'polling');

    // the stream is let through again: the page opens it on its next try
    await page.unroute('**/api/live');
    await page.waitForSelector('#updates[data-mode="live"]');
    await context.close();
  });
});
