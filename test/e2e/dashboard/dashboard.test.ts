import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

const skip = chromiumMissing();

/**
 * Where the overview screenshot goes: `.out/dashboard.png`, or the path in
 * DOCKET_DASHBOARD_SCREENSHOT (docs/dashboard.png for the README), which also runs a minute of
 * demo load first so that the charts have something to show.
 */
const SCREENSHOT = process.env.DOCKET_DASHBOARD_SCREENSHOT ?? '.out/dashboard.png';
const DEMO = process.env.DOCKET_DASHBOARD_SCREENSHOT !== undefined;

/** Uneven load for the docs screenshot: a wave of quick tasks and now and then a failure. */
async function demoLoad(docket: DashboardApp, ms: number): Promise<number> {
  const until = Date.now() + ms;
  let failures = 0;
  for (let tick = 0; Date.now() < until; tick++) {
    const count = Math.round(6 + 5 * Math.sin(tick / 12) + 3 * Math.sin(tick / 3.7));
    await Promise.all(Array.from({ length: count }, () => docket.client.add('quick')(tick)));
    if (tick % 17 === 5) {
      await docket.client.add('flaky')({ id: 100 + tick, amount: 99n });
      failures++;
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
  }
  return failures;
}

describe('dashboard in a browser (Express)', { skip }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let docket: DashboardApp;
  const pageErrors: string[] = [];

  const row = (table: string, key: string) => `#${table} tr[data-key="${key}"]`;
  // dead letters and failures are listed per occurrence: `<key>@<time>`
  const occurrence = (table: string, key: string) => `#${table} tr[data-key^="${key}@"]`;

  async function open(view: string): Promise<void> {
    await page.click(`nav a[data-view="${view}"]`);
    await page.waitForSelector(`section[data-section="${view}"]:not([hidden])`);
  }

  before(async () => {
    docket = await startDashboardApp({ worker: { name: 'worker-1' } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 560 } });
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${docket.url}/docket`);
    // set once: if the page ever reloads, the marker is gone
    await page.evaluate(() => ((globalThis as any).__noReload = true));
  });

  after(async () => {
    await browser?.close();
    await docket?.close();
  });

  it('shows the docket, its live worker and the depth chart', async () => {
    await page.waitForFunction(
      (name) => document.querySelector('#docket-name')?.textContent === name,
      docket.name,
    );
    await page.waitForSelector('#status.live');
    await page.waitForFunction(
      () => document.querySelector('[data-stat="workers"]')?.textContent === '1',
    );
    await page.waitForSelector('#overview-workers tbody tr');
    const tasks = await page.textContent('#overview-workers tbody tr td:nth-child(3)');
    assert.match(tasks ?? '', /crunch, fail, flaky, quick/);
    // a flat line has no height, so it is attached rather than visible
    await page.waitForSelector('#chart-depth polyline[data-series="queued"]', {
      state: 'attached',
    });

    // completions counted from every worker's state events show up as throughput
    await Promise.all(Array.from({ length: 12 }, (_, i) => docket.client.add('quick')(i)));
    await page.waitForFunction(
      () => Number(document.querySelector('[data-stat="throughput"]')?.textContent) > 0,
    );
    await page.waitForSelector('#chart-throughput polyline[data-series="ok"]', {
      state: 'attached',
    });
  });

  it('shows a running task whose progress bar moves', async () => {
    const key = 'crunch-1';
    await docket.client.add('crunch', { key })(4);
    await open('running');
    const bar = `${row('running', key)} [role="progressbar"]`;
    await page.waitForSelector(bar);
    assert.equal(await page.textContent(`${row('running', key)} td:nth-child(1)`), 'crunch');
    assert.equal(await page.textContent(`${row('running', key)} td.args`), '4');

    for (const step of [1, 2, 3]) {
      docket.controls.release(key);
      await page.waitForFunction(
        ({ selector, step }) => {
          const node = document.querySelector(selector);
          const width = parseFloat(node?.firstElementChild?.style.width);
          return node?.getAttribute('aria-valuenow') === String(step) && width === step * 25;
        },
        { selector: bar, step },
      );
    }
    assert.match(
      (await page.textContent(`${row('running', key)} .bar-label`)) ?? '',
      /^3 \/ 4 · 75% · crunching$/,
    );

    docket.controls.release(key);
    await page.waitForSelector(row('running', key), { state: 'detached' });
    const execution = await docket.client.getExecution(key);
    assert.equal(execution?.state, 'completed');
  });

  it('cancels a scheduled task from the page', async () => {
    const key = 'later-1';
    await docket.client.add('quick', { key, delay: 600_000 })(5);
    await open('scheduled');
    await page.waitForSelector(row('scheduled', key));
    assert.equal(await page.textContent(`${row('scheduled', key)} .pill`), 'scheduled');
    assert.match(
      (await page.textContent(`${row('scheduled', key)} time`)) ?? '',
      /^in (9m 5\ds|10m 0s)$/,
    );

    await page.click(`${row('scheduled', key)} button[data-action="cancel"]`);
    await page.waitForSelector(row('scheduled', key), { state: 'detached' });
    await page.waitForSelector('#toast:not([hidden])');
    assert.equal(await page.textContent('#toast'), `Task ${key} is cancelled`);

    assert.equal((await docket.client.getExecution(key))?.state, 'cancelled');
    // it left the queue
    const { future } = await docket.client.snapshot({ limit: Infinity });
    assert.equal(
      future.some((f) => f.key === key),
      false,
    );
  });

  it('retries a dead letter from the page and it completes', async () => {
    const key = 'order-7';
    const execution = await docket.client.add('flaky', { key })({ id: 7, amount: 1200n });
    await assert.rejects(execution.result({ timeout: 10_000 }), /payment gateway down/);

    await open('failures');
    const letter = occurrence('dead-letters', key);
    await page.waitForSelector(letter);
    assert.equal(
      await page.textContent(`${letter} td.error`),
      'Error: payment gateway down for order 7',
    );
    assert.equal(await page.textContent(`${letter} td.args`), '{ id: 7, amount: 1200n }');
    // the failure was also seen live on the state channel
    await page.waitForSelector(occurrence('recent-failures', key));

    docket.controls.healed = true;
    await page.click(`${letter} button[data-action="retry"]`);
    await page.waitForSelector(letter, { state: 'detached' });
    const retried = await docket.client.getExecution(key);
    assert.ok(retried);
    assert.equal(await retried.result({ timeout: 10_000 }), 'paid');
    assert.deepEqual(await docket.client.deadLetters(), []);
  });

  it('strikes a parameter value and restores it from the page', async () => {
    await open('strikes');
    await page.fill('#strike-form input[name="task"]', 'quick');
    await page.fill('#strike-form input[name="parameter"]', 'n');
    await page.selectOption('#strike-form select[name="operator"]', '>');
    await page.fill('#strike-form input[name="value"]', 'int:10');
    await page.click('#strike-form button[type="submit"]');
    await page.waitForSelector('#strikes tbody tr');
    const cells = await page.$$eval('#strikes tbody tr td', (tds) =>
      tds.slice(0, 4).map((td) => td.firstChild?.textContent),
    );
    assert.deepEqual(cells, ['quick', 'n', '>', '10']);
    // the value shows its type: int:10 is not the text "10"
    const type = await page.textContent('#strikes tbody tr td.strike-value .pill.type');
    assert.equal(type, 'int');

    assert.equal((await docket.client.add('quick')(11)).disposition, 'struck');
    assert.equal((await docket.client.add('quick')(3)).disposition, 'scheduled');

    await page.click('#strikes button[data-action="restore"]');
    await page.waitForSelector('#strikes tbody tr', { state: 'detached' });
    assert.equal((await docket.client.add('quick')(11)).disposition, 'scheduled');
  });

  it('refuses an action without the guard’s consent', async () => {
    const key = 'later-2';
    await docket.client.add('quick', { key, delay: 600_000 })(6);

    const stranger = await browser.newContext();
    try {
      const other = await stranger.newPage();
      other.setDefaultTimeout(10_000);
      other.on('dialog', (dialog) => void dialog.accept());
      await other.goto(`${docket.url}/docket#scheduled`);
      await other.click(`${row('scheduled', key)} button[data-action="cancel"]`);
      await other.waitForSelector('#toast.error:not([hidden])');
      assert.equal(
        await other.textContent('#toast'),
        'Not allowed: sign in as an admin to act on tasks',
      );
    } finally {
      await stranger.close();
    }
    assert.equal((await docket.client.getExecution(key))?.state, 'scheduled');

    const post = (headers: Record<string, string>, body = JSON.stringify({ key })) =>
      fetch(`${docket.url}/docket/api/cancel`, { method: 'POST', headers, body });
    assert.equal((await post({ 'content-type': 'application/json' })).status, 401);
    // with the cookie but not JSON: what a cross-site form would send
    const cookie = `${ADMIN_COOKIE.name}=${ADMIN_COOKIE.value}`;
    assert.equal((await post({ 'content-type': 'text/plain', cookie })).status, 415);
    assert.equal((await docket.client.getExecution(key))?.state, 'scheduled');
  });

  it('keeps the overview live without reloading (screenshot)', { timeout: 120_000 }, async () => {
    docket.controls.healed = false;
    const dead = 3 + (DEMO ? await demoLoad(docket, 55_000) : 0);
    await docket.client.add('report', { key: 'monthly-report' })('ACME');
    docket.controls.release('monthly-report', 6);
    await docket.client.add('quick', { key: 'nightly-cleanup', delay: 3_600_000 })(1);
    await docket.client.strike({ task: 'flaky', parameter: 'order.id', value: 13 });
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => docket.client.add('quick')(i)),
      ...Array.from({ length: 3 }, (_, i) => docket.client.add('flaky')({ id: i, amount: 5n })),
    ]);
    await open('overview');
    await page.waitForFunction((dead) => {
      const stat = (name: string) => document.querySelector(`[data-stat="${name}"]`)?.textContent;
      return (
        stat('running') === '1' && stat('deadLetters') === String(dead) && stat('strikes') === '1'
      );
    }, dead);
    await page.waitForSelector('#chart-throughput polyline[data-series="bad"]', {
      state: 'attached',
    });
    assert.notEqual(await page.textContent('[data-stat="failureRate"]'), '–');
    assert.equal(await page.evaluate(() => (globalThis as any).__noReload), true);
    assert.deepEqual(pageErrors, []);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    docket.controls.release('monthly-report', 4);
  });
});
