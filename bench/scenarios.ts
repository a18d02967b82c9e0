import { setTimeout as sleep } from 'node:timers/promises';
import { handled, pool, spawnWorkers, until } from './processes.js';
import {
  COMMANDS_PER_READING,
  commandCalls,
  redisCpuMicros,
  usedMemory,
  type BenchRedis,
} from './redis.js';
import { quantile, type Metric } from './report.js';
import { nowMs, type Lib, type Producer, type Side } from './side.js';
import type { WorkerSpec } from './worker.js';

export interface Sizes {
  sequentialAdds: number;
  inFlightAdds: number;
  bulkAdds: number;
  processing: number;
  latencyRate: number;
  latencySeconds: number;
  punctualTasks: number;
  /** Future tasks are due between 1 s and 1 s + this after they are added. */
  punctualSpreadMs: number;
  idleWarmupMs: number;
  idleWindowMs: number;
  memoryTasks: number;
}

export function sizes(quick: boolean): Sizes {
  return {
    sequentialAdds: quick ? 500 : 2_000,
    inFlightAdds: quick ? 5_000 : 20_000,
    bulkAdds: quick ? 5_000 : 20_000,
    processing: quick ? 5_000 : 20_000,
    latencyRate: 500,
    latencySeconds: quick ? 2 : 5,
    punctualTasks: quick ? 200 : 500,
    punctualSpreadMs: quick ? 1_000 : 2_000,
    idleWarmupMs: quick ? 1_000 : 2_000,
    // BullMQ's idle worker blocks for 5 s at a time: the window spans whole periods of it.
    idleWindowMs: 10_000,
    memoryTasks: quick ? 20_000 : 100_000,
  };
}

/** What every scenario gets: the server, the counts, extra node flags for worker processes. */
export interface Context {
  redis: BenchRedis;
  sizes: Sizes;
  execArgv: (lib: Lib) => string[];
}

/** One run of a scenario for one library. */
export interface Run {
  side: Side;
  queue: string;
}

export interface Scenario {
  id: string;
  /** Metric id → value. */
  run(ctx: Context, run: Run): Promise<Record<string, number>>;
}

const BULK_CHUNK = 1_000;
const IN_FLIGHT = 64;
const REPORT_EVERY = 500;

const perSecond = (n: number, ms: number): number => (n / ms) * 1000;

function spec(
  ctx: Context,
  run: Run,
  concurrency: number,
  extra: Partial<WorkerSpec> = {},
): WorkerSpec {
  return {
    lib: run.side.lib,
    url: ctx.redis.url,
    queue: run.queue,
    fireAndForget: false,
    concurrency,
    record: 'count',
    reportEvery: 1,
    ...extra,
  };
}

async function withProducer<T>(
  ctx: Context,
  run: Run,
  fireAndForget: boolean,
  body: (producer: Producer) => Promise<T>,
): Promise<T> {
  const producer = await run.side.producer({
    url: ctx.redis.url,
    queue: run.queue,
    fireAndForget,
  });
  try {
    return await body(producer);
  } finally {
    await producer.close();
  }
}

async function enqueue(ctx: Context, run: Run): Promise<Record<string, number>> {
  const { sequentialAdds, inFlightAdds, bulkAdds } = ctx.sizes;
  return withProducer(ctx, run, false, async (producer) => {
    // Warm-up: connections, script loading, JIT.
    await pool(500, IN_FLIGHT, (i) => producer.add({ i }));
    let t = performance.now();
    for (let i = 0; i < sequentialAdds; i++) await producer.add({ i });
    const sequential = perSecond(sequentialAdds, performance.now() - t);
    const redis0 = await redisCpuMicros(ctx.redis.stats);
    const cpu0 = process.cpuUsage();
    t = performance.now();
    await pool(inFlightAdds, IN_FLIGHT, (i) => producer.add({ i }));
    const inFlight = perSecond(inFlightAdds, performance.now() - t);
    const cpu = process.cpuUsage(cpu0);
    const redisCpu = (await redisCpuMicros(ctx.redis.stats)) - redis0;
    let bulk = NaN;
    const addBulk = producer.addBulk;
    if (addBulk) {
      t = performance.now();
      for (let from = 0; from < bulkAdds; from += BULK_CHUNK) {
        await addBulk(Array.from({ length: BULK_CHUNK }, (_, k) => ({ i: from + k })));
      }
      bulk = perSecond(bulkAdds, performance.now() - t);
    }
    return {
      enq_seq: sequential,
      enq_64: inFlight,
      enq_64_pcpu: (cpu.user + cpu.system) / inFlightAdds,
      enq_64_rcpu: redisCpu / inFlightAdds,
      enq_bulk: bulk,
    };
  });
}

