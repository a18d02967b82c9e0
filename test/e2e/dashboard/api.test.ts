import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitFor } from '../../utils.js';
import { ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';

describe('dashboard JSON API (no arguments shown, no throughput)', () => {
  let docket: DashboardApp;

  async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
    const response = await fetch(`${docket.url}/docket/api/${path}`, {
      method,
      headers: {
        cookie: `${ADMIN_COOKIE.name}=${ADMIN_COOKIE.value}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  before(async () => {
    docket = await startDashboardApp({
      dashboard: { showArguments: false, throughput: false },
    });
  });
  after(() => docket?.close());

  it('lists scheduled tasks without their arguments', async () => {
    await docket.client.add('quick', { key: 'secret', delay: 600_000 })(42);
    const { status, body } = await call('GET', 'scheduled');
    assert.equal(status, 200);
    assert.deepEqual(
      body.tasks.map((t: any) => [t.key, t.taskName, t.args, t.state]),
      [['secret', 'quick', null, 'scheduled']],
    );
    assert.equal(body.total, 1);
  });

  it('samples depths but counts no throughput', async () => {
    const overview = await waitFor(async () => {
      const { body } = await call('GET', 'overview');
      return body.samples.length > 0 && body;
    }, 'a sample');
    assert.equal(overview.throughput, false);
    assert.equal(overview.samples[0].completed, null);
    assert.equal(overview.counts.scheduled, 1);
    const last = overview.samples.at(-1).at;
    const { body } = await call('GET', `overview?since=${last}`);
    assert.ok(body.samples.every((s: any) => s.at > last));
  });

  it('strikes with typed values, restores by id, and refuses what cannot work', async () => {
    const struck = await call('POST', 'strike', {
      task: 'quick',
      parameter: 'n',
      operator: 'between',
      value: 'json:[10,20]',
    });
    assert.equal(struck.status, 200);
    assert.deepEqual(
      struck.body.strikes.map((s: any) => [s.task, s.parameter, s.operator, s.value, s.type]),
      [['quick', 'n', 'between', '[10,20]', 'json']],
    );
    assert.equal((await docket.client.add('quick')(15)).disposition, 'struck');

    const bad = await call('POST', 'strike', { parameter: 'n', value: 'int:ten' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /int: takes an integer/);
    assert.equal((await call('POST', 'strike', {})).status, 400);
    assert.equal((await call('POST', 'restore', { id: 'no such strike' })).status, 404);

    const restored = await call('POST', 'restore', { id: struck.body.strikes[0].id });
    assert.deepEqual(restored.body.strikes, []);
    assert.equal((await docket.client.add('quick')(15)).disposition, 'scheduled');
  });

  it('gives each strike value its type', async () => {
    const given = ['int:1000', '1000', 'float:1.5', 'bool:true', 'date:2026-01-01T00:00:00Z'];
    for (const value of given) {
      assert.equal((await call('POST', 'strike', { parameter: 'n', value })).status, 200, value);
    }
    const { body } = await call('GET', 'strikes');
    assert.deepEqual(body.map((s: any) => [s.value, s.type]).sort(), [
      ['"1000"', 'str'],
      ['1.5', 'float'],
      ['1000', 'int'],
      ['2026-01-01T00:00:00.000Z', 'date'],
      ['true', 'bool'],
    ]);
    for (const strike of body) {
      assert.equal((await call('POST', 'restore', { id: strike.id })).status, 200);
    }
  });

  it('retries every dead letter, and wants a key to cancel', async () => {
    await Promise.all(
      [1, 2].map((id) =>
        docket.client
          .add('flaky', { key: `order-${id}` })({ id, amount: 1n })
          .then((e) => e.result({ timeout: 10_000 }).catch(() => undefined)),
      ),
    );
    const failures = await call('GET', 'failures');
    assert.ok(Array.isArray(failures.body.recent));
    // the dead letters are a page of their own, without arguments here (showArguments: false)
    const letters = await call('GET', 'dead-letters');
    assert.deepEqual(letters.body.items.map((d: any) => d.args).sort(), [null, null]);
    docket.controls.healed = true;
    assert.deepEqual((await call('POST', 'retry', { all: true })).body, { retried: 2 });
    assert.equal((await call('POST', 'cancel', {})).status, 400);
    assert.equal((await call('POST', 'cancel', { key: 'never-added' })).body.state, null);
  });
});
