// The sample app's /metrics over real HTTP: the counters move by what one request caused.
// prom-client's registry is per process, so each assertion compares two scrapes, on series
// labelled with this test's own docket name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSampleApp, type SampleApp } from '../../../sample-app/create-sample-app.js';
import { DocketClient } from '../../../lib/index.js';
import { REDIS_URL, uniqueName, waitFor } from '../../utils.js';
import { call, deltas, scrape, series, total, untilStatus } from './helpers.js';

const COUNTERS = [
  'docket_tasks_added_total',
  'docket_tasks_replaced_total',
  'docket_tasks_scheduled_total',
  'docket_tasks_cancelled_total',
  'docket_tasks_started_total',
  'docket_tasks_completed_total',
  'docket_tasks_succeeded_total',
  'docket_tasks_failed_total',
  'docket_tasks_retried_total',
  'docket_task_duration_seconds_count',
  'docket_task_punctuality_seconds_count',
];

/** What a scrape delta looks like when nothing happened, with `changes` over it. */
function expected(changes: Record<string, number>): Record<string, number> {
  return { ...Object.fromEntries(COUNTERS.map((name) => [name, 0])), ...changes };
}

describe('sample app /metrics', { timeout: 60_000 }, () => {
  const name = uniqueName('metrics');
  let sample: SampleApp;

  before(async () => {
    sample = await createSampleApp({
      url: REDIS_URL,
      name,
      port: 0,
      host: '127.0.0.1',
      logger: false,
      worker: { minimumCheckInterval: 200 },
    });
  });
  after(() => sample?.app.close());

  it('counts a welcome mail added over HTTP and its one execution', async () => {
    const labels = { docket: name, task: 'sendWelcome' };
    const before = await scrape(sample.url);
    const posted = await call(sample.url, 'POST', '/tasks/welcome', { userId: 'ada' });
    assert.equal(posted.status, 202);
    const got = await call(sample.url, 'GET', `/tasks/${posted.body.key}?wait=15000`);
    assert.equal(got.body.state, 'completed');
    const after = await scrape(sample.url);

    assert.deepEqual(
      deltas(before, after, COUNTERS, labels),
      expected({
        docket_tasks_added_total: 1,
        docket_tasks_scheduled_total: 1,
        docket_tasks_started_total: 1,
        docket_tasks_completed_total: 1,
        docket_tasks_succeeded_total: 1,
        docket_task_duration_seconds_count: 1,
        docket_task_punctuality_seconds_count: 1,
      }),
    );
    // executions are counted under the worker that ran them; adds under no worker
    const started = series(after, 'docket_tasks_started_total', labels);
    assert.deepEqual(
      started.map((s) => s.labels.worker),
      [got.body.worker],
    );
    assert.deepEqual(
      series(after, 'docket_tasks_added_total', labels).map((s) => s.labels.worker),
      [''],
    );
    assert.equal(total(after, 'docket_tasks_running', labels), 0);
    // depth gauges are read from Redis at scrape time
    assert.deepEqual(series(after, 'docket_queue_depth', { docket: name }).length, 1);
    assert.equal(total(after, 'docket_queue_depth', { docket: name }), 0);
    assert.equal(series(after, 'docket_schedule_depth', { docket: name }).length, 1);
    assert.equal(series(after, 'docket_strikes_in_effect', { docket: name }).length, 1);
  });

  it('shows what is paused as docket_paused, read from Redis at scrape time', async (t) => {
    const client = sample.app.get(DocketClient);
    await client.pause();
    await client.pause('sendWelcome');
    // the sample app's docket is shared with the next tests: resumed even when a check fails
    t.after(async () => {
      await client.resume();
      await client.resume('sendWelcome');
    });
    const paused = await scrape(sample.url);
    assert.deepEqual(
      series(paused, 'docket_paused', { docket: name })
        .map((s) => `${s.labels.task}=${s.value}`)
        .sort(),
      ['*=1', 'sendWelcome=1'],
    );
    await client.resume();
    await client.resume('sendWelcome');
    const resumed = await scrape(sample.url);
    assert.deepEqual(series(resumed, 'docket_paused', { docket: name }), []);
  });

  it('counts every attempt of a failing task: three started, three failed, two retried', async () => {
    const labels = { docket: name, task: 'sendWelcome' };
    const before = await scrape(sample.url);
    // the sample's mailer bounces the reserved .invalid domain; sendWelcome has 3 attempts
    const posted = await call(sample.url, 'POST', '/tasks/welcome', { userId: 'nobody.invalid' });
    const got = await call(sample.url, 'GET', `/tasks/${posted.body.key}?wait=20000`);
    assert.equal(got.body.state, 'failed');
    assert.match(got.body.error, /^MailRejectedError: nobody\.invalid: no such recipient/);
    const after = await scrape(sample.url);

    assert.deepEqual(
      deltas(before, after, COUNTERS, labels),
      expected({
        docket_tasks_added_total: 1,
        docket_tasks_scheduled_total: 1,
        docket_tasks_started_total: 3,
        docket_tasks_completed_total: 3,
        docket_tasks_failed_total: 3,
        docket_tasks_retried_total: 2,
        docket_task_duration_seconds_count: 3,
        docket_task_punctuality_seconds_count: 3,
      }),
    );
  });

  it('shows a future task in docket_schedule_depth and counts its cancellation', async () => {
    const labels = { docket: name, task: 'generateReport' };
    const key = `report-${name}`;
    const before = await scrape(sample.url);
    const posted = await call(sample.url, 'POST', '/tasks/report', {
      customerId: 1,
      delayMs: 60_000,
      key,
    });
    assert.equal(posted.body.state, 'scheduled');
    const scheduled = await scrape(sample.url);
    assert.equal(total(scheduled, 'docket_schedule_depth', { docket: name }), 1);
    assert.equal(total(scheduled, 'docket_queue_depth', { docket: name }), 0);

    assert.equal((await call(sample.url, 'DELETE', `/tasks/${key}`)).body.state, 'cancelled');
    const after = await scrape(sample.url);
    assert.equal(total(after, 'docket_schedule_depth', { docket: name }), 0);
    assert.deepEqual(
      deltas(before, after, COUNTERS, labels),
      expected({
        // a report with a key is rescheduled with replace
        docket_tasks_replaced_total: 1,
        docket_tasks_scheduled_total: 1,
        docket_tasks_cancelled_total: 1,
      }),
    );
  });

  it('counts an add of a live key as added, not scheduled', async () => {
    const labels = { docket: name, task: 'sendWelcome' };
    const key = `once-${name}`;
    const before = await scrape(sample.url);
    const body = { userId: 'once', delayMs: 60_000, key };
    assert.equal(
      (await call(sample.url, 'POST', '/tasks/welcome', body)).body.disposition,
      'scheduled',
    );
    const again = await call(sample.url, 'POST', '/tasks/welcome', body);
    assert.equal(again.body.disposition, 'already_scheduled');
    await call(sample.url, 'DELETE', `/tasks/${key}`);
    const after = await scrape(sample.url);
    assert.deepEqual(
      deltas(before, after, COUNTERS, labels),
      expected({
        docket_tasks_added_total: 2,
        docket_tasks_scheduled_total: 1,
        docket_tasks_cancelled_total: 1,
      }),
    );
  });

  it('counts the cancellation of a running task', async () => {
    const labels = { docket: name, task: 'generateReport' };
    const before = await scrape(sample.url);
    const posted = await call(sample.url, 'POST', '/tasks/report', {
      customerId: 2,
      sections: 50,
    });
    await waitFor(
      async () =>
        (await call(sample.url, 'GET', `/tasks/${posted.body.key}`)).body.state === 'running',
      'the report to run',
    );
    await call(sample.url, 'DELETE', `/tasks/${posted.body.key}`);
    const got = await call(sample.url, 'GET', `/tasks/${posted.body.key}?wait=10000`);
    assert.equal(got.body.state, 'cancelled');
    const after = await scrape(sample.url);
    assert.deepEqual(
      deltas(before, after, COUNTERS, labels),
      expected({
        docket_tasks_added_total: 1,
        docket_tasks_scheduled_total: 1,
        docket_tasks_started_total: 1,
        docket_tasks_completed_total: 1,
        docket_tasks_cancelled_total: 1,
        docket_task_duration_seconds_count: 1,
        docket_task_punctuality_seconds_count: 1,
      }),
    );
  });

  it('serves Node.js process metrics next to the docket ones', async () => {
    const samples = await scrape(sample.url);
    assert.ok(series(samples, 'process_cpu_user_seconds_total', {}).length > 0);
    assert.ok(series(samples, 'nodejs_eventloop_lag_seconds', {}).length > 0);
  });
});

