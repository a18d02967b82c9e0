import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DocketClient } from '../../lib/index.js';
import { createSampleApp, type SampleApp } from '../../sample-app/create-sample-app.js';
import { REDIS_URL, uniqueName } from '../utils.js';

interface Json {
  status: number;
  body: any;
}

/**
 * The sample app on docket `name` of the test backend, on a free loopback port, without logs;
 * its dashboard is read-only unless `dashboardPassword` is given.
 */
function sampleApp(name: string, dashboardPassword: string | null = null): Promise<SampleApp> {
  return createSampleApp({
    url: REDIS_URL,
    name,
    port: 0,
    host: '127.0.0.1',
    logger: false,
    dashboardPassword,
  });
}

/** `sampleApp` on a docket of its own, closed after the test `t`. */
async function startSample(
  t: { after(fn: () => Promise<void>): void },
  dashboardPassword: string | null = null,
): Promise<SampleApp> {
  const sample = await sampleApp(uniqueName('sample'), dashboardPassword);
  t.after(() => sample.app.close());
  return sample;
}

describe('sample app over HTTP', () => {
  const name = uniqueName('sample');
  let sample: SampleApp;

  async function call(method: string, path: string, body?: unknown): Promise<Json> {
    const response = await fetch(`${sample.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  before(async () => {
    sample = await sampleApp(name);
  });
  after(async () => {
    await sample?.app.close();
  });

  it('sends a welcome mail now and shows its result', async () => {
    const before = Date.now();
    const posted = await call('POST', '/tasks/welcome', { userId: 'ada', locale: 'fr' });
    assert.equal(posted.status, 202);
    assert.equal(posted.body.disposition, 'scheduled');
    assert.equal(posted.body.state, 'queued');
    assert.ok(Date.parse(posted.body.when) >= before - 5);

    const got = await call('GET', `/tasks/${posted.body.key}?wait=10000`);
    assert.equal(got.status, 200);
    assert.equal(got.body.key, posted.body.key);
    assert.equal(got.body.taskName, 'sendWelcome');
    assert.equal(got.body.state, 'completed');
    assert.equal(got.body.error, null);
    assert.equal(typeof got.body.worker, 'string');
    assert.ok(Date.parse(got.body.completedAt) >= Date.parse(got.body.startedAt));
    assert.equal(got.body.result.to, 'ada');
    assert.equal(got.body.result.subject, 'Bienvenue à bord !');

    const again = await call('GET', `/tasks/${posted.body.key}`);
    assert.equal(again.body.state, 'completed');
    assert.deepEqual(again.body.result, got.body.result);
  });

  it('sends a delayed welcome mail once, not before its time', async () => {
    const key = `welcome-${name}`;
    const posted = await call('POST', '/tasks/welcome', { userId: 'bob', delayMs: 400, key });
    assert.equal(posted.status, 202);
    assert.deepEqual(
      { key: posted.body.key, state: posted.body.state, disposition: posted.body.disposition },
      { key, state: 'scheduled', disposition: 'scheduled' },
    );
    const when = Date.parse(posted.body.when);

    const repeated = await call('POST', '/tasks/welcome', { userId: 'bob', delayMs: 400, key });
    assert.equal(repeated.body.disposition, 'already_scheduled');
    assert.equal(Date.parse(repeated.body.when), when);

    const waiting = await call('GET', `/tasks/${key}`);
    assert.equal(waiting.status, 200);
    assert.ok(['scheduled', 'queued', 'running', 'completed'].includes(waiting.body.state));

    const got = await call('GET', `/tasks/${key}?wait=10000`);
    assert.equal(got.body.state, 'completed');
    assert.ok(Date.parse(got.body.startedAt) >= when, 'started before its time');
    assert.equal(got.body.result.to, 'bob');
    assert.equal(got.body.result.subject, 'Welcome aboard!');
  });

  it('generates a report and shows its progress', async () => {
    const posted = await call('POST', '/tasks/report', { customerId: 42, sections: 3 });
    assert.equal(posted.status, 202);
    const got = await call('GET', `/tasks/${posted.body.key}?wait=10000`);
    assert.equal(got.body.state, 'completed');
    assert.equal(got.body.taskName, 'generateReport');
    assert.deepEqual(
      { current: got.body.progress.current, total: got.body.progress.total },
      { current: 3, total: 3 },
    );
    assert.equal(got.body.result.customerId, 42);
    assert.equal(got.body.result.sections.length, 3);

    const execution = await sample.app.get(DocketClient).getExecution(posted.body.key);
    assert.ok(execution);
    const report = await execution.result<{ generatedAt: Date; sections: string[] }>({
      timeout: 2_000,
    });
    assert.ok(report.generatedAt instanceof Date);
    assert.equal(report.generatedAt.toISOString(), got.body.result.generatedAt);
    assert.deepEqual(report.sections, got.body.result.sections);
  });

  it('cancels a report that waits for its time', async () => {
    const posted = await call('POST', '/tasks/report', {
      customerId: 7,
      delayMs: 60_000,
      key: `report-${name}`,
    });
    assert.equal(posted.body.state, 'scheduled');
    const cancelled = await call('DELETE', `/tasks/report-${name}`);
    assert.equal(cancelled.status, 202);
    assert.equal(cancelled.body.state, 'cancelled');
    const got = await call('GET', `/tasks/report-${name}?wait=1000`);
    assert.equal(got.body.state, 'cancelled');
    assert.equal(got.body.startedAt, null);
    assert.equal('result' in got.body, false);
  });

  it('answers 404 for an unknown key and 400 for a bad body', async () => {
    const missing = await call('GET', `/tasks/no-such-key-${name}`);
    assert.equal(missing.status, 404);
    const bad = await call('POST', '/tasks/welcome', { delayMs: -1 });
    assert.equal(bad.status, 400);
    const badWait = await call('GET', `/tasks/anything?wait=soon`);
    assert.equal(badWait.status, 400);
  });
});

describe("the sample app's dashboard", () => {
  it('is mounted at /docket, read-only without a password', async (t) => {
    const sample = await startSample(t);
    const page = await fetch(`${sample.url}/docket`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const overview = await fetch(`${sample.url}/docket/api/overview`);
    assert.equal(overview.status, 200);
    const action = await fetch(`${sample.url}/docket/api/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'anything' }),
    });
    assert.equal(action.status, 403);
  });

  it('allows its actions to admin with DASHBOARD_PASSWORD (HTTP basic auth)', async (t) => {
    const sample = await startSample(t, 's3cret');
    const client = sample.app.get(DocketClient);
    await client.add('sendWelcome', { key: 'later', delay: 60_000 })('ada');
    const cancel = (authorization?: string) =>
      fetch(`${sample.url}/docket/api/cancel`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(authorization ? { authorization } : {}),
        },
        body: JSON.stringify({ key: 'later' }),
      });
    const basic = (user: string, password: string) =>
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const anonymous = await cancel();
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    assert.equal((await cancel(basic('admin', 'wrong'))).status, 401);
    assert.equal((await cancel(basic('root', 's3cret'))).status, 401);
    assert.equal((await client.getExecution('later'))?.state, 'scheduled');
    const allowed = await cancel(basic('admin', 's3cret'));
    assert.ok(allowed.status < 300, `status ${allowed.status}`);
    assert.equal((await client.getExecution('later'))?.state, 'cancelled');
  });
});