/**
 * Pre-fill the queue while the worker processes boot, then time from "start" until every
 * handler ran and the library recorded every completion.
 */
async function processing(
  ctx: Context,
  run: Run,
  processes: number,
  concurrency: number,
  fireAndForget: boolean,
  batch?: number,
  history?: number,
): Promise<{
  throughput: number;
  rssStart: number;
  rssMax: number;
  workerCpu: number;
  redisCpu: number;
  commands: number;
}> {
  const n = ctx.sizes.processing;
  return withProducer(ctx, run, fireAndForget, async (producer) => {
    // One process reports once, at n; several report every REPORT_EVERY tasks, and the rest
    // is found by polling Redis for the last few hundred.
    const reportEvery = processes === 1 ? n : REPORT_EVERY;
    const booting = spawnWorkers(
      processes,
      spec(ctx, run, concurrency, { fireAndForget, reportEvery, batch, history }),
      ctx.execArgv(run.side.lib),
    );
    booting.catch(() => undefined);
    await pool(n, IN_FLIGHT, (i) => producer.add({ i }));
    const workers = await booting;
    try {
      const filled = await producer.unfinished();
      if (filled !== n) throw new Error(`pre-fill left ${filled} unfinished tasks, not ${n}`);
      const calls0 = await commandCalls(ctx.redis.stats);
      const redis0 = await redisCpuMicros(ctx.redis.stats);
      const t0 = performance.now();
      for (const w of workers) w.start();
      await handled(workers, processes === 1 ? n : n - processes * REPORT_EVERY, 300_000);
      await until(async () => (await producer.unfinished()) === 0, 60_000, 'all completions');
      const elapsed = performance.now() - t0;
      const redisCpu = (await redisCpuMicros(ctx.redis.stats)) - redis0;
      // The orchestrator's polls of `unfinished` count too: a few commands each, a few polls
      // (dozens with four processes), against n tasks of several commands each.
      const commands = (await commandCalls(ctx.redis.stats)) - calls0 - 2 * COMMANDS_PER_READING;
      const done = await Promise.all(workers.map((w) => w.stop()));
      const count = done.reduce((sum, d) => sum + d.count, 0);
      if (count !== n) throw new Error(`${count} handler runs for ${n} tasks`);
      return {
        throughput: perSecond(n, elapsed),
        rssStart: Math.max(...done.map((d) => d.rssStart)) / 2 ** 20,
        rssMax: Math.max(...done.map((d) => d.rssMax)) / 2 ** 20,
        workerCpu: done.reduce((sum, d) => sum + d.cpuMicros, 0) / n,
        redisCpu: redisCpu / n,
        commands: commands / n,
      };
    } finally {
      await Promise.allSettled(workers.map((w) => w.stop()));
    }
  });
}

