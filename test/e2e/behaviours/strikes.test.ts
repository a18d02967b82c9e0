import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  DocketTask,
  ExecutionCancelledError,
  type DocketClient,
  type StrikeCondition,
} from '../../../lib/index.js';
import { createDocket, places, type TestDocket } from '../../utils.js';
import { closeAll, createDockets, until, within } from './helpers.js';

@Injectable()
class StrikeTasks {
  calls: string[] = [];

  @DocketTask()
  async charge(customerId: unknown, amount = 0): Promise<void> {
    this.calls.push(`charge(${JSON.stringify(customerId)}, ${amount})`);
  }

  @DocketTask()
  async refund(customerId: unknown): Promise<void> {
    this.calls.push(`refund(${JSON.stringify(customerId)})`);
  }
}

@Injectable()
class AutomaticTasks {
  runs = 0;

  // Declared first: the worker decides on it before it seeds the cron below.
  @DocketTask({ perpetual: { every: 60_000, automatic: true } })
  async sweep(): Promise<void> {
    this.runs++;
  }

  @DocketTask({ cron: '0 0 1 1 *' })
  async newYear(): Promise<void> {}
}

const customer = (
  value: unknown,
  operator: StrikeCondition['operator'] = '==',
): StrikeCondition => ({
  task: 'charge',
  parameter: 'customerId',
  operator,
  value,
});

/** The dispositions of `charge(value)` adds, in order. */
async function dispositions(client: DocketClient, values: unknown[]): Promise<string[]> {
  const out: string[] = [];
  for (const value of values) {
    out.push((await client.add(StrikeTasks.prototype.charge)(value)).disposition);
  }
  return out;
}

/** What the read model shows of the tasks of a docket (the time of the snapshot aside). */
async function tasksOf(docket: TestDocket) {
  const { totalTasks, running, future } = await docket.inspector.snapshot();
  return { totalTasks, running, future, places: await places(docket) };
}

