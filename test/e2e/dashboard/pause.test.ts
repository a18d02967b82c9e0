// Pause, resume and explain through the dashboard's JSON API. Each test has a docket of its own.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { waitFor } from '../../utils.js';
import { ADMIN, callApi, startDashboardApp, type DashboardApp } from './fixture.js';

const call = callApi;

async function start(t: TestContext, options: Parameters<typeof startDashboardApp>[0] = {}) {
  const docket = await startDashboardApp(options);
  t.after(() => docket.close());
  return docket;
}

/** The overview once the worker has read the one queued task and holds it (counted as held). */
function heldOverview(docket: DashboardApp) {
  return waitFor(
    async () => {
      const { body } = await call(docket, 'GET', 'overview');
      return body.counts.held === 1 && body;
    },
    'the task held',
    20_000,
  );
}

describe('dashboard: pause and resume', () => {
  it('pauses and resumes a task, shown in the polled JSON', async (t) => {
    const docket = await start(t);
    const paused = await call(docket, 'POST', 'pause', { task: 'quick' });
    assert.equal(paused.status, 200);
    assert.deepEqual(paused.body, { paused: { docket: false, tasks: ['quick'] } });
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['quick'] });

    const execution = await docket.client.add('quick', { key: 'held-1' })(21);
    // the worker reads it and holds it: it stays queued, counted as held
    const overview = await heldOverview(docket);
    assert.deepEqual(overview.paused, { docket: false, tasks: ['quick'] });
    assert.equal(overview.counts.queued, 1, 'held work counts as queued');
    const quick = overview.tasks.find((task: any) => task.name === 'quick');
    assert.deepEqual(quick, { name: 'quick', workers: 1, paused: true });
    assert.ok(overview.tasks.some((task: any) => task.name === 'crunch' && !task.paused));

    const { body: scheduled } = await call(docket, 'GET', 'scheduled');
    assert.deepEqual(
      scheduled.tasks.map((task: any) => [task.key, task.state, task.paused]),
      [['held-1', 'queued', true]],
    );
    assert.equal((await docket.client.getExecution('held-1'))?.state, 'queued');

    const resumed = await call(docket, 'POST', 'resume', { task: 'quick' });
    assert.equal(resumed.status, 200);
    assert.deepEqual(resumed.body, { paused: { docket: false, tasks: [] } });
    assert.equal(await execution.result({ timeout: 20_000 }), 42);
    const after = await call(docket, 'GET', 'overview');
    assert.deepEqual(after.body.paused, { docket: false, tasks: [] });
    assert.equal(after.body.counts.held, 0);
  });

  it('pauses and resumes the whole docket', async (t) => {
    const docket = await start(t);
    const paused = await call(docket, 'POST', 'pause', {});
    assert.deepEqual(paused.body, { paused: { docket: true, tasks: [] } });
    assert.equal((await docket.client.paused()).docket, true);
    const execution = await docket.client.add('quick', { key: 'docket-held' })(1);
    const overview = await heldOverview(docket);
    assert.equal(overview.paused.docket, true);
    // a task paused with the docket is not paused by name
    assert.ok(overview.tasks.every((task: any) => task.paused === false));
    const { body: scheduled } = await call(docket, 'GET', 'scheduled');
    assert.equal(scheduled.tasks[0].paused, true);

    // resuming the docket leaves a task paused by name paused
    await call(docket, 'POST', 'pause', { task: 'crunch' });
    const resumed = await call(docket, 'POST', 'resume', {});
    assert.deepEqual(resumed.body, { paused: { docket: false, tasks: ['crunch'] } });
    assert.equal(await execution.result({ timeout: 20_000 }), 2);
  });

  it('lists no "*" task for a worker with a fallback task', async (t) => {
    const docket = await start(t, { worker: { fallbackTask: 'quick' } });
    const body = await waitFor(
      async () => {
        const { body } = await call(docket, 'GET', 'overview');
        return body.workers.length > 0 && body;
      },
      'the worker',
      20_000,
    );
    assert.ok(body.workers[0].tasks.includes('*'));
    assert.deepEqual(
      body.tasks.map((task: any) => task.name),
      body.workers[0].tasks.filter((name: string) => name !== '*').sort(),
    );
  });

  it('refuses a body that names no task properly', async (t) => {
    const docket = await start(t);
    for (const body of [{ task: '' }, { task: '  ' }, { task: 5 }, [], { task: '*' }]) {
      const refused = await call(docket, 'POST', 'pause', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(typeof refused.body.message, 'string');
    }
    assert.equal((await call(docket, 'POST', 'resume', { task: '' })).status, 400);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: [] });
  });

  it('refuses to pause or resume without the guard’s consent', async (t) => {
    const docket = await start(t);
    const stranger = await call(docket, 'POST', 'pause', {}, {});
    assert.equal(stranger.status, 401);
    assert.equal(stranger.body.message, 'sign in as an admin to act on tasks');
    assert.equal((await call(docket, 'POST', 'pause', { task: 'quick' }, {})).status, 401);
    // with the cookie but not JSON: what a cross-site form would send
    const form = await fetch(`${docket.url}/docket/api/pause`, {
      method: 'POST',
      headers: { cookie: ADMIN, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'task=quick',
    });
    assert.equal(form.status, 415);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: [] });

    await docket.client.pause('quick');
    assert.equal((await call(docket, 'POST', 'resume', { task: 'quick' }, {})).status, 401);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['quick'] });
    // reading what is paused needs no action permission
    const { status, body } = await call(docket, 'GET', 'overview', undefined, {});
    assert.equal(status, 200);
    assert.deepEqual(body.paused, { docket: false, tasks: ['quick'] });
  });

  it('refuses them on a read-only dashboard, whatever the guard says', async (t) => {
    const docket = await start(t, { dashboard: { readOnly: true } });
    const refused = await call(docket, 'POST', 'pause', {});
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'the dashboard is read-only');
    await docket.client.pause();
    assert.equal((await call(docket, 'POST', 'resume', {})).status, 403);
    assert.equal((await docket.client.paused()).docket, true);
  });

  it('refuses them without a guard unless allowed', async (t) => {
    const docket = await start(t, { dashboard: { guard: undefined } });
    const refused = await call(docket, 'POST', 'pause', { task: 'quick' }, {});
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /no guard for its actions/);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: [] });
  });
});