async function latency(ctx: Context, run: Run): Promise<Record<string, number>> {
  const { latencyRate, latencySeconds } = ctx.sizes;
  return withProducer(ctx, run, false, async (producer) => {
    const [worker] = await spawnWorkers(
      1,
      spec(ctx, run, 10, {
        record: 'latency',
        reportEvery: latencyRate * latencySeconds,
      }),
      ctx.execArgv(run.side.lib),
    );
    try {
      worker.start();
      await sleep(500);
      const total = latencyRate * latencySeconds;
      const start = performance.now();
      const adds: Promise<void>[] = [];
      let sent = 0;
      while (sent < total) {
        const due = Math.floor(((performance.now() - start) * latencyRate) / 1000) + 1;
        for (; sent < Math.min(due, total); sent++)
          adds.push(producer.add({ i: sent, sent: nowMs() }));
        await sleep(1);
      }
      await Promise.all(adds);
      await handled([worker], total, 30_000);
      const { samples } = await worker.stop();
      return { lat_p50: quantile(samples, 0.5), lat_p99: quantile(samples, 0.99) };
    } finally {
      await worker.stop().catch(() => undefined);
    }
  });
}

async function punctuality(ctx: Context, run: Run): Promise<Record<string, number>> {
  const { punctualTasks: n, punctualSpreadMs: spread } = ctx.sizes;
  return withProducer(ctx, run, false, async (producer) => {
    const [worker] = await spawnWorkers(
      1,
      spec(ctx, run, 10, { record: 'punctuality', reportEvery: n }),
      ctx.execArgv(run.side.lib),
    );
    try {
      worker.start();
      await sleep(500);
      const base = Date.now() + 1_000;
      await pool(n, IN_FLIGHT, async (i) => {
        const due = base + Math.round((spread * i) / n);
        await producer.add({ i, due }, due);
      });
      await handled([worker], n, spread + 20_000);
      const { samples } = await worker.stop();
      return {
        punct_p50: quantile(samples, 0.5),
        punct_p99: quantile(samples, 0.99),
        punct_early: samples.filter((s) => s < 0).length,
      };
    } finally {
      await worker.stop().catch(() => undefined);
    }
  });
}

async function idle(ctx: Context, run: Run): Promise<Record<string, number>> {
  const { idleWarmupMs, idleWindowMs } = ctx.sizes;
  const [worker] = await spawnWorkers(1, spec(ctx, run, 10), ctx.execArgv(run.side.lib));
  try {
    worker.start();
    await sleep(idleWarmupMs);
    const before = await commandCalls(ctx.redis.stats);
    await sleep(idleWindowMs);
    const after = await commandCalls(ctx.redis.stats);
    return { idle_cmds: perSecond(after - before - COMMANDS_PER_READING, idleWindowMs) };
  } finally {
    await worker.stop();
  }
}

async function memory(ctx: Context, run: Run): Promise<Record<string, number>> {
  const n = ctx.sizes.memoryTasks;
  return withProducer(ctx, run, false, async (producer) => {
    await sleep(100);
    const before = await usedMemory(ctx.redis.stats);
    const due = Date.now() + 3_600_000;
    await pool(n, IN_FLIGHT, (i) => producer.add({ i }, due));
    const after = await usedMemory(ctx.redis.stats);
    const scheduled = await producer.unfinished();
    if (scheduled !== n) throw new Error(`memory: ${scheduled} scheduled tasks, not ${n}`);
    // again with keys as short as BullMQ's own job ids (a counter): docket's default key is a
    // UUIDv7, 36 characters in the record's name and again in the queue
    await ctx.redis.stats.flushall();
    await sleep(100);
    const before2 = await usedMemory(ctx.redis.stats);
    await pool(n, IN_FLIGHT, (i) => producer.add({ i }, due, String(i + 1)));
    const after2 = await usedMemory(ctx.redis.stats);
    const perTask = (bytes: number) => (bytes * (100_000 / n)) / 2 ** 20;
    return { mem_100k: perTask(after - before), mem_100k_short: perTask(after2 - before2) };
  });
}

