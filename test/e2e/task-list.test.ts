// DocketInspector.tasks(): the pages of the live executions, in the order the docket holds
// them, from every place a live execution can be (running, due in two lanes, in a concurrency
// line, held by a pause, in the queue, waiting for dependencies). An unfiltered list is counted
// and cut without reading every record; a filtered one is read in pieces: both must give what
// the docket holds, page by page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DOCKET_STORE } from '../../lib/docket.tokens.js';
import { DocketTask, type LiveState, type TaskListOptions } from '../../lib/index.js';
import type { DocketStore } from '../../lib/store/docket-store.js';
import { deferred, useDocket, waitFor, waitsInLine, type TestDocket } from '../utils.js';

@Injectable()
class ListTasks {
  readonly gate = deferred();
  private readonly starts = new Map<string, ReturnType<typeof deferred<void>>>();

  /** Resolves once the task labelled `label` has started. */
  started(label: string): Promise<void> {
    if (!this.starts.has(label)) this.starts.set(label, deferred());
    return this.starts.get(label)!.promise;
  }

  private start(label: string): void {
    if (!this.starts.has(label)) this.starts.set(label, deferred());
    this.starts.get(label)!.resolve();
  }

  @DocketTask({ name: 'list.hold', concurrency: { max: 1 } })
  async hold(label: string): Promise<void> {
    this.start(label);
    await this.gate.promise;
  }

  @DocketTask('list.busy')
  async busy(label: string): Promise<void> {
    this.start(label);
    await this.gate.promise;
  }

  @DocketTask('list.later')
  later(n: number): number {
    return n;
  }

  @DocketTask('list.quick')
  quick(n: number): number {
    return n;
  }
}

const RUNNING = ['h1', 'b1'];
const LANE_2 = ['p1', 'p2', 'p3'];
const LANE_5 = ['q1', 'q2', 'q3', 'q4', 'q5'];
const LINE = ['h2'];
const HELD = ['l1', 'l2', 'l3'];
const QUEUE = ['s1', 's2', 's3', 's4'];
const WAITING = ['w1', 'w2'];

/** Every key of each list, in list order. */
const EXPECTED: Record<string, string[]> = {
  running: RUNNING,
  queued: [...LANE_2, ...LANE_5, ...LINE, ...HELD],
  scheduled: [...QUEUE, ...WAITING],
  'queued,scheduled': [...LANE_2, ...LANE_5, ...LINE, ...HELD, ...QUEUE, ...WAITING],
  'running,queued,scheduled': [
    ...LANE_2,
    ...RUNNING,
    ...LANE_5,
    ...LINE,
    ...HELD,
    ...QUEUE,
    ...WAITING,
  ],
};

/**
 * A docket with live executions in every place, on a worker of two slots: `list.later` paused
 * (its due tasks held), `h1` and `b1` running (the slots full, so the due ones stay in their
 * lanes), `h2` in the concurrency line behind `h1`.
 */
async function fillEveryPlace(docket: TestDocket): Promise<void> {
  const tasks = docket.module.get(ListTasks);
  const { client } = docket;
  await client.pause('list.later');
  for (const [n, key] of HELD.entries()) await client.add('list.later', { key })(n);
  void docket.worker.runForever();
  await waitFor(async () => (await docket.inspector.counts()).held === HELD.length, 'held work');
  await client.add('list.hold', { key: 'h1' })('h1');
  await tasks.started('h1');
  await client.add('list.hold', { key: 'h2' })('h2');
  await waitFor(() => waitsInLine(docket, 'h2', 1), 'h2 to wait in the concurrency line');
  await client.add('list.busy', { key: 'b1' })('b1');
  await tasks.started('b1');
  for (const [n, key] of LANE_5.entries()) await client.add('list.quick', { key })(n);
  for (const [n, key] of LANE_2.entries()) {
    await client.add('list.quick', { key, priority: 2 })(n);
  }
  const now = Date.now();
  for (const [n, key] of QUEUE.entries()) {
    await client.add('list.quick', { key, when: new Date(now + 600_000 + n * 1_000) })(n);
  }
  for (const key of WAITING) await client.add('list.quick', { key, after: 'h1' })(0);
}