describe('sample app /health/ready with HEALTH_MAX_QUEUE_DEPTH', { timeout: 60_000 }, () => {
  it('is 503 while more tasks wait than allowed', async () => {
    const name = uniqueName('depth');
    // a producer-only process: nothing drains the queue
    const sample = await createSampleApp({
      url: REDIS_URL,
      name,
      port: 0,
      host: '127.0.0.1',
      logger: false,
      worker: false,
      health: { maxQueueDepth: 2 },
    });
    try {
      const ready = await untilStatus(sample.url, '/health/ready', 200, 5_000);
      assert.equal(ready.body.details.docket.queueDepth, 0);
      for (let i = 0; i < 3; i++) {
        await call(sample.url, 'POST', '/tasks/welcome', { userId: `user-${i}` });
      }
      const full = await call(sample.url, 'GET', '/health/ready');
      assert.equal(full.status, 503);
      assert.equal(full.body.status, 'error');
      assert.equal(full.body.error.docket.status, 'down');
      assert.equal(full.body.error.docket.queueDepth, 3);
      assert.match(full.body.error.docket.message, /queue depth 3 exceeds 2/);
      // a process without a worker has nothing to be stuck: it stays live
      assert.equal((await call(sample.url, 'GET', '/health/live')).status, 200);
    } finally {
      await sample.app.close();
    }
  });
});
