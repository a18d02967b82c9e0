import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, AdminCookieGuard, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

const skip = chromiumMissing();
const cookie = `${ADMIN_COOKIE.name}=${ADMIN_COOKIE.value}`;

async function adminPage(browser: Browser, docket: DashboardApp, path: string): Promise<Page> {
  const context = await browser.newContext();
  await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('dialog', (dialog) => void dialog.accept());
  await page.goto(`${docket.url}${path}`);
  await page.waitForSelector('#status.live');
  return page;
}

describe('dashboard on Fastify behind a global prefix', { skip }, () => {
  let browser: Browser;
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({ platform: 'fastify', globalPrefix: 'admin' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
  });

  it('shows progress and cancels a scheduled task', async () => {
    const page = await adminPage(browser, docket, '/admin/docket');
    await page.waitForFunction(
      (name) => document.querySelector('#docket-name')?.textContent === name,
      docket.name,
    );

    await docket.client.add('crunch', { key: 'fast-crunch' })(2);
    await page.click('nav a[data-view="running"]');
    const bar = '#running tr[data-key="fast-crunch"] [role="progressbar"]';
    await page.waitForSelector(bar);
    docket.controls.release('fast-crunch');
    await page.waitForFunction(
      (selector) => document.querySelector(selector)?.getAttribute('aria-valuenow') === '1',
      bar,
    );
    docket.controls.release('fast-crunch');
    await page.waitForSelector(bar, { state: 'detached' });

    await docket.client.add('quick', { key: 'fast-later', delay: 600_000 })(1);
    await page.click('nav a[data-view="scheduled"]');
    const row = '#scheduled tr[data-key="fast-later"]';
    await page.click(`${row} button[data-action="cancel"]`);
    await page.waitForSelector(row, { state: 'detached' });
    assert.equal((await docket.client.getExecution('fast-later'))?.state, 'cancelled');
    // and it is in the history, behind the prefix
    await page.click('nav a[data-view="history"]');
    await page.waitForSelector('#history tr[data-key^="fast-later@"]');
  });

  it('refuses an action without the guard’s consent', async () => {
    await docket.client.add('quick', { key: 'fast-kept', delay: 600_000 })(1);
    const response = await fetch(`${docket.url}/admin/docket/api/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'fast-kept' }),
    });
    assert.equal(response.status, 401);
    assert.equal((await docket.client.getExecution('fast-kept'))?.state, 'scheduled');
  });
});

describe('read-only dashboard behind a view guard', { skip }, () => {
  let browser: Browser;
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({
      dashboard: { readOnly: true, guard: undefined, viewGuard: AdminCookieGuard },
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
  });

  it('shows no actions and refuses them', async () => {
    await docket.client.add('quick', { key: 'ro-later', delay: 600_000 })(1);
    await docket.client.add('flaky', { key: 'ro-dead' })({ id: 1, amount: 1n });
    const page = await adminPage(browser, docket, '/docket#scheduled');
    await page.waitForSelector('#scheduled tr[data-key="ro-later"]');
    // no action; "Why?" is a read, offered to whoever may see the page
    assert.equal(await page.locator('#scheduled button:not([data-action="explain"])').count(), 0);
    assert.equal(await page.locator('#scheduled button[data-action="explain"]').count(), 1);
    await page.click('nav a[data-view="failures"]');
    await page.waitForSelector('#dead-letters tr[data-key^="ro-dead@"]');
    assert.equal(await page.locator('#dead-letters button').count(), 0);
    assert.equal(await page.isHidden('#retry-all'), true);
    await page.click('nav a[data-view="strikes"]');
    assert.equal(await page.isHidden('#strike-form'), true);

    const post = await fetch(`${docket.url}/docket/api/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ key: 'ro-later' }),
    });
    assert.equal(post.status, 403);
    assert.equal(
      ((await post.json()) as { message: string }).message,
      'the dashboard is read-only',
    );
    assert.equal((await docket.client.getExecution('ro-later'))?.state, 'scheduled');
  });

  it('shows nothing to whom the view guard refuses', async () => {
    for (const path of [
      '/docket',
      '/docket/api/overview',
      '/docket/api/scheduled',
      '/docket/api/history',
    ]) {
      assert.equal((await fetch(`${docket.url}${path}`)).status, 401, path);
    }
    assert.equal((await fetch(`${docket.url}/docket`, { headers: { cookie } })).status, 200);
  });
});
