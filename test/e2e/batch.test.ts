import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskBatch, type TaskContext } from '../../lib/index.js';
import { createDocket, deferred, places, useDocket, waitFor, type TestDocket } from '../utils.js';

@Injectable()
class BatchTasks {
  /** The keys of each call, in order. */
  calls: string[][] = [];
  gate = deferred();
  aborted: unknown;

  /** Doubles each item. */
  @DocketTask({ batch: { size: 10 } })
  async double(batch: TaskBatch<[number]>): Promise<number[]> {
    this.calls.push(batch.map((item) => item.key));
    return batch.map((item) => item.args[0] * 2);
  }

  /** Waits up to three seconds for a batch of up to 5 to fill. */
  @DocketTask({ batch: { size: 5, lingerMs: 3_000 } })
  async gather(batch: TaskBatch<[string]>): Promise<void> {
    this.calls.push(batch.map((item) => item.key));
  }

  /** Waits a minute to fill a batch of 3: only a full batch (or a drain) starts it. */
  @DocketTask({ batch: { size: 3, lingerMs: 60_000 } })
  async patient(batch: TaskBatch<[string]>): Promise<string[]> {
    this.calls.push(batch.map((item) => item.key));
    return batch.map((item) => item.args[0].toUpperCase());
  }

  /** Fails the items whose argument is 'bad' on their first attempt. */
  @DocketTask({ batch: { size: 10 }, retry: { attempts: 2, delay: 10 } })
  async picky(batch: TaskBatch<[string]>): Promise<string[]> {
    this.calls.push(batch.map((item) => `${item.key}#${item.attempt}`));
    for (const item of batch) {
      if (item.args[0] === 'bad' && item.attempt === 1) batch.fail(item, new Error('not yet'));
    }
    return batch.map((item) => `ok ${item.args[0]}`);
  }

  @DocketTask({ batch: { size: 10 } })
  async boom(batch: TaskBatch<[string]>): Promise<void> {
    this.calls.push(batch.map((item) => item.key));
    throw new Error('boom');
  }

  @DocketTask({ batch: { size: 10 } })
  async short(batch: TaskBatch<[string]>): Promise<string[]> {
    this.calls.push(batch.map((item) => item.key));
    return ['only one'];
  }

  @DocketTask({ batch: { size: 10 }, timeout: 100 })
  async stuck(batch: TaskBatch<[string]>): Promise<void> {
    this.calls.push(batch.map((item) => item.key));
    await new Promise<void>((resolve) => {
      batch.signal.addEventListener('abort', () => {
        this.aborted = batch.signal.reason;
        resolve();
      });
    });
    await this.gate.promise;
  }

  /** Batches of 100, waiting up to 200 ms to fill. */
  @DocketTask({ batch: { size: 100, lingerMs: 200 } })
  async hundred(batch: TaskBatch<[number]>): Promise<number[]> {
    this.calls.push(batch.map((item) => item.key));
    return batch.map((item) => item.args[0] + 1);
  }

  /** One concurrency slot per value of the item's first argument's `customer`. */
  @DocketTask({ batch: { size: 10 }, concurrency: { max: 1, argument: '0.customer' } })
  async perCustomer(batch: TaskBatch<[{ customer: string }]>): Promise<void> {
    this.calls.push(batch.map((item) => item.key));
  }
}

/** A worker that gives up on its batch at shutdown, and one that takes the items over. */
const handed = { calls: [] as string[][], started: deferred() };

@Injectable()
class HangingBatch {
  @DocketTask({ name: 'handed', batch: { size: 10 } })
  async handed(batch: TaskBatch<[string]>): Promise<void> {
    handed.started.resolve();
    await new Promise<void>(() => undefined);
    void batch;
  }
}

