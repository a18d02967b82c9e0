import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, ExecutionCancelledError, type TaskContext } from '../../lib/index.js';
import {
  REDIS_ONLY,
  REDIS_URL,
  assertNoKeyWithoutTtl,
  pendingCount,
  rawRedis,
  runsHash,
  uniqueName,
  useDocket,
} from '../utils.js';

/** Runs of every docket of this file, whichever app (and provider instance) ran them. */
const runs: { task: string; value: string; worker: string; startedAt: number }[] = [];

@Injectable()
class Tasks {
  @DocketTask()
  async record(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    runs.push({ task: 'record', value, worker: ctx.worker, startedAt: Date.now() });
    return value;
  }

  /** Same name as the child process's task; here it ends at once. */
  @DocketTask()
  async hang(label: string, @Ctx() ctx: TaskContext): Promise<string> {
    runs.push({ task: 'hang', value: label, worker: ctx.worker, startedAt: Date.now() });
    return `${ctx.worker}:${label}`;
  }

  @DocketTask()
  async long(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    runs.push({ task: 'long', value, worker: ctx.worker, startedAt: Date.now() });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    return value;
  }
}

describe('stale generations', { timeout: 60_000 }, () => {
  it('a message with an old generation is acknowledged and skipped', async (t) => {
    runs.length = 0;
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    const { name } = docket;
    await docket.client.add(Tasks.prototype.record, { key: 'k' })('first');
    const current = await docket.client.replace(Tasks.prototype.record, { key: 'k' })('second');
    assert.equal(current.generation, 2);
    const redis = rawRedis();
    try {
      // A stale copy, as a producer that lost a race would have left it.
      await redis.xadd(
        `{${name}}:stream`,
        '*',
        ...['key', 'k', 'task', 'record', 'args', '["stale"]', 'when', String(Date.now())],
        ...['attempt', '1', 'generation', '1'],
      );
      assert.equal(await redis.xlen(`{${name}}:stream`), 2);
      await docket.worker.runUntilFinished();
      assert.deepEqual(
        runs.map((r) => r.value),
        ['second'],
      );
      assert.equal(await current.result({ timeout: 2_000 }), 'second');
      assert.equal(await pendingCount(name), 0);
      assert.equal(await redis.xlen(`{${name}}:stream`), 0);
      const hash = await runsHash(name, 'k');
      assert.equal(hash.state, 'completed');
      assert.equal(hash.generation, '2');
    } finally {
      redis.disconnect();
    }
    await assertNoKeyWithoutTtl(name);
  });

  it('a stale message read after its key completed does not run it again', async (t) => {
    runs.length = 0;
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    const { name } = docket;
    const execution = await docket.client.add(Tasks.prototype.record, { key: 'once' })('only');
    await docket.worker.runUntilFinished();
    const redis = rawRedis();
    try {
      await redis.xadd(
        `{${name}}:stream`,
        '*',
        ...['key', 'once', 'task', 'record', 'args', '["again"]', 'when', String(Date.now())],
        ...['attempt', '1', 'generation', String(execution.generation)],
      );
      await docket.worker.runUntilFinished();
    } finally {
      redis.disconnect();
    }
    assert.deepEqual(
      runs.map((r) => r.value),
      ['only'],
    );
    assert.equal(await pendingCount(name), 0);
    assert.equal((await runsHash(name, 'once')).state, 'completed');
    await assertNoKeyWithoutTtl(name);
  });
});

describe('stream-only producers (README wire format)', { timeout: 60_000 }, () => {
  it('a generation-0 entry for a new key runs once and gets a runs hash', async (t) => {
    runs.length = 0;
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 100 } });
    const { name } = docket;
    const redis = rawRedis();
    try {
      await redis.xadd(
        `{${name}}:stream`,
        '*',
        ...['key', 'foreign', 'task', 'record', 'args', '["from afar"]'],
        ...['when', String(Date.now()), 'attempt', '1', 'generation', '0'],
      );
      await docket.worker.runUntilFinished();
    } finally {
      redis.disconnect();
    }
    assert.deepEqual(
      runs.map((r) => r.value),
      ['from afar'],
    );
    const execution = await docket.client.getExecution('foreign');
    assert.equal(execution?.state, 'completed');
    assert.equal(execution?.taskName, 'record');
    assert.equal(await execution?.result({ timeout: 1_000 }), 'from afar');
    assert.equal(await pendingCount(name), 0);
    await assertNoKeyWithoutTtl(name);
  });
});

