import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import {
  createDocket,
  deferred,
  freePort,
  NEEDS_REDIS_SERVER,
  REDIS_ONLY,
  REDIS_URL,
  startRedisServer,
  uniqueName,
  useDocket,
  waitFor,
} from '../utils.js';
import { within } from './behaviours/helpers.js';

/** Shared by every app of this file (each app has its own provider instance). */
const state = {
  runs: [] as { worker: string; startedAt: number; endedAt?: number; abortedAt?: number }[],
  started: deferred(),
  release: deferred(),
};

@Injectable()
class Tasks {
  /** Ends 400 ms after it started. */
  @DocketTask()
  async brief(@Ctx() ctx: TaskContext): Promise<string> {
    const run: (typeof state.runs)[number] = { worker: ctx.worker, startedAt: Date.now() };
    state.runs.push(run);
    state.started.resolve();
    await new Promise((resolve) => setTimeout(resolve, 400));
    run.endedAt = Date.now();
    return 'brief';
  }

  /** The first run ignores its signal for 5 s (or until released); later runs end at once. */
  @DocketTask()
  async deaf(@Ctx() ctx: TaskContext): Promise<string> {
    const run: (typeof state.runs)[number] = { worker: ctx.worker, startedAt: Date.now() };
    state.runs.push(run);
    ctx.signal.addEventListener('abort', () => (run.abortedAt = Date.now()), { once: true });
    state.started.resolve();
    if (state.runs.length === 1) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        state.release.promise,
        new Promise((resolve) => (timer = setTimeout(resolve, 5_000))),
      ]);
      clearTimeout(timer);
    }
    run.endedAt = Date.now();
    return `deaf on ${ctx.worker}`;
  }
}

function reset(): void {
  state.runs = [];
  state.started = deferred();
  state.release = deferred();
}

describe('shutdown', { timeout: 60_000 }, () => {
  it('waits for a running task to finish', async (t) => {
    reset();
    const docket = await createDocket([Tasks], { worker: { autoStart: true, name: 'drainer' } });
    t.after(() => docket.close());
    const execution = await docket.client.add(Tasks.prototype.brief, { key: 'b' })();
    await state.started.promise;
    await docket.close();
    const closedAt = Date.now();
    assert.equal(state.runs.length, 1);
    const [run] = state.runs;
    assert.ok(run.endedAt !== undefined && run.endedAt <= closedAt, 'close returned first');
    // read through another app of the docket: this one is closed
    const observer = await useDocket(t, [], { name: docket.name, worker: false });
    const after = await observer.client.getExecution('b');
    assert.equal(after?.state, 'completed');
    assert.equal(after?.worker, 'drainer');
    assert.equal((await observer.inspector.depths()).running, 0);
    assert.equal(execution.key, 'b');
  });

  it('stops waiting at shutdownTimeout, aborts the signal and hands the task back at once', async (t) => {
    reset();
    t.after(() => state.release.resolve());
    const name = uniqueName('drain');
    const first = await createDocket([Tasks], {
      name,
      worker: { autoStart: true, name: 'leaver', shutdownTimeout: 300, minimumCheckInterval: 100 },
    });
    t.after(() => first.close());
    await first.client.add(Tasks.prototype.deaf, { key: 'd' })();
    await state.started.promise;
    const closing = Date.now();
    await first.close();
    const closeTook = Date.now() - closing;
    assert.ok(closeTook >= 300, `close returned after ${closeTook}ms, before shutdownTimeout`);
    assert.ok(closeTook < 4_000, `close took ${closeTook}ms`);
    const [run] = state.runs;
    assert.ok(run.abortedAt !== undefined, 'the signal was not aborted');
    assert.ok(run.abortedAt - closing >= 300, 'aborted before shutdownTimeout');
    assert.equal(run.endedAt, undefined, 'the task is still running');

    // another worker takes it at once, without waiting for its redeliveryTimeout
    const second = await useDocket(t, [Tasks], {
      name,
      worker: { name: 'taker', redeliveryTimeout: 600_000, minimumCheckInterval: 50 },
    });
    // handed back: queued again, no longer shown as running on a gone worker
    const handedBack = await second.client.getExecution('d');
    assert.equal(handedBack?.state, 'queued');
    assert.equal(handedBack?.worker, undefined);
    await second.worker.runUntilFinished();
    assert.equal(state.runs.length, 2);
    assert.equal(state.runs[1].worker, 'taker');
    const execution = await second.client.getExecution('d');
    assert.equal(execution?.state, 'completed');
    assert.equal(execution?.worker, 'taker');
    assert.equal((await second.inspector.depths()).running, 0);
    assert.equal(await execution?.result({ timeout: 1_000 }), 'deaf on taker');
  });

  it('ends runUntilFinished and runForever when the application closes', async (t) => {
    reset();
    const docket = await createDocket([Tasks], { worker: { minimumCheckInterval: 100 } });
    t.after(() => docket.close());
    await docket.client.add(Tasks.prototype.brief, { delay: 60_000 })();
    const forever = docket.worker.runForever();
    const untilFinished = docket.worker.runUntilFinished();
    await waitFor(() => docket.worker.status().lastPollAt > 0, 'the worker to poll');
    await docket.close();
    await Promise.all([forever, untilFinished]);
    assert.equal(state.runs.length, 0);
  });

  it('never hangs when Redis is unreachable', { skip: NEEDS_REDIS_SERVER }, async (t) => {
    reset();
    const redis = await startRedisServer();
    t.after(() => redis.kill());
    const docket = await createDocket([Tasks], {
      url: redis.url,
      worker: { autoStart: true, minimumCheckInterval: 100, reconnectionDelay: 5_000 },
    });
    t.after(() => docket.close());
    await waitFor(() => docket.worker.status().lastPollAt > 0, 'the worker to poll');
    await redis.kill();
    const closing = Date.now();
    await docket.close();
    const took = Date.now() - closing;
    assert.ok(took < 6_000, `close took ${took}ms with Redis away`);
  });

  it('never hangs when Redis was never reachable', async (t) => {
    reset();
    const docket = await createDocket([Tasks], {
      url: `redis://127.0.0.1:${await freePort()}/0`,
      worker: { autoStart: true, minimumCheckInterval: 100 },
    });
    t.after(() => docket.close());
    await assert.rejects(docket.client.add(Tasks.prototype.brief)(), /not reachable/);
    const closing = Date.now();
    await docket.close();
    const took = Date.now() - closing;
    assert.ok(took < 6_000, `close took ${took}ms without Redis`);
    assert.equal(state.runs.length, 0);
  });

  it(
    'never hangs when Redis goes away while a task runs',
    { skip: NEEDS_REDIS_SERVER },
    async (t) => {
      reset();
      t.after(() => state.release.resolve());
      const redis = await startRedisServer();
      t.after(() => redis.kill());
      const docket = await createDocket([Tasks], {
        url: redis.url,
        worker: { autoStart: true, minimumCheckInterval: 100, shutdownTimeout: 500 },
      });
      t.after(() => docket.close());
      await docket.client.add(Tasks.prototype.deaf)();
      await state.started.promise;
      await redis.kill();
      const closing = Date.now();
      await docket.close();
      const took = Date.now() - closing;
      assert.ok(took < 6_000, `close took ${took}ms with Redis away`);
    },
  );

  it(
    'goes on working after Redis went away and came back (empty)',
    { skip: NEEDS_REDIS_SERVER },
    async (t) => {
      reset();
      let redis = await startRedisServer();
      t.after(() => redis.kill());
      const docket = await createDocket([Tasks], {
        url: redis.url,
        worker: { autoStart: true, minimumCheckInterval: 100, reconnectionDelay: 200 },
      });
      t.after(() => docket.close());
      const before = await docket.client.add(Tasks.prototype.brief)();
      assert.equal(await before.result({ timeout: 5_000 }), 'brief');
      await redis.kill();
      redis = await startRedisServer(redis.port);
      // The restarted server lost the stream and its group: the worker must make them again.
      const now = await waitFor(
        () =>
          docket.client
            .add(Tasks.prototype.brief)()
            .catch(() => undefined),
        'the client to reconnect',
      );
      assert.equal(await now.result({ timeout: 10_000 }), 'brief');
      const later = await docket.client.add(Tasks.prototype.brief, { delay: 300 })();
      assert.equal(later.state, 'scheduled');
      assert.equal(await later.result({ timeout: 10_000 }), 'brief');
      assert.equal(state.runs.length, 3);
    },
  );
});