describe('read model: pages of the live tasks', { timeout: 120_000 }, () => {
  it('lists every place in order, unfiltered and filtered alike, page by page', async (t) => {
    const docket = await useDocket(t, [ListTasks], {
      worker: { concurrency: 2, minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    t.after(() => docket.module.get(ListTasks).gate.resolve());
    await fillEveryPlace(docket);

    const counts = await docket.inspector.counts();
    assert.deepEqual(counts, {
      running: RUNNING.length,
      queued: EXPECTED.queued.length,
      scheduled: EXPECTED.scheduled.length,
      held: HELD.length,
    });

    const page = async (options: TaskListOptions) => {
      const list = await docket.inspector.tasks(options);
      return { total: list.total, keys: list.tasks.map((task) => task.key) };
    };
    for (const [states, keys] of Object.entries(EXPECTED)) {
      const given = states.split(',') as LiveState[];
      for (const limit of [1, 3, 50]) {
        for (let offset = 0; offset <= keys.length; offset++) {
          const want = { total: keys.length, keys: keys.slice(offset, offset + limit) };
          const what = `${states} from ${offset}, ${limit} a page`;
          assert.deepEqual(await page({ states: given, offset, limit }), want, what);
          // every task name holds 'list.': the search passes them all, reading every record
          assert.deepEqual(
            await page({ states: given, search: 'list.', offset, limit }),
            want,
            `${what}, searched`,
          );
        }
      }
    }

    const [first] = (await docket.inspector.tasks({ states: ['queued'], offset: 8, limit: 4 }))
      .tasks;
    assert.deepEqual([first.key, first.state, first.paused], ['h2', 'queued', undefined]);
    const held = await docket.inspector.tasks({ states: ['queued'], search: 'l', limit: 50 });
    assert.deepEqual(
      held.tasks.filter((task) => task.paused).map((task) => task.key),
      HELD,
    );
    const waiting = await docket.inspector.tasks({ states: ['scheduled'], offset: 4 });
    assert.deepEqual(
      waiting.tasks.map((task) => [task.key, task.waitingFor]),
      WAITING.map((key) => [key, ['h1']]),
    );
    const running = await docket.inspector.tasks({ states: ['running'] });
    assert.ok(running.tasks.every((task) => task.state === 'running' && task.worker));
  });

  it('reads a filtered list in pieces that add up to one read', async (t) => {
    const docket = await useDocket(t, [ListTasks], {
      worker: { concurrency: 2, minimumCheckInterval: 100, shutdownTimeout: 300 },
    });
    t.after(() => docket.module.get(ListTasks).gate.resolve());
    await fillEveryPlace(docket);
    const store = docket.module.get<DocketStore>(DOCKET_STORE);

    const filters = [
      { search: 'list.' },
      { task: 'list.quick' },
      { search: 'q' },
      { task: 'list.later', search: 'l2' },
    ];
    for (const filter of filters) {
      for (const states of Object.keys(EXPECTED)) {
        const given = states.split(',') as LiveState[];
        for (const [offset, limit] of [
          [0, 50],
          [2, 3],
          [5, 1],
        ]) {
          const what = `${JSON.stringify(filter)} in ${states} from ${offset}, ${limit} a page`;
          const whole = await store.listTasks({ states: given, ...filter, offset, limit });
          const keys = (list: typeof whole) => [list.total, list.runs.map((run) => run.key)];
          for (const piece of [1, 2, 3, 7]) {
            const pieces = await store.listTasks({
              states: given,
              ...filter,
              offset,
              limit,
              piece,
            });
            assert.deepEqual(keys(pieces), keys(whole), `${what} in pieces of ${piece}`);
          }
        }
      }
    }
    // what the pieces found: the keys with a q, the quick ones, the held l2
    const found = await store.listTasks({
      states: ['running', 'queued', 'scheduled'],
      search: 'q',
      offset: 0,
      limit: 50,
      piece: 2,
    });
    assert.deepEqual(
      found.runs.map((run) => run.key),
      EXPECTED['running,queued,scheduled'].filter(
        (key) => !['h1', 'b1', 'h2'].includes(key) && !HELD.includes(key),
      ),
    );
  });
});