describe('strikes', () => {
  it('answers struck to a matching add and writes nothing; other values are scheduled', async () => {
    const docket = await createDocket([StrikeTasks]);
    try {
      const tasks = docket.module.get(StrikeTasks);
      await docket.client.strike(customer(7));
      const before = await tasksOf(docket);
      const struck = await docket.client.add(StrikeTasks.prototype.charge, { key: 'seven' })(7, 10);
      assert.equal(struck.disposition, 'struck');
      assert.equal(struck.state, 'cancelled');
      // (test/contract/key-lifetimes checks that the struck add wrote no key)
      assert.deepEqual(await tasksOf(docket), before);
      assert.equal(await docket.client.getExecution('seven'), null);
      await assert.rejects(struck.result({ timeout: 1_000 }), ExecutionCancelledError);

      const eight = await docket.client.add(StrikeTasks.prototype.charge, { key: 'eight' })(8, 10);
      assert.equal(eight.disposition, 'scheduled');
      assert.equal((await docket.client.getExecution('eight'))?.state, 'queued');
      await docket.worker.runUntilFinished();
      assert.deepEqual(tasks.calls, ['charge(8, 10)']);
    } finally {
      await docket.close();
    }
  });

  it('skips a task queued or scheduled before the strike as cancelled', async () => {
    const docket = await createDocket([StrikeTasks]);
    try {
      const tasks = docket.module.get(StrikeTasks);
      const queued = await docket.client.add(StrikeTasks.prototype.charge)(7);
      const scheduled = await docket.client.add(StrikeTasks.prototype.charge, { delay: 150 })(7);
      const spared = await docket.client.add(StrikeTasks.prototype.charge)(8);
      assert.equal(queued.state, 'queued');
      assert.equal(scheduled.state, 'scheduled');
      await docket.client.strike(customer(7));
      await within(docket.worker.runUntilFinished(), 5_000, 'the worker to finish');
      assert.deepEqual(tasks.calls, ['charge(8, 0)']);
      await assert.rejects(queued.result({ timeout: 2_000 }), ExecutionCancelledError);
      await assert.rejects(scheduled.result({ timeout: 2_000 }), ExecutionCancelledError);
      await spared.result({ timeout: 2_000 });
      assert.equal(queued.state, 'cancelled');
      assert.equal(scheduled.state, 'cancelled');
      assert.deepEqual(await places(docket), { queue: 0, schedule: 0, running: 0 });
    } finally {
      await docket.close();
    }
  });

  it('compares with ==, !=, <, >= and between (inclusive), without coercion', async () => {
    const docket = await createDocket([StrikeTasks]);
    try {
      const { client } = docket;
      const check = async (condition: StrikeCondition, values: unknown[], expected: string[]) => {
        await client.strike(condition);
        try {
          assert.deepEqual(
            await dispositions(client, values),
            expected,
            `${condition.operator} ${JSON.stringify(condition.value)} on ${values.map(String).join(', ')}`,
          );
        } finally {
          await client.restore(condition);
        }
      };
      const S = 'struck';
      const ok = 'scheduled';
      await check(customer([3, 5], 'between'), [2, 3, 4, 5, 6], [ok, S, S, S, ok]);
      await check(customer(7, '!='), [7, 8, 'x'], [ok, S, ok]);
      await check(customer(5, '<'), [4, 5, 6], [S, ok, ok]);
      await check(customer(5, '>='), [4, 5, 6], [ok, S, S]);
      await check(customer('7'), [7, '7'], [ok, S]);
      await check(customer(7), ['7', 7, 7n], [ok, S, ok]);
      await check(customer(new Date('2030-01-01'), '<'), [new Date('2029-12-31'), 1], [S, ok]);
      await client.clear();
    } finally {
      await docket.close();
    }
  });

  it('never matches, nor throws, on a strike value of another type', async () => {
    const docket = await createDocket([StrikeTasks]);
    try {
      const tasks = docket.module.get(StrikeTasks);
      const queued = await docket.client.add(StrikeTasks.prototype.charge)(4);
      const odd: StrikeCondition[] = [
        customer({ id: 4 }),
        customer({ id: 4 }, '<'),
        customer('abc', '>='),
        customer(['a', 9], 'between'),
        customer(null, '<='),
        customer(true, '>'),
        customer([1, 2, 3], '!='),
      ];
      for (const condition of odd) await docket.client.strike(condition);
      assert.deepEqual(await dispositions(docket.client, [4, 5]), ['scheduled', 'scheduled']);
      await within(docket.worker.runUntilFinished(), 5_000, 'the worker to finish');
      assert.deepEqual(tasks.calls.sort(), ['charge(4, 0)', 'charge(4, 0)', 'charge(5, 0)']);
      await queued.result({ timeout: 2_000 });
    } finally {
      await docket.close();
    }
  });

  it('strikes a whole task (by name or reference) or a parameter of every task, until restored', async () => {
    const docket = await createDocket([StrikeTasks]);
    try {
      const { client } = docket;
      const both = async (value: unknown) => [
        (await client.add(StrikeTasks.prototype.charge)(value)).disposition,
        (await client.add('refund')(value)).disposition,
      ];
      await client.strike({ task: StrikeTasks.prototype.charge });
      assert.deepEqual(await both(1), ['struck', 'scheduled']);
      await client.restore({ task: 'charge' });
      assert.deepEqual(await both(1), ['scheduled', 'scheduled']);

      await client.strike({ parameter: 'customerId', value: 9 });
      assert.deepEqual(await both(9), ['struck', 'struck']);
      assert.deepEqual(await both(10), ['scheduled', 'scheduled']);
      await client.restore({ parameter: 'customerId', value: 9 });
      assert.deepEqual(await both(9), ['scheduled', 'scheduled']);

      await within(docket.worker.runUntilFinished(), 5_000, 'the worker to finish');
      assert.equal(docket.module.get(StrikeTasks).calls.length, 7);
    } finally {
      await docket.close();
    }
  });

  it('is seen by every app of the docket: at its first add and then as announced', async () => {
    const apps = await createDockets(2, [StrikeTasks]);
    const [a, b] = apps;
    try {
      await a.client.strike(customer(7));
      // B has not read the strikes yet: it loads them before its first add.
      assert.deepEqual(await dispositions(b.client, [7, 8]), ['struck', 'scheduled']);

      await a.client.strike(customer(8));
      await until(
        async () => (await b.client.add(StrikeTasks.prototype.charge)(8)).disposition === 'struck',
        'B to hear of the strike of 8',
      );
      await a.client.restore(customer(7));
      await until(
        async () =>
          (await b.client.add(StrikeTasks.prototype.charge)(7)).disposition === 'scheduled',
        'B to hear of the restore of 7',
      );
      // B's worker skips the 8s it scheduled before it heard of the strike.
      await within(b.worker.runUntilFinished(), 5_000, 'B to finish');
      const calls = b.module.get(StrikeTasks).calls;
      assert.ok(!calls.some((c) => c.startsWith('charge(8')), calls.join(', '));
      assert.ok(calls.includes('charge(7, 0)'), calls.join(', '));
    } finally {
      await closeAll(apps);
    }
  });

  it('does not seed a struck automatic task', async () => {
    const producer = await createDocket([], { worker: false });
    try {
      await producer.client.strike({ task: 'sweep' });
      const worker = await createDocket([AutomaticTasks], {
        name: producer.name,
        worker: { autoStart: true },
      });
      try {
        const control = await until(
          () => worker.client.getExecution('newYear'),
          'the automatic cron to be seeded',
        );
        assert.equal(control.state, 'scheduled');
        assert.equal(await worker.client.getExecution('sweep'), null);
        assert.equal(worker.module.get(AutomaticTasks).runs, 0);
      } finally {
        await worker.close();
      }
    } finally {
      await producer.close();
    }
  });
});