describe('shutdown by a signal', { timeout: 60_000, skip: REDIS_ONLY }, () => {
  it('says what it waits for, and a second signal hands the running task back at once', async (t) => {
    const name = uniqueName('signal');
    const fixture = fileURLToPath(new URL('../fixtures/signal-worker.js', import.meta.url));
    const child = spawn(process.execPath, [fixture, name, REDIS_URL], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    t.after(async () => {
      child.kill('SIGKILL');
      await exited;
    });
    let output = '';
    const seen: { pattern: RegExp; resolve: () => void }[] = [];
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      for (const waiter of seen.filter((w) => w.pattern.test(output))) {
        seen.splice(seen.indexOf(waiter), 1);
        waiter.resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const line = (pattern: RegExp) =>
      within(
        new Promise<void>((resolve) => {
          if (pattern.test(output)) resolve();
          else seen.push({ pattern, resolve });
        }),
        20_000,
        `a line ${pattern} in:\n${output}`,
      );

    const producer = await useDocket(t, [], { name, worker: false });
    await producer.client.add('hang', { key: 'h' })('x');
    await line(/started x/);
    child.kill('SIGINT');
    await line(
      /shutting down: waiting up to 60 s for 1 running task\(s\) \(SIGINT again stops now/,
    );
    assert.equal(child.exitCode, null, 'the first signal waits for the task');
    assert.equal((await producer.client.getExecution('h'))?.state, 'running');
    child.kill('SIGINT');
    // at once: `within` fails long before the 60 s drain deadline or the task's own minute
    await within(exited, 10_000, 'the process to exit after the second signal');
    // ended by the signal (Nest re-raises it once the hooks ran), not by a crash
    assert.equal(child.signalCode, 'SIGINT', output);
    assert.match(output, /SIGINT again: stopping now, running tasks are handed back/);
    // handed back: queued for another worker, not shown as running on a gone one
    const execution = await producer.client.getExecution('h');
    assert.equal(execution?.state, 'queued');
    assert.equal(execution?.worker, undefined);
  });
});