const throughput =
  (
    id: string,
    processes: number,
    concurrency: number,
    fireAndForget = false,
    batch?: number,
    history?: number,
  ) =>
  async (ctx: Context, run: Run): Promise<Record<string, number>> => {
    const result = await processing(
      ctx,
      run,
      processes,
      concurrency,
      fireAndForget,
      batch,
      history,
    );
    return {
      [id]: result.throughput,
      [`${id}_wcpu`]: result.workerCpu,
      [`${id}_rcpu`]: result.redisCpu,
      [`${id}_cpu`]: result.workerCpu + result.redisCpu,
      [`${id}_cmds`]: result.commands,
      ...(id === 'proc_c50'
        ? {
            rss_c50: result.rssMax,
            rss_c50_start: result.rssStart,
            rss_c50_growth: result.rssMax - result.rssStart,
          }
        : {}),
    };
  };

export const SCENARIOS: Scenario[] = [
  { id: 'enqueue', run: enqueue },
  { id: 'c10', run: throughput('proc_c10', 1, 10) },
  { id: 'c50', run: throughput('proc_c50', 1, 50) },
  { id: 'c200', run: throughput('proc_c200', 1, 200) },
  { id: '4x50', run: throughput('proc_4x50', 4, 50) },
  { id: 'ff50', run: throughput('proc_c50_ff', 1, 50, true) },
  { id: 'b100', run: throughput('proc_b100', 1, 10, false, 100) },
  // one worker slot: a batch of 100 against 100 single tasks run one after another
  { id: 'c1', run: throughput('proc_c1', 1, 1) },
  { id: 'b100c1', run: throughput('proc_b100_c1', 1, 1, false, 100) },
  { id: 'c50h', run: throughput('proc_c50_hist', 1, 50, false, undefined, 1_000) },
  { id: 'latency', run: latency },
  { id: 'punctuality', run: punctuality },
  { id: 'idle', run: idle },
  { id: 'memory', run: memory },
];

