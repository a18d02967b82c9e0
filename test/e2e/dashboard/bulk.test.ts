// Bulk actions of the dashboard (api/bulk and the lists' selection): cancel live tasks, retry
// and delete dead letters, over picked rows or a whole filter, a bounded piece per request.
// Each test has a docket of its own.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { DocketClient } from '../../../lib/index.js';
import { waitFor } from '../../utils.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN, ADMIN_COOKIE, callApi, startDashboardApp, type DashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

const call = callApi;

const bulk = (docket: DashboardApp, body: unknown) => call(docket, 'POST', 'bulk', body);

async function start(t: TestContext, options: Parameters<typeof startDashboardApp>[0] = {}) {
  const docket = await startDashboardApp(options);
  t.after(() => docket.close());
  return docket;
}

const later = (client: DocketClient, key: string, task = 'quick') =>
  client.add(task, { key, delay: 600_000 })(1);

/** Dead letters of `flaky` under `keys`, one after the other (so in this order). */
async function deadLetters(docket: DashboardApp, keys: string[]): Promise<Map<string, string>> {
  for (const [i, key] of keys.entries()) {
    const execution = await docket.client.add('flaky', { key })({ id: i, amount: 1n });
    await assert.rejects(execution.result({ timeout: 10_000 }), /payment gateway down/);
  }
  const { body } = await call(docket, 'GET', 'dead-letters?limit=500');
  return new Map(body.items.map((d: any) => [d.key, d.id]));
}

const stateOf = async (client: DocketClient, key: string) =>
  (await client.getExecution(key))?.state ?? null;