/** A worker in a child process (test/fixtures/worker-process.ts) running the `hang` task. */
function childWorker(
  t: { after(fn: () => Promise<void>): void },
  name: string,
  worker: string,
  redeliveryTimeout: number,
): { killed: () => Promise<void>; started: () => Promise<string | undefined> } {
  const fixture = fileURLToPath(new URL('../fixtures/worker-process.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [fixture, name, REDIS_URL, worker, String(redeliveryTimeout)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const redis = rawRedis();
  t.after(async () => {
    child.kill('SIGKILL');
    await exited;
    await redis.del(`test-started:${name}`);
    redis.disconnect();
  });
  return {
    /** SIGKILL the child and wait until it is gone. */
    killed: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    /** The label of the first task the child started (waits up to 20 s). */
    started: async () => (await redis.blpop(`test-started:${name}`, 20))?.[1],
  };
}

describe('redelivery', { timeout: 60_000 }, () => {
  it(
    'runs the task of a worker killed mid-task on another worker after redeliveryTimeout',
    { skip: REDIS_ONLY },
    async (t) => {
      runs.length = 0;
      const name = uniqueName('kill');
      const redeliveryTimeout = 800;
      const child = childWorker(t, name, 'child-worker', redeliveryTimeout);
      const redis = rawRedis();
      t.after(() => redis.disconnect());

      const docket = await useDocket(t, [Tasks], {
        name,
        worker: { name: 'survivor', redeliveryTimeout, minimumCheckInterval: 100 },
      });
      const execution = await docket.client.add(Tasks.prototype.hang, { key: 'h' })('job');
      assert.equal(await child.started(), 'child-worker:job');
      assert.equal((await runsHash(name, 'h')).worker, 'child-worker');

      // The message was last delivered or renewed `idle` ms before this moment at the latest.
      const askedAt = Date.now();
      const [[, , idle]] = (await redis.xpending(
        `{${name}}:stream`,
        'docket-workers',
        '-',
        '+',
        10,
      )) as [string, string, number, number][];
      const killedAt = Date.now();
      await child.killed();

      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 5_000 }), 'survivor:job');
      assert.equal(runs.length, 1);
      const [run] = runs;
      assert.equal(run.worker, 'survivor');
      // Not before the message sat idle for redeliveryTimeout (1 ms for Redis's rounding).
      const earliest = askedAt - idle + redeliveryTimeout - 1;
      assert.ok(run.startedAt >= earliest, `redelivered ${earliest - run.startedAt}ms early`);
      assert.ok(
        run.startedAt - killedAt < 5_000,
        `redelivered ${run.startedAt - killedAt}ms after kill`,
      );
      const hash = await runsHash(name, 'h');
      assert.equal(hash.state, 'completed');
      assert.equal(hash.worker, 'survivor');
      assert.equal(await redis.llen(`test-started:${name}`), 0);
      assert.equal(await pendingCount(name), 0);
      await assertNoKeyWithoutTtl(name);
    },
  );

  it(
    'skips the redelivered message of a task cancelled while its worker was dead',
    { skip: REDIS_ONLY },
    async (t) => {
      runs.length = 0;
      const name = uniqueName('kill');
      const child = childWorker(t, name, 'doomed-worker', 600);
      const docket = await useDocket(t, [Tasks], {
        name,
        worker: { name: 'heir', redeliveryTimeout: 600, minimumCheckInterval: 100 },
      });
      const execution = await docket.client.add(Tasks.prototype.hang, { key: 'c' })('job');
      assert.equal(await child.started(), 'doomed-worker:job');
      await child.killed();
      await docket.client.cancel('c');
      assert.equal((await runsHash(name, 'c')).state, 'running', 'nobody could abort it yet');
      await docket.worker.runUntilFinished();
      await assert.rejects(execution.result({ timeout: 5_000 }), ExecutionCancelledError);
      assert.deepEqual(runs, []);
      assert.equal((await runsHash(name, 'c')).state, 'cancelled');
      assert.equal(await pendingCount(name), 0);
      await assertNoKeyWithoutTtl(name);
    },
  );

  it('does not take a long task from a live worker that renews its lease', async (t) => {
    runs.length = 0;
    const name = uniqueName('lease');
    const options = (worker: string) => ({
      name,
      worker: { name: worker, redeliveryTimeout: 400, minimumCheckInterval: 50 },
    });
    const first = await useDocket(t, [Tasks], options('w1'));
    const second = await useDocket(t, [Tasks], options('w2'));
    void first.worker.runForever();
    void second.worker.runForever();
    const execution = await first.client.add(Tasks.prototype.long, { key: 'l' })('slow');
    assert.equal(await execution.result({ timeout: 10_000 }), 'slow');
    assert.equal(runs.length, 1, `ran on ${runs.map((r) => r.worker).join(' and ')}`);
    assert.equal(await pendingCount(name), 0);
    assert.equal((await runsHash(name, 'l')).state, 'completed');
    await assertNoKeyWithoutTtl(name);
  });
});
