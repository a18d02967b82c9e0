// Run at… on the detail page: move a scheduled or queued task to another time.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN, ADMIN_COOKIE, callApi, startDashboardApp } from './fixture.js';

async function start(t: TestContext, options: Parameters<typeof startDashboardApp>[0] = {}) {
  const docket = await startDashboardApp(options);
  t.after(() => docket.close());
  return docket;
}

describe('dashboard: replace-at', () => {
  it('moves a scheduled task to the time given, with its arguments, and says what it did', async (t) => {
    const docket = await start(t);
    await docket.client.add('quick', { key: 'moved', delay: 600_000 })(21);
    const at = new Date(Date.now() + 3_600_000);
    at.setMilliseconds(0);
    const answer = await callApi(docket, 'POST', 'replace-at', {
      key: 'moved',
      at: at.toISOString(),
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { key: 'moved', state: 'scheduled', when: at.toISOString() });
    const moved = await docket.client.getExecution('moved');
    assert.equal(moved?.when.toISOString(), at.toISOString());
    assert.deepEqual(moved?.args, [21]);
    // epoch ms in the past: due now, and it runs
    const now = await callApi(docket, 'POST', 'replace-at', { key: 'moved', at: Date.now() - 1 });
    assert.equal(now.body.state, 'queued');
    assert.equal(
      await (await docket.client.getExecution('moved'))!.result({ timeout: 10_000 }),
      42,
    );
  });

  it('refuses a time that is not one (400), and a task that no longer waits (409)', async (t) => {
    const docket = await start(t);
    await docket.client.add('quick', { key: 'later', delay: 600_000 })(1);
    const refused = ['next tuesday', '', null, {}, -5, 1.5, '2030-01-31T09:00:00', '1 2', ' -5'];
    for (const at of refused) {
      const answer = await callApi(docket, 'POST', 'replace-at', { key: 'later', at });
      assert.equal(answer.status, 400, JSON.stringify(at));
      assert.match(
        answer.body.message,
        /^at must be a date \(ISO 8601 with its zone, or epoch ms\), not /,
      );
    }
    const spaced = await callApi(docket, 'POST', 'replace-at', {
      key: 'later',
      at: ' 2030-01-31T09:00:00+01:00 ',
    });
    assert.deepEqual([spaced.status, spaced.body.when], [200, '2030-01-31T08:00:00.000Z']);
    // a task waiting for its dependencies keeps them: no replace-at, no run now
    await docket.client.add('quick', {
      key: 'waiter',
      after: ['later'],
      onDependencyFailure: 'run',
    })(3);
    for (const [action, body] of [
      ['replace-at', { key: 'waiter', at: Date.now() }],
      ['run-now', { key: 'waiter' }],
    ] as const) {
      const answer = await callApi(docket, 'POST', action, body);
      assert.deepEqual(
        [answer.status, answer.body.message],
        [409, 'task waiter waits for its dependencies (later): it runs once they have ended'],
        action,
      );
    }
    const detail = await callApi(docket, 'GET', 'tasks/waiter');
    assert.deepEqual(
      [detail.body.actions.runNow, detail.body.actions.replaceAt, detail.body.actions.cancel],
      [false, false, true],
    );
    assert.equal((await docket.client.getExecution('waiter'))?.state, 'scheduled');
    const done = await docket.client.add('quick', { key: 'done' })(1);
    await done.result({ timeout: 10_000 });
    const late = await callApi(docket, 'POST', 'replace-at', { key: 'done', at: Date.now() });
    assert.deepEqual(
      [late.status, late.body.message],
      [409, 'task done is completed, not scheduled or queued'],
    );
    const missing = await callApi(docket, 'POST', 'replace-at', { key: 'nope', at: Date.now() });
    assert.equal(missing.status, 404);
  });

  it('is refused on a read-only dashboard as the other actions are', async (t) => {
    const docket = await start(t, { dashboard: { readOnly: true } });
    await docket.client.add('quick', { key: 'kept', delay: 600_000 })(1);
    const headers = { cookie: ADMIN };
    const cancel = await callApi(docket, 'POST', 'cancel', { key: 'kept' }, headers);
    const body = { key: 'kept', at: Date.now() };
    const refused = await callApi(docket, 'POST', 'replace-at', body, headers);
    assert.ok(cancel.status >= 400);
    assert.deepEqual([refused.status, refused.body.message], [cancel.status, cancel.body.message]);
    assert.equal((await docket.client.getExecution('kept'))?.state, 'scheduled');
  });

  it('is the Run at… button of a scheduled task’s page', { skip: chromiumMissing() }, async (t) => {
    const docket = await start(t);
    await docket.client.add('quick', { key: 'page-moved', delay: 600_000 })(2);
    const browser = await launchChromium();
    t.after(() => browser.close());
    const context = await browser.newContext();
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const at = new Date(Date.now() + 7_200_000);
    at.setMilliseconds(0);
    page.once('dialog', (dialog) => void dialog.accept(at.toISOString()));
    await page.goto(`${docket.url}/docket/tasks/page-moved`);
    await page.waitForSelector('#status.live');
    await page.click('#task-summary button[data-action="replace-at"]');
    await page.waitForFunction(
      (text: string) => document.body.textContent?.includes(text) ?? false,
      `due ${at.toISOString()}`,
    );
    const moved = await docket.client.getExecution('page-moved');
    assert.equal(moved?.when.toISOString(), at.toISOString());
  });
});

// The page function above runs in the browser; this project compiles without the DOM library.
declare const document: any;
