import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDashboardApp } from './fixture.js';

interface Row {
  key: string;
  state: string;
  waitingFor: string[] | null;
}

describe('dashboard lists: executions waiting for their dependencies', () => {
  it('are listed as scheduled with the keys they wait for, in the paged list and the overview', async (t) => {
    const docket = await startDashboardApp();
    t.after(() => docket.close());
    await docket.client.add('quick', { key: 'first', delay: 600_000 })(1);
    await docket.client.add('quick', {
      key: 'then',
      after: ['first', 'gone'],
      onDependencyFailure: 'run',
    })(2);
    const read = async (path: string) => {
      const response = await fetch(`${docket.url}/docket/${path}`);
      assert.equal(response.status, 200, path);
      return (await response.json()) as { total: number; items?: Row[]; tasks?: Row[] };
    };
    // (the overview orders by due time, where the waiter's is its add time)
    const rows = (page: { items?: Row[]; tasks?: Row[] }) =>
      (page.items ?? page.tasks ?? [])
        .map((r) => [r.key, r.state, r.waitingFor])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const expected = [
      ['first', 'scheduled', null],
      ['then', 'scheduled', ['first']],
    ];
    const page = await read('api/tasks?state=scheduled');
    assert.equal(page.total, 2);
    assert.deepEqual(rows(page), expected);
    assert.deepEqual(rows(await read('api/tasks')), expected);
    // pages across the queue and the waiting executions
    const one = await read('api/tasks?state=scheduled&offset=0&limit=1');
    const two = await read('api/tasks?state=scheduled&offset=1&limit=1');
    const past = await read('api/tasks?state=scheduled&offset=2&limit=1');
    assert.deepEqual(
      [one.total, rows(one), two.total, rows(two), past.total, rows(past)],
      [2, [expected[0]], 2, [expected[1]], 2, []],
    );
    assert.deepEqual(rows(await read('api/tasks?q=then')), [expected[1]]);
    assert.deepEqual(rows(await read('api/scheduled')), expected);
  });
});
