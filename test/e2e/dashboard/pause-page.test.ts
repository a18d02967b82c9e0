// Pause, resume and "why?" in the page. Each test has a docket (and a dashboard) of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

const skip = chromiumMissing();

describe('dashboard in a browser: pause, resume, why', { skip }, () => {
  let browser: Browser;

  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());

  /** A dashboard of its own, opened at `view` by an admin (or a stranger, without the cookie). */
  async function open(
    t: TestContext,
    view: string,
    options: Parameters<typeof startDashboardApp>[0] & { admin?: boolean } = {},
  ): Promise<{ docket: DashboardApp; page: Page; errors: string[] }> {
    const docket = await startDashboardApp(options);
    t.after(() => docket.close());
    const context = await browser.newContext();
    t.after(() => context.close());
    if (options.admin !== false) await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${docket.url}/docket#${view}`);
    await page.waitForSelector('#status.live');
    return { docket, page, errors };
  }

  const row = (table: string, key: string) => `#${table} tr[data-key="${key}"]`;

  it('pauses and resumes the docket from the header', async (t) => {
    const { docket, page, errors } = await open(t, 'scheduled');
    const toggle = '#pause-docket';
    await page.waitForSelector(`${toggle}[data-action="pause-docket"]:visible`);
    assert.equal(await page.isHidden('#docket-paused'), true);
    assert.equal(await page.textContent(toggle), 'Pause docket');

    await page.click(toggle);
    await page.waitForSelector('#docket-paused:visible');
    assert.equal(await page.textContent('#docket-paused'), 'PAUSED');
    assert.equal((await docket.client.paused()).docket, true);
    await page.waitForSelector(`${toggle}[data-action="resume-docket"]`);
    assert.equal(await page.textContent(toggle), 'Resume docket');
    assert.match((await page.textContent('#paused-banner')) ?? '', /The docket is paused/);

    // work added meanwhile waits, marked paused, and says why
    const execution = await docket.client.add('quick', { key: 'waits' })(4);
    await page.waitForSelector(`${row('scheduled', 'waits')} .pill.paused`);
    await page.click(`${row('scheduled', 'waits')} button[data-action="explain"]`);
    await page.waitForSelector('#explain[data-reason="paused"]');
    assert.equal(await page.textContent('#explain-key'), 'waits');
    assert.equal(await page.textContent('#explain-reason'), 'paused');
    assert.match((await page.textContent('#explain-detail')) ?? '', /^the docket is paused/);
    await page.waitForSelector(`${row('scheduled', 'waits')}.selected`);

    await page.click(toggle);
    await page.waitForSelector('#docket-paused', { state: 'hidden' });
    assert.equal(await execution.result({ timeout: 20_000 }), 8);
    // the open explanation follows the task to its end
    await page.waitForSelector('#explain[data-reason="finished"]');
    assert.equal((await docket.client.paused()).docket, false);
    assert.equal(await page.isHidden('#paused-banner'), true);
    assert.deepEqual(errors, []);
  });

  it('pauses and resumes a task from the tasks table', async (t) => {
    const { docket, page, errors } = await open(t, 'overview');
    const quick = row('tasks', 'quick');
    await page.waitForSelector(`${quick} button[data-action="pause"]`);
    assert.equal(await page.textContent(`${quick} td:nth-child(2)`), '1');

    await page.click(`${quick} button[data-action="pause"]`);
    await page.waitForSelector(`${quick} .pill.paused`);
    assert.equal(await page.textContent(`${quick} .pill.paused`), 'PAUSED');
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['quick'] });
    // the others are not paused, nor is the docket
    assert.equal(await page.$(`${row('tasks', 'crunch')} .pill.paused`), null);
    assert.equal(await page.isHidden('#docket-paused'), true);

    const execution = await docket.client.add('quick', { key: 'held' })(5);
    await page.waitForFunction(
      () => document.querySelector('[data-stat="held"]')?.textContent === '1 held (paused)',
    );
    await page.click(`${quick} button[data-action="resume"]`);
    await page.waitForSelector(`${quick} button[data-action="pause"]`);
    assert.equal(await execution.result({ timeout: 20_000 }), 10);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: [] });
    assert.deepEqual(errors, []);
  });

  it('explains a scheduled task', async (t) => {
    const { docket, page } = await open(t, 'scheduled');
    await docket.client.add('quick', { key: 'tomorrow', delay: 86_400_000 })(1);
    await page.click(`${row('scheduled', 'tomorrow')} button[data-action="explain"]`);
    await page.waitForSelector('#explain[data-reason="scheduled"]');
    assert.match((await page.textContent('#explain-times')) ?? '', /^may start: in 2[34]h \d+m$/);
    await page.click('#explain-close');
    await page.waitForSelector('#explain', { state: 'hidden' });
    assert.equal(await page.$(`${row('scheduled', 'tomorrow')}.selected`), null);
  });

  it('refuses a pause without the guard’s consent', async (t) => {
    const { docket, page } = await open(t, 'overview', { admin: false });
    await page.click('#pause-docket');
    await page.waitForSelector('#toast.error:not([hidden])');
    assert.equal(
      await page.textContent('#toast'),
      'Not allowed: sign in as an admin to act on tasks',
    );
    assert.equal((await docket.client.paused()).docket, false);
    assert.equal(await page.isHidden('#docket-paused'), true);
  });

  it('shows the pause but offers no button when read-only; "why" still works', async (t) => {
    const { docket, page } = await open(t, 'scheduled', { dashboard: { readOnly: true } });
    await docket.client.pause();
    await page.waitForSelector('#docket-paused:visible');
    assert.equal(await page.isHidden('#pause-docket'), true);
    await docket.client.add('quick', { key: 'ro' })(1);
    await page.click(`${row('scheduled', 'ro')} button[data-action="explain"]`);
    await page.waitForSelector('#explain[data-reason="paused"]');
    await page.click('nav a[data-view="overview"]');
    await page.waitForSelector(`${row('tasks', 'quick')}`);
    assert.equal(await page.isHidden(`${row('tasks', 'quick')} button`), true);
  });
});
