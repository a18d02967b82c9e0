import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, launchChromium, screenshotPath } from './browser.js';
import { ADMIN_COOKIE, callApi, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

const skip = chromiumMissing();

/** Each test's own app on `platform`, a browser page with the admin cookie. */
function detailSuite(platform: 'express' | 'fastify', globalPrefix?: string) {
  let browser: Browser;
  let context: BrowserContext;
  let docket: DashboardApp;
  const mount = `${globalPrefix ? `/${globalPrefix}` : ''}/docket`;
  const errors: string[] = [];

  before(async () => {
    docket = await startDashboardApp({ platform, globalPrefix, worker: { name: 'worker-1' } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
    assert.deepEqual(errors, []);
  });

  async function visit(path: string): Promise<Page> {
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${docket.url}${path}`);
    await page.waitForSelector('#status.live');
    return page;
  }

  const open = (key: string) => visit(`${mount}/tasks/${encodeURIComponent(key)}`);

  const text = (page: Page, selector: string) =>
    page.textContent(selector).then((t) => (t ?? '').trim());

  return { docket: () => docket, open, visit, text, mount };
}

describe('task detail page (Express)', { skip }, () => {
  const suite = detailSuite('express');

  it('shows typed arguments and the result of a completed task, by URL', async () => {
    const key = 'stamp/1 ü';
    const at = new Date('2026-03-04T05:06:07.000Z');
    const execution = await suite.docket().client.add('stamp', { key })(
      at,
      1200n,
      new Set(['a', 'b']),
    );
    await execution.result({ timeout: 10_000 });

    const page = await suite.open(key);
    await page.waitForSelector('#task-state.completed');
    assert.equal(await suite.text(page, '#task-key'), key);
    assert.equal(await suite.text(page, '#task-name'), 'stamp');
    const args = await page.$$eval('#task-args pre', (nodes) => nodes.map((n) => n.textContent));
    assert.deepEqual(args, ['2026-03-04T05:06:07.000Z', '1200n', "Set(2) { 'a', 'b' }"]);
    assert.equal(
      await suite.text(page, '#task-result pre'),
      '{ at: 2026-03-04T05:06:07.000Z, total: 2400n }',
    );
    assert.equal(await suite.text(page, '#task-why .pill'), 'finished');
    // no action on a finished task
    assert.equal(await page.locator('#task-summary button').count(), 0);
    // and the endpoints refuse them: it is neither scheduled nor failed
    for (const [action, wanted] of [
      ['run-now', 'scheduled'],
      ['retry-task', 'failed'],
    ]) {
      const response = await callApi(suite.docket(), 'POST', action, { key });
      assert.equal(response.status, 409, action);
      assert.equal(response.body.message, `task ${key} is completed, not ${wanted}`);
    }
    assert.equal((await suite.docket().client.getExecution(key))?.state, 'completed');
    await page.close();
  });

  it('shows the error of a failed task and retries it from there', async () => {
    const { client, controls } = suite.docket();
    const key = 'order-9';
    const execution = await client.add('flaky', { key })({ id: 9, amount: 90n });
    await assert.rejects(execution.result({ timeout: 10_000 }), /payment gateway down/);

    const page = await suite.open(key);
    await page.waitForSelector('#task-state.failed');
    assert.equal(
      await suite.text(page, '#task-error pre'),
      'Error: payment gateway down for order 9',
    );
    assert.match(await suite.text(page, '#task-error .hint'), /^dead letter after 1 attempt/);
    // the stack the worker saw, open under the error
    assert.match(
      await suite.text(page, '#task-error details.stack[open] pre'),
      /^Error: payment gateway down for order 9\n\s+at \S*flaky /,
    );
    assert.equal(await suite.text(page, '#task-args pre'), '{ id: 9, amount: 90n }');

    controls.healed = true;
    await page.click('#task-summary button[data-action="retry-task"]');
    await page.waitForSelector('#task-state.completed');
    assert.equal(await suite.text(page, '#task-result pre'), "'paid'");
    assert.deepEqual(await client.deadLetters(), []);
    await page.close();
  });

  it('shows the earlier attempts of a retried task with their stacks, and its timeline', async () => {
    const { client } = suite.docket();
    const execution = await client.add('wobbly')();
    assert.equal(await execution.result({ timeout: 10_000 }), 'steady');

    const page = await suite.open(execution.key);
    await page.waitForSelector('#task-state.completed');
    const rows = await page.$$eval('#task-attempts tr.attempt', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    assert.equal(rows.length, 2);
    rows.forEach(([attempt, outcome, worker], i) => {
      assert.deepEqual([attempt, outcome, worker], [String(i + 1), 'failed', 'worker-1']);
    });
    const stacks = await page.$$eval('#task-attempts details.stack pre', (pres) =>
      pres.map((p) => p.textContent ?? ''),
    );
    assert.equal(stacks.length, 2);
    stacks.forEach((text, i) =>
      assert.match(text, new RegExp(`^RangeError: wobble ${i + 1}\\n\\s+at wobble `)),
    );
    // the default key is a UUIDv7: the timeline starts at its time
    const steps = await page.$$eval('#task-timeline li', (lis) =>
      lis.map((li) => li.querySelector('.pill')?.textContent ?? ''),
    );
    assert.deepEqual(steps, [
      'added',
      'due',
      'started',
      'failed',
      'due',
      'started',
      'failed',
      'due',
      'started',
      'completed',
    ]);
    assert.match(await suite.text(page, '#task-timeline li.failed'), /RangeError: wobble 1/);
    await page.screenshot({ path: screenshotPath('dashboard-detail.png'), fullPage: true });
    await page.close();
  });

  it('explains a scheduled task and runs it now with its arguments', async () => {
    const { client } = suite.docket();
    const key = 'later-run';
    await client.add('quick', { key, delay: 600_000 })(21);

    const page = await suite.open(key);
    await page.waitForSelector('#task-state.scheduled');
    assert.equal(await suite.text(page, '#task-why .pill'), 'scheduled');
    assert.match(await suite.text(page, '#task-why .hint'), /^may start: in (9m 5\ds|10m 0s)$/);

    await page.click('#task-summary button[data-action="run-now"]');
    await page.waitForSelector('#task-state.completed');
    assert.equal(await suite.text(page, '#task-result pre'), '42');
    await page.close();
  });

  it('cancels a running task from its page and shows its progress', async () => {
    const { client, controls } = suite.docket();
    const key = 'crunch-detail';
    await client.add('crunch', { key })(4);
    const page = await suite.open(key);
    await page.waitForSelector('#task-state.running');
    controls.release(key);
    await page.waitForFunction(
      () =>
        document
          .querySelector('#task-progress [role="progressbar"]')
          ?.getAttribute('aria-valuenow') === '1',
    );
    await page.click('#task-summary button[data-action="cancel"]');
    await page.waitForSelector('#task-state.cancelled');
    assert.equal((await client.getExecution(key))?.state, 'cancelled');
    await page.close();
  });

  it('shows on the workers page what each worker runs now, linked to its page', async () => {
    const { client, controls } = suite.docket();
    const key = 'crunch-busy';
    await client.add('crunch', { key })(1);
    const page = await suite.visit('/docket#workers');
    const link = `#workers td.running-now a[href$="tasks/${key}"]`;
    await page.waitForSelector(link);
    // busy of how many at once (the fixture's concurrency), and what the worker told of itself
    assert.equal(await suite.text(page, '#workers td.busy'), '1 / 4');
    assert.match(await suite.text(page, '#workers td.pid'), /^\d+$/);
    assert.match(await suite.text(page, '#workers td.version'), /^\d+\.\d+\.\d+/);
    assert.notEqual(await suite.text(page, '#workers td.host'), '—');
    assert.match(await suite.text(page, '#workers td.uptime'), /^\d+s$|^\d+m \d+s$/);
    // the screenshot (docs/) shows a made-up host name, not the name of the machine it ran on
    await page.evaluate(() => {
      for (const cell of document.querySelectorAll('#workers td.host')) cell.textContent = 'app-1';
    });
    await page.screenshot({ path: screenshotPath('dashboard-workers.png') });
    await page.click(link);
    await page.waitForSelector('#task-state.running');
    controls.release(key);
    await page.waitForSelector('#task-state.completed');
    await page.close();
  });

  it('says so for a key Redis does not know', async () => {
    const page = await suite.open('never-added');
    await page.waitForSelector('#task-missing');
    assert.match(await suite.text(page, '#task-missing p'), /^no task never-added/);
    const response = await fetch(`${suite.docket().url}/docket/api/task?key=never-added`);
    assert.equal(response.status, 404);
    await page.close();
  });
});

describe('task detail page on Fastify behind a global prefix', { skip }, () => {
  const suite = detailSuite('fastify', 'admin');

  it('opens by URL and links back to the lists', async () => {
    const { client } = suite.docket();
    const key = 'fast/detail';
    await (await client.add('quick', { key })(4)).result({ timeout: 10_000 });
    const page = await suite.open(key);
    await page.waitForSelector('#task-state.completed');
    assert.equal(await suite.text(page, '#task-result pre'), '8');
    await page.click('nav a[data-view="scheduled"]');
    await page.waitForSelector('section[data-section="scheduled"]:not([hidden])');
    assert.equal(new URL(page.url()).pathname, '/admin/docket');
    await page.close();
  });
});