@Injectable()
class TakingOver {
  /** A redelivered item that waited for a batch to fill would wait a minute. */
  @DocketTask({ name: 'handed', batch: { size: 10, lingerMs: 60_000 } })
  async handed(batch: TaskBatch<[string]>): Promise<void> {
    handed.calls.push(batch.map((item) => item.key));
  }
}

const ONE_SLOT = { worker: { concurrency: 1, minimumCheckInterval: 50 } };

describe('batch tasks', { timeout: 60_000 }, () => {
  it('take up to `size` due items in one call and one slot; each item keeps its own result', async (t) => {
    const docket = await useDocket(t, [BatchTasks], ONE_SLOT);
    const tasks = docket.module.get(BatchTasks);
    const items = await docket.client.addMany(
      BatchTasks.prototype.double,
      Array.from({ length: 25 }, (_, i) => [i] as [number]),
    );
    assert.ok(items.every((item) => item.state === 'queued'));
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.calls.map((keys) => keys.length),
      [10, 10, 5],
      'a worker of concurrency 1 runs batches of up to 10',
    );
    assert.deepEqual(
      tasks.calls.flat(),
      items.map((item) => item.key),
      'in the order they were added',
    );
    for (const [i, item] of items.entries()) {
      assert.equal(await item.result({ timeout: 1_000 }), i * 2);
      await item.sync();
      assert.equal(item.state, 'completed');
    }
  });

  it('of 100 fill from what is due and flush the rest once lingerMs is over', async (t) => {
    const docket = await useDocket(t, [BatchTasks], {
      worker: { autoStart: true, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(BatchTasks);
    const items = await docket.client.addMany(
      BatchTasks.prototype.hundred,
      Array.from({ length: 250 }, (_, i) => [i] as [number]),
    );
    const results = await Promise.all(items.map((item) => item.result({ timeout: 10_000 })));
    assert.deepEqual(
      results,
      items.map((_, i) => i + 1),
    );
    assert.deepEqual(
      tasks.calls.map((keys) => keys.length),
      [100, 100, 50],
    );
  });

  it('wait while their task is paused, then run as one batch', async (t) => {
    const docket = await useDocket(t, [BatchTasks], {
      worker: { autoStart: true, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(BatchTasks);
    await docket.client.pause('double');
    const items = await docket.client.addMany(BatchTasks.prototype.double, [[1], [2], [3]]);
    const explained = await items[0].explain();
    assert.equal(explained.reason, 'paused');
    // the worker has read them and holds them: still nothing ran
    await waitFor(async () => (await docket.inspector.depths()).held === 3, 'the items held');
    assert.deepEqual(tasks.calls, []);
    await docket.client.resume('double');
    assert.deepEqual(
      await Promise.all(items.map((item) => item.result({ timeout: 10_000 }))),
      [2, 4, 6],
    );
    assert.deepEqual(tasks.calls, [items.map((item) => item.key)]);
  });

  it('wait up to `lingerMs` for a batch to fill, and a full batch does not wait', async (t) => {
    const docket = await useDocket(t, [BatchTasks], {
      worker: { autoStart: true, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(BatchTasks);
    const first = await docket.client.add(BatchTasks.prototype.gather, { key: 'g1' })('1');
    // the worker read the first one, and its batch waits for more
    await waitFor(async () => (await places(docket)).running === 1, 'the worker to read it');
    const later = await docket.client.addMany(BatchTasks.prototype.gather, [['2'], ['3']]);
    await first.result({ timeout: 15_000 });
    for (const item of later) await item.result({ timeout: 1_000 });
    assert.deepEqual(
      tasks.calls,
      [['g1', ...later.map((item) => item.key)]],
      'one call for the three',
    );

    tasks.calls = [];
    const started = Date.now();
    const full = await docket.client.addMany(BatchTasks.prototype.patient, [['a'], ['b'], ['c']]);
    assert.deepEqual(await Promise.all(full.map((item) => item.result({ timeout: 10_000 }))), [
      'A',
      'B',
      'C',
    ]);
    assert.ok(Date.now() - started < 5_000, 'a full batch starts without its minute of linger');
    assert.deepEqual(tasks.calls, [full.map((item) => item.key)]);
  });

  it('keep their items queued while the batch forms, and a shutdown starts it with what it has', async () => {
    const docket = await createDocket([BatchTasks], {
      worker: { autoStart: true, minimumCheckInterval: 50 },
    });
    const tasks = docket.module.get(BatchTasks);
    let closed = false;
    try {
      const item = await docket.client.add(BatchTasks.prototype.patient, { key: 'p1' })('x');
      // the worker read it (pending for it) but holds it for a batch that is not full
      await waitFor(async () => (await places(docket)).running === 1, 'the worker to read it');
      assert.equal((await docket.client.getExecution('p1'))?.state, 'queued');
      await docket.close();
      closed = true;
      assert.deepEqual(tasks.calls, [['p1']]);
      const reader = await createDocket([], { name: docket.name, worker: false });
      try {
        assert.equal((await reader.client.getExecution(item.key))?.state, 'completed');
      } finally {
        await reader.close();
      }
    } finally {
      if (!closed) await docket.close();
    }
  });

  it('run the items of a redelivered batch one at a time', async () => {
    const giving = await createDocket([HangingBatch], {
      worker: { autoStart: true, minimumCheckInterval: 50, shutdownTimeout: 100 },
    });
    const items = await giving.client.addMany('handed', [['a'], ['b'], ['c']]);
    await handed.started.promise;
    await giving.close();
    const taking = await createDocket([TakingOver], {
      name: giving.name,
      worker: { redeliveryTimeout: 300, minimumCheckInterval: 50 },
    });
    try {
      await taking.worker.runUntilFinished();
      assert.deepEqual(
        handed.calls,
        items.map((item) => [item.key]),
      );
      for (const item of items) {
        assert.equal((await taking.client.getExecution(item.key))?.state, 'completed');
      }
    } finally {
      await taking.close();
    }
  });

  it('batch.fail fails that item (retried by its policy) and completes the rest', async (t) => {
    const docket = await useDocket(t, [BatchTasks], ONE_SLOT);
    const tasks = docket.module.get(BatchTasks);
    const [good, bad, other] = await docket.client.addMany(BatchTasks.prototype.picky, [
      ['good'],
      ['bad'],
      ['other'],
    ]);
    await docket.worker.runUntilFinished();
    assert.equal(await good.result({ timeout: 1_000 }), 'ok good');
    assert.equal(await other.result({ timeout: 1_000 }), 'ok other');
    assert.equal(await bad.result({ timeout: 1_000 }), 'ok bad');
    await bad.sync();
    assert.equal(bad.attempt, 2);
    assert.deepEqual(tasks.calls, [
      [`${good.key}#1`, `${bad.key}#1`, `${other.key}#1`],
      [`${bad.key}#2`],
    ]);
  });

  it('fail every item when the handler throws or returns the wrong number of results', async (t) => {
    const docket = await useDocket(t, [BatchTasks], ONE_SLOT);
    const thrown = await docket.client.addMany(BatchTasks.prototype.boom, [['a'], ['b']]);
    const short = await docket.client.addMany(BatchTasks.prototype.short, [['a'], ['b']]);
    await docket.worker.runUntilFinished();
    for (const item of thrown) {
      await assert.rejects(item.result({ timeout: 1_000 }), /boom/);
    }
    for (const item of short) {
      await assert.rejects(
        item.result({ timeout: 1_000 }),
        /returned 1 result\(s\) for 2 item\(s\)/,
      );
    }
    assert.equal((await docket.inspector.depths()).deadLetters, 4);
  });

  it('abort their signal on timeout and fail every item with TimeoutError', async (t) => {
    const docket = await useDocket(t, [BatchTasks], ONE_SLOT);
    const tasks = docket.module.get(BatchTasks);
    t.after(() => tasks.gate.resolve());
    const items = await docket.client.addMany(BatchTasks.prototype.stuck, [['a'], ['b']]);
    await docket.worker.runUntilFinished();
    for (const item of items) {
      await assert.rejects(item.result({ timeout: 1_000 }), /exceeded timeout of 100ms/);
    }
    assert.match(String(tasks.aborted), /TimeoutError/);
  });

  it('apply strikes and admission rules per item, naming arguments by position', async (t) => {
    const docket = await useDocket(t, [BatchTasks], ONE_SLOT);
    const tasks = docket.module.get(BatchTasks);
    await docket.client.strike({ task: 'double', parameter: '0', value: 7 });
    const items = await docket.client.addMany(BatchTasks.prototype.double, [[6], [7], [8]]);
    await docket.worker.runUntilFinished();
    assert.deepEqual(tasks.calls, [[items[0].key, items[2].key]], 'the struck item is left out');

    tasks.calls = [];
    const customers = await docket.client.addMany(BatchTasks.prototype.perCustomer, [
      [{ customer: 'x' }],
      [{ customer: 'y' }],
      [{ customer: 'x' }],
    ]);
    await docket.worker.runUntilFinished();
    assert.deepEqual(
      tasks.calls.map((keys) => keys.length),
      [2, 1],
      'the second item of customer x waits for the first to end',
    );
    assert.deepEqual(tasks.calls.flat().sort(), customers.map((c) => c.key).sort());
  });

  it('refuse at boot a batch that is perpetual, takes @Ctx(), or has a bad size', async () => {
    @Injectable()
    class Perpetual {
      @DocketTask({ batch: { size: 2 }, perpetual: { every: 1_000 } })
      async run(batch: TaskBatch<[]>): Promise<void> {
        void batch;
      }
    }
    @Injectable()
    class WithCtx {
      @DocketTask({ batch: { size: 2 } })
      async run(batch: TaskBatch<[]>, @Ctx() ctx?: TaskContext): Promise<void> {
        void [batch, ctx];
      }
    }
    @Injectable()
    class Zero {
      @DocketTask({ batch: { size: 0 } })
      async run(batch: TaskBatch<[]>): Promise<void> {
        void batch;
      }
    }
    @Injectable()
    class Linger {
      @DocketTask({ batch: { size: 2, lingerMs: -1 } })
      async run(batch: TaskBatch<[]>): Promise<void> {
        void batch;
      }
    }
    const cases: [new () => object, RegExp][] = [
      [Perpetual, /batch cannot be combined with perpetual or cron/],
      [WithCtx, /a batch handler takes only its TaskBatch/],
      [Zero, /batch\.size must be a whole number > 0, not 0/],
      [Linger, /batch\.lingerMs must be a number ≥ 0/],
    ];
    for (const [provider, message] of cases) {
      await assert.rejects(createDocket([provider]), (error: unknown) => {
        assert.equal((error as Error).name, 'DocketConfigurationError');
        assert.match((error as Error).message, message);
        return true;
      });
    }
  });
});

// Compiled, never run: producers add one item with the item's argument types, and an item's
// result() is typed as one element of what the handler returns.
export async function typedItems(docket: TestDocket): Promise<void> {
  const item = await docket.client.add(BatchTasks.prototype.double)(1);
  const doubled: number | undefined = await item.result();
  // @ts-expect-error an item's argument is a number
  await docket.client.add(BatchTasks.prototype.double)('1');
  // @ts-expect-error the batch itself is not an argument
  await docket.client.add(BatchTasks.prototype.double)([]);
  const none: undefined = await (
    await docket.client.add(BatchTasks.prototype.gather)('x')
  ).result();
  await docket.client.addMany(BatchTasks.prototype.perCustomer, [[{ customer: 'c' }]]);
  void [doubled, none];
}