describe('dashboard bulk actions (API)', () => {
  it('cancels picked keys and says what it skipped, and why', async (t) => {
    const docket = await start(t);
    const { client } = docket;
    for (const key of ['s-1', 's-2', 's-3']) await later(client, key);
    await (await client.add('quick', { key: 'done-1' })(2)).result({ timeout: 10_000 });

    const { status, body } = await bulk(docket, {
      action: 'cancel',
      keys: ['s-1', 's-2', 'done-1', 'never-added', 's-1'],
    });
    assert.equal(status, 200);
    assert.deepEqual(body, {
      action: 'cancel',
      touched: 2,
      skipped: 2,
      reasons: { finished: 1, not_found: 1 },
      more: false,
      cursor: null,
    });
    assert.deepEqual(
      await Promise.all(['s-1', 's-2', 's-3', 'done-1'].map((key) => stateOf(client, key))),
      ['cancelled', 'cancelled', 'scheduled', 'completed'],
    );
  });

  it('cancels all a filter matches, a bounded piece per request', async (t) => {
    const docket = await start(t);
    const { client } = docket;
    await client.addMany(
      'quick',
      Array.from({ length: 25 }, (_, i) => [i]),
      { delay: 600_000 },
    );
    for (const key of ['r-1', 'r-2', 'r-3']) await later(client, key, 'report');

    const pieces: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const { status, body } = await bulk(docket, {
        action: 'cancel',
        filter: { task: 'quick', state: 'scheduled', q: '' },
        limit: 10,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(status, 200);
      pieces.push(body.touched);
      assert.equal(body.skipped, 0);
      if (!body.more) break;
      cursor = body.cursor;
      assert.ok(pieces.length < 10, 'the sweep ends');
    }
    assert.deepEqual(pieces, [10, 10, 5]);
    assert.equal((await call(docket, 'GET', 'tasks?task=quick')).body.total, 0);
    assert.equal((await call(docket, 'GET', 'tasks?task=report')).body.total, 3);

    // a running task is cancelled too (its signal aborts); it stays listed until it ends
    const running = await client.add('crunch', { key: 'busy-1' })(1);
    await waitFor(async () => (await stateOf(client, 'busy-1')) === 'running', 'busy-1 runs');
    const { body } = await bulk(docket, { action: 'cancel', filter: { state: 'running' } });
    assert.deepEqual([body.touched, body.more], [1, false]);
    await assert.rejects(running.result({ timeout: 10_000 }), /cancel/i);
    assert.equal(await stateOf(client, 'busy-1'), 'cancelled');
  });

  it('does not skip a waiting task when running tasks it cancelled end between requests', async (t) => {
    const docket = await start(t);
    const { client } = docket;
    const running = ['busy-a', 'busy-b', 'busy-c'];
    for (const key of running) await client.add('crunch', { key })(1);
    for (const key of running) {
      await waitFor(async () => (await stateOf(client, key)) === 'running', `${key} runs`);
    }
    await client.addMany(
      'quick',
      Array.from({ length: 12 }, (_, i) => [i]),
      { delay: 600_000 },
    );
    let touched = 0;
    let cursor: string | undefined;
    for (let round = 0; ; round++) {
      const { status, body } = await bulk(docket, {
        action: 'cancel',
        filter: { state: 'all' },
        limit: 5,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(status, 200);
      touched += body.touched;
      if (round === 0) {
        // the running tasks it cancelled end before the next request
        for (const key of running) {
          await waitFor(async () => (await stateOf(client, key)) === 'cancelled', `${key} ends`);
        }
      }
      if (!body.more) break;
      cursor = body.cursor;
      assert.ok(round < 10, 'the sweep ends');
    }
    assert.equal(touched, 15);
    assert.equal((await call(docket, 'GET', 'tasks?state=all')).body.total, 0);
  });

  it('retries and deletes dead letters, by id and by filter', async (t) => {
    const docket = await start(t);
    const { client, controls } = docket;
    const ids = await deadLetters(docket, ['dl-1', 'dl-2', 'dl-3', 'dl-4', 'dl-5']);
    assert.equal(ids.size, 5);

    // by id: one deleted, one that is no dead letter (any more) skipped
    const purged = await bulk(docket, { action: 'purge', ids: [ids.get('dl-1'), '1-0'] });
    assert.deepEqual(
      [purged.body.touched, purged.body.skipped, purged.body.reasons],
      [1, 1, { gone: 1 }],
    );

    // over a filter, two at a time: dl-3 is live again (a new task has its key), so it stays
    controls.healed = true;
    await later(client, 'dl-3');
    const answers = [await bulk(docket, { action: 'retry', filter: { q: 'dl-' }, limit: 2 })];
    assert.equal(answers[0].body.more, true);
    answers.push(
      await bulk(docket, {
        action: 'retry',
        filter: { q: 'dl-' },
        limit: 2,
        cursor: answers[0].body.cursor,
      }),
    );
    assert.deepEqual(
      answers.map(({ body }) => [body.touched, body.reasons, body.more]),
      [
        [1, { live: 1 }, true],
        [2, {}, false],
      ],
    );
    for (const key of ['dl-2', 'dl-4', 'dl-5']) {
      assert.equal(await (await client.getExecution(key))!.result({ timeout: 10_000 }), 'paid');
    }

    // what is left: dl-3's letter; deleted over the task filter
    const left = await call(docket, 'GET', 'dead-letters');
    assert.deepEqual(
      left.body.items.map((d: any) => d.key),
      ['dl-3'],
    );
    const all = await bulk(docket, { action: 'purge', filter: { task: 'flaky' } });
    assert.deepEqual([all.body.touched, all.body.skipped, all.body.more], [1, 0, false]);
    assert.equal((await call(docket, 'GET', 'dead-letters')).body.total, 0);
    assert.equal(await stateOf(client, 'dl-3'), 'scheduled');
    // nothing left: an empty sweep
    const none = await bulk(docket, { action: 'retry', filter: {} });
    assert.deepEqual([none.body.touched, none.body.more], [0, false]);
  });

  it('refuses a bad request (400), naming the problem', async (t) => {
    const docket = await start(t);
    const refused: [unknown, RegExp][] = [
      [{ action: 'explode', keys: ['a'] }, /unknown action "explode"/],
      [{ keys: ['a'] }, /give "action"/],
      [{ action: 'cancel' }, /one of "keys", "ids" or "filter"/],
      [{ action: 'cancel', keys: ['a'], filter: {} }, /one of "keys", "ids" or "filter"/],
      [{ action: 'cancel', ids: ['1-0'] }, /"cancel" takes "keys"/],
      [{ action: 'retry', keys: ['a'] }, /"retry" takes "ids"/],
      [{ action: 'cancel', filter: { state: 'done' } }, /"filter.state" is one of/],
      [{ action: 'purge', filter: { state: 'queued' } }, /no field "state"/],
      [{ action: 'cancel', filter: { colour: 'red' } }, /no field "colour"/],
      [{ action: 'cancel', filter: { task: 7 } }, /"filter.task" must be text/],
      [{ action: 'cancel', keys: [] }, /list of 1 to 500/],
      [{ action: 'cancel', keys: Array.from({ length: 501 }, (_, i) => `k${i}`) }, /1 to 500/],
      [{ action: 'purge', ids: ['x'] }, /"x", which is not one of the dead letter ids/],
      [{ action: 'cancel', filter: {}, cursor: 'abc' }, /"cursor" is not one/],
      [{ action: 'retry', filter: {}, cursor: '1-0' }, /"cursor" is not one/],
      [{ action: 'cancel', filter: {}, limit: 0 }, /"limit" must be a whole number/],
      [{ action: 'cancel', keys: ['a'], limit: 5 }, /go with "filter"/],
      [['cancel'], /give a JSON object/],
    ];
    for (const [body, message] of refused) {
      const answer = await bulk(docket, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.body.message, message, JSON.stringify(body));
    }
  });

  it('is refused as the other actions are: read-only, no guard, the guard says no', async (t) => {
    const cases: [Parameters<typeof startDashboardApp>[0], Record<string, string>][] = [
      [{ dashboard: { readOnly: true } }, { cookie: ADMIN }],
      [{ dashboard: { guard: undefined } }, {}],
      [{}, {}],
    ];
    for (const [options, headers] of cases) {
      const docket = await start(t, options);
      await later(docket.client, 'kept');
      const cancel = await call(docket, 'POST', 'cancel', { key: 'kept' }, headers);
      const body = { action: 'cancel', keys: ['kept'] };
      const refused = await call(docket, 'POST', 'bulk', body, headers);
      assert.ok(cancel.status >= 400, JSON.stringify(options));
      assert.deepEqual(
        [refused.status, refused.body.message],
        [cancel.status, cancel.body.message],
      );
      const filter = { action: 'purge', filter: {} };
      assert.equal((await call(docket, 'POST', 'bulk', filter, headers)).status, cancel.status);
      assert.equal(await stateOf(docket.client, 'kept'), 'scheduled');
    }
  });
});

describe('dashboard bulk actions in a browser', { skip: chromiumMissing() }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let docket: DashboardApp;
  let page: Page;

  before(async () => {
    docket = await startDashboardApp({ worker: { name: 'worker-1' } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
  });

  /** Click `selector`, answer the confirm dialog it opens; resolves to the dialog's text. */
  async function confirmed(selector: string, accept: boolean): Promise<string> {
    const asked = new Promise<string>((resolve) => {
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      });
    });
    await page.click(selector);
    return asked;
  }

  const rows = (table: string) => page.locator(`#${table} tbody tr`).count();

  it('cancels the picked rows after a confirm that names how many', async () => {
    for (const key of ['pick-1', 'pick-2', 'pick-3', 'pick-4']) await later(docket.client, key);
    await page.goto(`${docket.url}/docket#scheduled`);
    await page.waitForFunction(() => document.querySelectorAll('#scheduled tbody tr').length === 4);
    await page.check('#scheduled tr[data-key="pick-1"] input.pick');
    await page.check('#scheduled tr[data-key="pick-2"] input.pick');
    assert.equal(await page.textContent('#scheduled-bulk .picked'), '2 selected');

    const cancelPicked = '#scheduled-bulk button[data-bulk="cancel"][data-scope="picked"]';
    assert.equal(await confirmed(cancelPicked, true), 'Cancel the 2 selected tasks?');
    await page.waitForFunction(() => document.querySelectorAll('#scheduled tbody tr').length === 2);
    assert.match((await page.textContent('#toast')) ?? '', /^Cancelled 2/);
    assert.equal(await stateOf(docket.client, 'pick-1'), 'cancelled');
    assert.equal(await stateOf(docket.client, 'pick-2'), 'cancelled');

    // a dismissed confirm does nothing
    await page.check('#scheduled thead input.pick-all');
    assert.equal(await page.textContent('#scheduled-bulk .picked'), '2 selected');
    assert.equal(await confirmed(cancelPicked, false), 'Cancel the 2 selected tasks?');
    assert.equal(await rows('scheduled'), 2);
    assert.equal(await stateOf(docket.client, 'pick-3'), 'scheduled');
  });

  it('deletes every dead letter the filter matches', async () => {
    await deadLetters(docket, ['gone-1', 'gone-2', 'gone-3']);
    await page.goto(`${docket.url}/docket#failures`);
    await page.waitForFunction(
      () => document.querySelectorAll('#dead-letters tbody tr').length === 3,
    );
    await page.fill('#dead-letters-filter input[name="q"]', 'gone-');
    await page.press('#dead-letters-filter input[name="q"]', 'Enter');
    await page.waitForFunction(
      () => document.querySelector('#dead-letters-pager .range')?.textContent === '1–3 of 3',
    );
    const message = await confirmed(
      '#dead-letters-bulk button[data-bulk="purge"][data-scope="filter"]',
      true,
    );
    assert.equal(
      message,
      'Delete all 3 dead letters that match the filter? This cannot be undone.',
    );
    await page.waitForFunction(
      () => document.querySelectorAll('#dead-letters tbody tr').length === 0,
    );
    assert.match((await page.textContent('#toast')) ?? '', /^Purged 3/);
    assert.equal((await docket.client.deadLetters()).length, 0);
  });

  it('offers no selection on a read-only dashboard', async (t) => {
    const readOnly = await start(t, { dashboard: { readOnly: true } });
    await later(readOnly.client, 'ro-1');
    const viewer = await context.newPage();
    await viewer.goto(`${readOnly.url}/docket#scheduled`);
    await viewer.waitForSelector('#scheduled tbody tr[data-key="ro-1"]');
    assert.equal(await viewer.locator('#scheduled tbody input.pick').count(), 0);
    assert.equal(await viewer.isHidden('#scheduled-bulk'), true);
    assert.equal(await viewer.isHidden('#scheduled thead th.pick'), true);
    await viewer.close();
  });
});