/** The rows of the report, in order. */
export function metricList(s: Sizes): Metric[] {
  const n = (x: number) => x.toLocaleString('en-US').replace(/,/g, ' ');
  const m = (
    id: string,
    label: string,
    unit: string,
    better: 'higher' | 'lower',
    extra: Partial<Metric> = {},
  ): Metric => ({ id, label, unit, better, values: { docket: [], bullmq: [] }, ...extra });
  const p = `processing ${n(s.processing)}`;
  const due = `${s.punctualTasks} tasks due in 1–${1 + s.punctualSpreadMs / 1000} s`;
  return [
    m('enq_seq', `enqueue, ${n(s.sequentialAdds)} sequential awaited adds`, 'tasks/s', 'higher'),
    m('enq_64', `enqueue, ${n(s.inFlightAdds)} adds, 64 in flight`, 'tasks/s', 'higher'),
    m('enq_64_pcpu', 'producer CPU per add, 64 in flight', 'µs', 'lower'),
    m('enq_64_rcpu', 'Redis CPU per add, 64 in flight', 'µs', 'lower'),
    m('enq_bulk', `enqueue, ${n(s.bulkAdds)} bulk (chunks of 1 000)`, 'tasks/s', 'higher'),
    m('proc_c10', `${p}, 1 process, concurrency 10`, 'tasks/s', 'higher', { chart: true }),
    m('proc_c50', `${p}, 1 process, concurrency 50`, 'tasks/s', 'higher', { chart: true }),
    m('proc_c200', `${p}, 1 process, concurrency 200`, 'tasks/s', 'higher', { chart: true }),
    m('proc_4x50', `${p}, 4 processes, concurrency 50`, 'tasks/s', 'higher', { chart: true }),
    m('proc_c50_ff', `${p}, 1 process, concurrency 50, fire-and-forget`, 'tasks/s', 'higher', {
      chart: true,
      note:
        'docket executionTtl: 0; BullMQ removeOnComplete: true. The other processing rows use ' +
        "each library's default: docket keeps state 15 min, BullMQ keeps every completed job.",
    }),
    m('proc_b100', `${p}, 1 process, concurrency 10, docket batches of 100`, 'tasks/s', 'higher', {
      note:
        'docket: the no-op task has batch: { size: 100 } (one handler call per 100 tasks, ' +
        'each task keeping its own execution and result); BullMQ has no batch handlers ' +
        '(a paid feature): its worker takes one job at a time, as in the concurrency-10 row.',
    }),
    m('proc_c1', `${p}, 1 process, concurrency 1`, 'tasks/s', 'higher'),
    m(
      'proc_b100_c1',
      `${p}, 1 process, concurrency 1, docket batches of 100`,
      'tasks/s',
      'higher',
      {
        note:
          'docket: a batch takes one worker slot, so the concurrency-1 row (single tasks, one ' +
          'at a time) is the same work in the same slot. BullMQ has no batch handlers: its ' +
          'column is one job at a time, as in the concurrency-1 row.',
      },
    ),
    m('proc_c50_hist', `${p}, 1 process, concurrency 50, a history kept`, 'tasks/s', 'higher', {
      note:
        'docket: while a dashboard keeps a history of the last 1 000 finished executions ' +
        '(DocketInspector.keepHistory, as a mounted dashboard does); BullMQ: as in the ' +
        'concurrency-50 row (it keeps every completed job by default).',
    }),
    ...(
      [
        ['proc_c10', 'concurrency 10'],
        ['proc_c50', 'concurrency 50'],
        ['proc_c200', 'concurrency 200'],
        ['proc_4x50', '4 processes, concurrency 50'],
        ['proc_c50_ff', 'concurrency 50, fire-and-forget'],
        ['proc_b100', 'concurrency 10, docket batches of 100'],
        ['proc_c1', 'concurrency 1'],
        ['proc_b100_c1', 'concurrency 1, docket batches of 100'],
        ['proc_c50_hist', 'concurrency 50, a history kept'],
      ] as const
    ).flatMap(([id, label]) => [
      m(`${id}_cmds`, `Redis commands per task, ${label}`, 'commands', 'lower'),
      m(`${id}_cpu`, `CPU per task (worker + Redis), ${label}`, 'µs', 'lower'),
    ]),
    m('proc_c50_wcpu', 'worker CPU per task, concurrency 50', 'µs', 'lower'),
    m('proc_c50_rcpu', 'Redis CPU per task, concurrency 50', 'µs', 'lower'),
    m('proc_c50_ff_wcpu', 'worker CPU per task, concurrency 50, fire-and-forget', 'µs', 'lower'),
    m('proc_c50_ff_rcpu', 'Redis CPU per task, concurrency 50, fire-and-forget', 'µs', 'lower'),
    m('lat_p50', 'enqueue→start latency p50 at 500 tasks/s', 'ms', 'lower'),
    m('lat_p99', 'enqueue→start latency p99 at 500 tasks/s', 'ms', 'lower'),
    m('punct_p50', `punctuality p50, ${due}`, 'ms late', 'lower'),
    m('punct_p99', `punctuality p99, ${due}`, 'ms late', 'lower', {
      note:
        'BullMQ takes a delay, not a time: its due time is its own add time + delay, a ' +
        'fraction of a millisecond after the one the benchmark computes.',
    }),
    m('punct_early', 'punctuality, tasks started before due', 'tasks', 'lower'),
    m('idle_cmds', 'idle worker, Redis commands per second', 'commands/s', 'lower'),
    m('mem_100k', 'Redis memory per 100 000 scheduled future tasks', 'MiB', 'lower'),
    m('mem_100k_short', 'the same, keys or job ids "1" … "100000"', 'MiB', 'lower'),
    m('rss_c50', 'worker RSS, max during the concurrency-50 run', 'MiB', 'lower'),
    m(
      'rss_c50_start',
      'worker RSS when that run starts (booted, no task run yet)',
      'MiB',
      'lower',
      {
        note:
          'docket runs in a Nest application context, as a NestJS application would; the BullMQ ' +
          'worker is a plain BullMQ Worker, without Nest.',
      },
    ),
    m('rss_c50_growth', 'worker RSS growth during that run (max − at start)', 'MiB', 'lower'),
  ];
}