describe('dashboard: why a task waits', () => {
  const explain = (docket: DashboardApp, key: string) =>
    call(docket, 'GET', `tasks/${encodeURIComponent(key)}/explain`, undefined, {});

  it('explains a scheduled task: due at its time', async (t) => {
    const docket = await start(t);
    const execution = await docket.client.add('quick', { key: 'later', delay: 600_000 })(1);
    const { status, body } = await explain(docket, 'later');
    assert.equal(status, 200);
    assert.equal(body.key, 'later');
    assert.equal(body.state, 'scheduled');
    assert.equal(body.reason, 'scheduled');
    assert.equal(typeof body.detail, 'string');
    assert.equal(body.until, execution.when.toISOString());
    assert.equal(body.since, undefined);
  });

  it('explains a task held by a pause, by path and by query', async (t) => {
    const docket = await start(t);
    await call(docket, 'POST', 'pause', { task: 'quick' });
    const key = 'orders/42 ?#%';
    await docket.client.add('quick', { key })(1);
    // paused from its add; held once the worker has read it
    const byPath = await waitFor(
      async () => {
        const answer = await explain(docket, key);
        return /held until resume/.test(answer.body.detail) && answer;
      },
      'the task held',
      20_000,
    );
    assert.equal(byPath.status, 200);
    assert.deepEqual(
      [byPath.body.key, byPath.body.state, byPath.body.reason],
      [key, 'queued', 'paused'],
    );
    assert.match(byPath.body.detail, /task quick is paused/);
    const byQuery = await call(docket, 'GET', `explain?key=${encodeURIComponent(key)}`);
    assert.deepEqual(byQuery.body, byPath.body);

    // a key no path can carry
    await call(docket, 'POST', 'pause', {});
    await docket.client.add('quick', { key: '..' })(2);
    const dots = await call(docket, 'GET', 'explain?key=..');
    assert.equal(dots.status, 200);
    assert.equal(dots.body.reason, 'paused');
    assert.match(dots.body.detail, /^the docket is paused/);
  });

  it('answers 404 for an unknown key and 400 without a key', async (t) => {
    const docket = await start(t);
    const unknown = await explain(docket, 'never-added');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /no task never-added/);
    assert.equal((await call(docket, 'GET', 'explain?key=never-added')).status, 404);
    assert.equal((await call(docket, 'GET', 'explain')).status, 400);
  });

  it('explains on Fastify, a key with a slash included', async (t) => {
    const docket = await start(t, { platform: 'fastify' });
    await docket.client.add('quick', { key: 'a/b', delay: 600_000 })(1);
    const { status, body } = await explain(docket, 'a/b');
    assert.equal(status, 200);
    assert.deepEqual([body.key, body.reason], ['a/b', 'scheduled']);
    assert.equal((await explain(docket, 'c/d')).status, 404);
  });
});
