// The docket's metrics on prom-client's default registry, read directly: label cardinality
// does not grow with task keys, and several dockets in one process share the metrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { register } from 'prom-client';
import { DocketTask } from '../../../lib/index.js';
import { useDocket } from '../../utils.js';
import { parseMetrics, series, total, type Sample } from './helpers.js';

@Injectable()
class CountedTasks {
  @DocketTask()
  async tick(n: number): Promise<number> {
    return n;
  }
}

/** Every sample of the default registry, as /metrics would show it. */
async function samples(): Promise<Sample[]> {
  return parseMetrics(await register.metrics());
}

/** The docket_* series of docket `name` (one per metric and label set; buckets included). */
function docketSeries(all: Sample[], name: string): string[] {
  return all
    .filter((s) => s.name.startsWith('docket_') && s.labels.docket === name)
    .map((s) => `${s.name}${JSON.stringify(s.labels)}`);
}

describe('metric registry', { timeout: 120_000 }, () => {
  it('keeps label cardinality bounded over 1 000 tasks with distinct keys', async (t) => {
    const docket = await useDocket(t, [CountedTasks], {
      worker: { concurrency: 50, minimumCheckInterval: 100 },
    });
    const keys: string[] = [];
    const addBatch = async (from: number, count: number) => {
      const batch = Array.from({ length: count }, (_, i) => `key-${docket.name}-${from + i}`);
      keys.push(...batch);
      for (let i = 0; i < batch.length; i += 100) {
        await Promise.all(
          batch
            .slice(i, i + 100)
            .map((key, j) => docket.client.add(CountedTasks.prototype.tick, { key })(from + i + j)),
        );
      }
      await docket.worker.runUntilFinished();
    };

    await addBatch(0, 10);
    const first = docketSeries(await samples(), docket.name);
    await addBatch(10, 1_000);
    const all = await samples();
    const second = docketSeries(all, docket.name);

    const labels = { docket: docket.name, task: 'tick' };
    assert.equal(total(all, 'docket_tasks_completed_total', labels), 1_010);
    assert.equal(total(all, 'docket_tasks_succeeded_total', labels), 1_010);
    assert.equal(series(all, 'docket_tasks_completed_total', labels).length, 1);
    assert.equal(series(all, 'docket_tasks_started_total', labels).length, 1);
    assert.equal(series(all, 'docket_tasks_added_total', labels).length, 1);
    // the same series after 1 010 tasks as after 10: nothing is labelled per key
    assert.deepEqual(second.sort(), first.sort());
    const labelValues = new Set(all.flatMap((s) => Object.values(s.labels)));
    const leaked = keys.filter((key) => labelValues.has(key));
    assert.deepEqual(leaked, [], 'task keys used as label values');
    assert.ok(
      ![...labelValues].some((value) => value.includes(`key-${docket.name}`)),
      'a label value contains a task key',
    );
  });

  it('lets two dockets in one process share each metric, each counted under its name', async (t) => {
    const first = await useDocket(t, [CountedTasks]);
    const second = await useDocket(t, [CountedTasks]);
    const off = await useDocket(t, [CountedTasks], { metrics: false });
    for (const docket of [first, second, first, off]) {
      await docket.client.add(CountedTasks.prototype.tick)(1);
    }
    await Promise.all([first, second, off].map((docket) => docket.worker.runUntilFinished()));

    const all = await samples();
    const completed = (name: string) =>
      total(all, 'docket_tasks_completed_total', { docket: name, task: 'tick' });
    assert.equal(completed(first.name), 2);
    assert.equal(completed(second.name), 1);
    // metrics: false counts nothing, and no depth gauge reads it
    assert.deepEqual(docketSeries(all, off.name), []);
    // one metric of each name in the registry
    const text = await register.metrics();
    for (const name of [
      'docket_tasks_completed_total',
      'docket_task_duration_seconds',
      'docket_queue_depth',
    ]) {
      assert.equal(text.split(`# TYPE ${name} `).length - 1, 1, name);
    }
    assert.equal(series(all, 'docket_queue_depth', { docket: first.name }).length, 1);
    assert.equal(series(all, 'docket_queue_depth', { docket: second.name }).length, 1);
  });
});
