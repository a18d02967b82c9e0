/**
 * The chaos run: `npm run chaos -- [--duration <s>] [--tasks <n>] [--seed <n>] [--keep]`.
 *
 * A redis-server of its own (AOF, fsync always, on a free loopback port), 4 worker processes
 * and 2 producer processes (test/fixtures/chaos-app.ts). The producers add the planned tasks
 * (unique keys; some future ±5 s, some failing their first attempts, some long) and 4 perpetual
 * keys. Every ~250 ms, with some probability, the driver SIGKILLs a random worker (a new one
 * replaces it), restarts Redis (SIGTERM or SIGKILL, down for up to 1.5 s, same port and dir),
 * fills Redis for up to 2 s (maxmemory just above what it holds: adds are refused while the
 * workers drain), adds a "toxic" task whose first run exits its worker (code 42) mid-task, or,
 * in the first half, a "poison" task whose every run exits its worker (code 43).
 *
 * At the end (producers done, everything drained or a deadline passed, the messages of killed
 * workers taken over, workers stopped with SIGTERM) it checks that no task was lost (every key
 * ran to its end and is completed), that each poison task was quarantined after
 * maxRedeliveries + 1 starts, that each perpetual key has exactly one live successor, that
 * nothing is pending in the consumer group and that no worker crashed by itself; it counts
 * duplicate runs and says whether each was in flight at a kill or a restart. It prints a summary
 * table and exits 0, or 1 when a check fails.
 */
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocketClient, DocketModule } from '../../lib/index.js';
import { removeDir, startStandalone, type RedisServer } from '../e2e/reliability/servers.js';
import {
  CHAOS_DOCKET,
  MAX_REDELIVERIES,
  POISON_STARTS,
  RUN_LOG,
  TASK,
  perpetualKeys,
  planTasks,
  prng,
} from './plan.js';

interface Options {
  duration: number;
  tasks: number;
  seed: number;
  keep: boolean;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    duration: 60,
    tasks: 2_000,
    seed: Math.floor(Math.random() * 2 ** 31),
    keep: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const n = Number(argv[++i]);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
      return n;
    };
    if (flag === '--duration') options.duration = value();
    else if (flag === '--tasks') options.tasks = Math.round(value());
    else if (flag === '--seed') options.seed = Math.round(value());
    else if (flag === '--keep') options.keep = true;
    else throw new Error(`unknown flag ${flag} (use --duration <s> --tasks <n> --seed <n> --keep)`);
  }
  return options;
}

const FIXTURE = fileURLToPath(new URL('../fixtures/chaos-app.js', import.meta.url));
const WORKERS = 4;
const PRODUCERS = 2;
const TICK = 250;
const P_KILL = 0.06;
const P_RESTART = 0.02;
const P_TOXIC = 0.04;
const P_POISON = 0.01;
const MOST_POISON = 3;
const P_FULL = 0.012;
/** A run that was in flight this long before a kill or a restart may run again. */
const IN_FLIGHT_SLACK = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Child {
  role: 'worker' | 'producer';
  process: ChildProcess;
  log: string;
  killedByUs: boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

class Chaos {
  private readonly random: () => number;
  private readonly workers = new Set<Child>();
  private readonly producers: Child[] = [];
  private stopping = false;
  private restarting = false;
  private logIndex = 0;
  readonly kills: { pid: number; at: number }[] = [];
  readonly restarts: { from: number; to: number; signal: string }[] = [];
  readonly toxicExits: { pid: number; at: number }[] = [];
  readonly poisonExits: { pid: number; at: number }[] = [];
  readonly fullPhases: { from: number; to: number }[] = [];
  readonly poisonKeys: string[] = [];
  private filling = false;
  private readonly started = Date.now();
  readonly crashes: string[] = [];
  readonly toxicKeys: string[] = [];
  private readonly toxicAdds: Promise<void>[] = [];

  constructor(
    private readonly options: Options,
    private readonly redis: RedisServer,
    private readonly client: DocketClient,
  ) {
    this.random = prng(options.seed ^ 0x5eed);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.redis.port}/0`;
  }

  private spawn(role: Child['role'], args: string[]): Child {
    const log = join(this.redis.dir, `${role}-${++this.logIndex}.log`);
    const fd = openSync(log, 'a');
    const child = spawn(process.execPath, [FIXTURE, role, this.url, ...args], {
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    return { role, process: child, log, killedByUs: false, exited };
  }

  startWorker(): void {
    const worker = this.spawn('worker', []);
    this.workers.add(worker);
    void worker.exited.then(({ code, signal }) => {
      this.workers.delete(worker);
      const pid = worker.process.pid ?? 0;
      if (code === 42) this.toxicExits.push({ pid, at: Date.now() });
      else if (code === 43) this.poisonExits.push({ pid, at: Date.now() });
      else if (!worker.killedByUs) {
        this.crashes.push(
          `worker ${pid} exited by itself (code ${code}, signal ${signal}); log ${worker.log}`,
        );
      }
      if (!this.stopping) {
        setTimeout(
          () => {
            if (!this.stopping) this.startWorker();
          },
          100 + this.random() * 700,
        );
      }
    });
  }

  startProducers(spread: number): void {
    for (let i = 0; i < PRODUCERS; i++) {
      this.producers.push(
        this.spawn('producer', [
          String(i),
          String(PRODUCERS),
          String(this.options.tasks),
          String(this.options.seed),
          String(Math.round(spread)),
        ]),
      );
    }
  }

  async producersDone(): Promise<{ added: number; failedAttempts: number }> {
    const total = { added: 0, failedAttempts: 0 };
    for (const producer of this.producers) {
      const { code } = await producer.exited;
      if (code !== 0) this.crashes.push(`producer exited with code ${code}; log ${producer.log}`);
      const last = readFileSync(producer.log, 'utf8').trim().split('\n').pop() ?? '{}';
      try {
        const summary = JSON.parse(last) as typeof total;
        total.added += summary.added;
        total.failedAttempts += summary.failedAttempts;
      } catch {
        this.crashes.push(`producer printed no summary; log ${producer.log}`);
      }
    }
    return total;
  }

  /** One chaos tick: maybe kill a worker, restart Redis, or add a toxic task. */
  tick(): void {
    const r = this.random();
    if (r < P_KILL) {
      const live = [...this.workers].filter((w) => !w.killedByUs);
      if (live.length === 0) return;
      const victim = live[Math.floor(this.random() * live.length)];
      victim.killedByUs = true;
      victim.process.kill('SIGKILL');
      this.kills.push({ pid: victim.process.pid ?? 0, at: Date.now() });
    } else if (r < P_KILL + P_RESTART) {
      if (!this.restarting) void this.restartRedis();
    } else if (r < P_KILL + P_RESTART + P_TOXIC) {
      const key = `toxic-${this.toxicKeys.length}`;
      this.toxicKeys.push(key);
      this.toxicAdds.push(this.addToxic(key, TASK.toxic));
    } else if (r < P_KILL + P_RESTART + P_TOXIC + P_POISON) {
      const early = Date.now() - this.started < this.options.duration * 500;
      if (early && this.poisonKeys.length < MOST_POISON) this.addPoison();
    } else if (r < P_KILL + P_RESTART + P_TOXIC + P_POISON + P_FULL) {
      if (!this.filling && !this.restarting) void this.fillRedis();
    }
  }

  /** Add a task whose every run exits its worker. */
  addPoison(): void {
    const key = `poison-${this.poisonKeys.length}`;
    this.poisonKeys.push(key);
    this.toxicAdds.push(this.addToxic(key, TASK.poison));
  }

  /** Redis at its maxmemory (noeviction) for a while: adds are refused, workers drain. */
  private async fillRedis(): Promise<void> {
    this.filling = true;
    const client = this.redis.client({ maxRetriesPerRequest: 1 });
    const from = Date.now();
    try {
      const info = String(await client.info('memory'));
      const used = Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? 0);
      await client.config('SET', 'maxmemory', String(used + 64 * 1024));
      await sleep(500 + this.random() * 1_500);
    } catch {
      // Redis restarting: the phase is cut short
    } finally {
      await client.config('SET', 'maxmemory', '0').catch(() => undefined);
      client.disconnect();
      this.fullPhases.push({ from, to: Date.now() });
      this.filling = false;
    }
  }

  private async restartRedis(): Promise<void> {
    this.restarting = true;
    const signal = this.random() < 0.5 ? 'SIGTERM' : 'SIGKILL';
    const from = Date.now();
    await this.redis.stop(signal);
    await sleep(this.random() * 1_500);
    await this.redis.start();
    this.restarts.push({ from, to: Date.now(), signal });
    this.restarting = false;
  }

  private async addToxic(key: string, task: string): Promise<void> {
    const work = Math.round(50 + this.random() * 300);
    for (;;) {
      try {
        if (task === TASK.toxic) await this.client.add(task, { key })(work);
        else await this.client.add(task, { key })();
        return;
      } catch {
        await sleep(100);
      }
    }
  }

  async settle(): Promise<void> {
    while (this.restarting || this.filling) await sleep(50);
    await Promise.all(this.toxicAdds);
  }

  /** Stop every worker with SIGTERM (they drain), SIGKILL after 20 s. */
  async stopWorkers(): Promise<void> {
    this.stopping = true;
    const workers = [...this.workers];
    for (const worker of workers) {
      worker.killedByUs = true;
      worker.process.kill('SIGTERM');
    }
    await Promise.all(
      workers.map(async (worker) => {
        const timer = setTimeout(() => worker.process.kill('SIGKILL'), 20_000);
        await worker.exited;
        clearTimeout(timer);
      }),
    );
  }

  killEverything(): void {
    this.stopping = true;
    for (const child of [...this.workers, ...this.producers]) child.process.kill('SIGKILL');
  }
}

interface Run {
  key: string;
  id: string;
  pid: number;
  started: number;
  ended: number;
  generation: string;
}

async function readRuns(redis: RedisServer): Promise<Map<string, Run[]>> {
  const client = redis.client();
  try {
    const entries = await client.lrange(RUN_LOG, 0, -1);
    const byKey = new Map<string, Run[]>();
    const seen = new Set<string>();
    for (const entry of entries) {
      const [key, id, pid, started, ended, generation] = entry.split('|');
      if (seen.has(id)) continue; // the recorder sent one write twice after a reconnect
      seen.add(id);
      const runs = byKey.get(key) ?? [];
      runs.push({
        key,
        id,
        pid: Number(pid),
        started: Number(started),
        ended: Number(ended),
        generation,
      });
      byKey.set(key, runs);
    }
    return byKey;
  } finally {
    client.disconnect();
  }
}

/** Keys whose runs hash is not `completed` (or that never ran), among `keys`. */
async function unfinished(redis: RedisServer, keys: string[]): Promise<string[]> {
  const client = redis.client();
  try {
    const pipeline = client.pipeline();
    for (const key of keys) pipeline.hget(`{${CHAOS_DOCKET}}:runs:${key}`, 'state');
    const replies = (await pipeline.exec()) ?? [];
    return keys.filter((_, i) => replies[i]?.[1] !== 'completed');
  } finally {
    client.disconnect();
  }
}

interface PerpetualCheck {
  key: string;
  state: string | null;
  live: number;
  stale: number;
}

async function checkPerpetual(redis: RedisServer): Promise<PerpetualCheck[]> {
  const client = redis.client();
  const prefix = `{${CHAOS_DOCKET}}:`;
  try {
    const entries = await client.xrange(`${prefix}stream`, '-', '+');
    const fieldsOf = (list: string[]) => {
      const f: Record<string, string> = {};
      for (let i = 0; i + 1 < list.length; i += 2) f[list[i]] = list[i + 1];
      return f;
    };
    const checks: PerpetualCheck[] = [];
    for (const key of perpetualKeys()) {
      const [state, generation] = await client.hmget(`${prefix}runs:${key}`, 'state', 'generation');
      const messages = entries.map(([, fields]) => fieldsOf(fields)).filter((f) => f.key === key);
      const current = messages.filter((f) => f.generation === generation).length;
      const inQueue = (await client.zscore(`${prefix}queue`, key)) !== null;
      const parked = fieldsOf(
        Object.entries(await client.hgetall(`${prefix}parked:${key}`)).flat(),
      );
      // a future task's message is made from its record when it comes due (a parked hash only
      // comes from a producer of the wire format)
      const parkedCurrent =
        inQueue &&
        (parked.generation === generation ||
          (Object.keys(parked).length === 0 && state === 'scheduled'))
          ? 1
          : 0;
      checks.push({
        key,
        state,
        live:
          state === 'scheduled' || state === 'queued' || state === 'running'
            ? current + parkedCurrent
            : 0,
        stale: messages.length - current,
      });
    }
    return checks;
  } finally {
    client.disconnect();
  }
}

async function pendingCount(redis: RedisServer): Promise<number> {
  const client = redis.client();
  try {
    const [count] = (await client.xpending(`{${CHAOS_DOCKET}}:stream`, 'docket-workers')) as [
      number,
    ];
    return Number(count);
  } finally {
    client.disconnect();
  }
}

/** State, error and starts of each poison key. */
async function poisonStates(
  redis: RedisServer,
  keys: string[],
): Promise<{ key: string; state: string | null; error: string | null; starts: number }[]> {
  const client = redis.client();
  try {
    return await Promise.all(
      keys.map(async (key) => {
        const [state, error] = await client.hmget(
          `{${CHAOS_DOCKET}}:runs:${key}`,
          'state',
          'error',
        );
        const starts = Number((await client.hget(POISON_STARTS, key)) ?? 0);
        return { key, state, error, starts };
      }),
    );
  } finally {
    client.disconnect();
  }
}

/**
 * Messages pending for a consumer whose worker is gone (it was killed after it read them, or
 * exited by a toxic or poison task): a live worker takes them over after redeliveryTimeout.
 * The run waits for that before it stops the workers, or they would stay pending. A worker is
 * gone when it stopped beating or when its process (`dead`, named `<host>#<pid>` by default)
 * was seen to die: one killed in the last seconds of the chaos still looks alive by its beat.
 */
async function pendingOfGoneWorkers(redis: RedisServer, dead: Set<number>): Promise<number> {
  const client = redis.client();
  const prefix = `{${CHAOS_DOCKET}}:`;
  try {
    const live = new Set(
      await client.zrangebyscore(`${prefix}workers`, Date.now() - 5_000, '+inf'),
    );
    const pending = (await client.xpending(
      `${prefix}stream`,
      'docket-workers',
      '-',
      '+',
      10_000,
    )) as [string, string, number, number][];
    const gone = (consumer: string) =>
      !live.has(consumer) || dead.has(Number(consumer.slice(consumer.lastIndexOf('#') + 1)));
    return pending.filter(([, consumer]) => gone(consumer)).length;
  } finally {
    client.disconnect();
  }
}

/** Resolve once `count` workers beat (booting Nest takes seconds on a busy machine). */
async function workersUp(redis: RedisServer, count: number): Promise<void> {
  const client = redis.client();
  try {
    const deadline = Date.now() + 120_000;
    while ((await client.zcard(`{${CHAOS_DOCKET}}:workers`)) < count) {
      if (Date.now() > deadline) throw new Error(`${count} workers did not start within 120 s`);
      await sleep(200);
    }
  } finally {
    client.disconnect();
  }
}

/** Whether a run was in flight when its worker was killed or Redis restarted. */
function explain(run: Run, chaos: Chaos): string | undefined {
  const from = run.started;
  const to = run.ended + IN_FLIGHT_SLACK;
  if (chaos.kills.some((k) => k.pid === run.pid && k.at >= from && k.at <= to)) return 'kill';
  if (chaos.toxicExits.some((k) => k.pid === run.pid && k.at >= from && k.at <= to)) {
    return 'toxic exit';
  }
  if (chaos.poisonExits.some((k) => k.pid === run.pid && k.at >= from && k.at <= to)) {
    return 'poison exit';
  }
  if (chaos.restarts.some((r) => r.from <= to && r.to >= from)) return 'restart';
  return undefined;
}

function table(rows: [string, string | number][]): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => String(value).length));
  const line = `+${'-'.repeat(width + 2)}+${'-'.repeat(valueWidth + 2)}+`;
  return [
    line,
    ...rows.map(
      ([label, value]) => `| ${label.padEnd(width)} | ${String(value).padStart(valueWidth)} |`,
    ),
    line,
  ].join('\n');
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  console.log(
    `chaos: ${options.tasks} tasks, ${options.duration} s, seed ${options.seed} (--seed ${options.seed} repeats the plan)`,
  );
  const redis = await startStandalone({ aof: true });
  console.log(`chaos: redis on 127.0.0.1:${redis.port}, data and logs in ${redis.dir}`);

  @Module({
    imports: [
      DocketModule.forRoot({
        name: CHAOS_DOCKET,
        url: `redis://127.0.0.1:${redis.port}/0`,
        worker: false,
      }),
    ],
  })
  class DriverModule {}
  const app = await NestFactory.createApplicationContext(DriverModule, { logger: ['error'] });
  const chaos = new Chaos(options, redis, app.get(DocketClient));
  const failures: string[] = [];
  let passed = false;
  try {
    for (let i = 0; i < WORKERS; i++) chaos.startWorker();
    await workersUp(redis, WORKERS);
    const started = Date.now();
    chaos.startProducers(options.duration * 1_000 * 0.6);

    const end = started + options.duration * 1_000;
    // one poison task in every run, more by chance
    chaos.addPoison();
    while (Date.now() < end) {
      await sleep(TICK);
      chaos.tick();
    }
    await chaos.settle();
    const chaosEnded = Date.now();
    const produced = await chaos.producersDone();
    console.log(
      `chaos: chaos over after ${((chaosEnded - started) / 1000).toFixed(1)} s; draining`,
    );

    const planned = planTasks(options.tasks, options.seed).map((t) => t.key);
    const expected = [...planned, ...chaos.toxicKeys];
    // slow is not lost: a loaded machine gets time to finish the retries the chaos left
    const drainDeadline = Date.now() + Math.max(90_000, options.duration * 1_000);
    let left = expected;
    let poisonLeft = chaos.poisonKeys.length;
    let gone = 0;
    while (Date.now() < drainDeadline) {
      try {
        left = await unfinished(redis, left);
        poisonLeft = (await poisonStates(redis, chaos.poisonKeys)).filter(
          (p) => p.state !== 'failed',
        ).length;
        const dead = new Set(
          [...chaos.kills, ...chaos.toxicExits, ...chaos.poisonExits].map((exit) => exit.pid),
        );
        gone = await pendingOfGoneWorkers(redis, dead);
      } catch {
        // Redis restarting as the chaos ended: look again
      }
      if (left.length === 0 && poisonLeft === 0 && gone === 0) break;
      await sleep(500);
    }
    const drained = Date.now();
    await chaos.stopWorkers();
    const poison = await poisonStates(redis, chaos.poisonKeys);

    const runs = await readRuns(redis);
    const lost = expected.filter((key) => !runs.has(key));
    const notCompleted = await unfinished(redis, expected);
    const perpetual = await checkPerpetual(redis);
    const pending = await pendingCount(redis);

    let executions = 0;
    let duplicates = 0;
    /** Two runs of one key and generation in one worker process (never needed). */
    let sameWorker = 0;
    const unexplained: string[] = [];
    const causes = new Map<string, number>();
    for (const key of expected) {
      const list = (runs.get(key) ?? []).sort((a, b) => a.started - b.started);
      executions += list.length;
      if (list.length < 2) continue;
      duplicates++;
      const seen = new Set<string>();
      for (const run of list) {
        const id = `${run.pid}/${run.generation}`;
        if (seen.has(id)) sameWorker++;
        seen.add(id);
      }
      for (const run of list.slice(0, -1)) {
        const cause = explain(run, chaos);
        if (cause) causes.set(cause, (causes.get(cause) ?? 0) + 1);
        else
          unexplained.push(
            `${key} (runs at ${list.map((r) => `${r.pid}@${r.started}`).join(', ')})`,
          );
      }
    }
    let perpetualRuns = 0;
    let perpetualDuplicates = 0;
    for (const key of perpetualKeys()) {
      const list = (runs.get(key) ?? []).sort((a, b) => a.started - b.started);
      perpetualRuns += list.length;
      const byGeneration = new Map<string, Run[]>();
      for (const run of list) {
        byGeneration.set(run.generation, [...(byGeneration.get(run.generation) ?? []), run]);
      }
      for (const same of byGeneration.values()) {
        if (same.length < 2) continue;
        perpetualDuplicates++;
        if (new Set(same.map((r) => r.pid)).size < same.length) sameWorker++;
        for (const run of same.slice(0, -1)) {
          const cause = explain(run, chaos);
          if (cause) causes.set(cause, (causes.get(cause) ?? 0) + 1);
          else
            unexplained.push(
              `${key} generation ${run.generation} (${same.map((r) => `${r.pid}@${r.started}`).join(', ')})`,
            );
        }
      }
    }
    const elapsed = (drained - started) / 1_000;
    writeFileSync(
      join(redis.dir, 'events.json'),
      JSON.stringify(
        {
          started,
          chaosEnded,
          drained,
          kills: chaos.kills,
          restarts: chaos.restarts,
          toxicExits: chaos.toxicExits,
          poisonExits: chaos.poisonExits,
          fullPhases: chaos.fullPhases,
          runs: Object.fromEntries(runs),
        },
        null,
        1,
      ),
    );

    if (lost.length) failures.push(`${lost.length} task(s) lost: ${lost.slice(0, 10).join(', ')}`);
    if (notCompleted.length) {
      failures.push(
        `${notCompleted.length} task(s) not completed by the deadline: ${notCompleted.slice(0, 10).join(', ')}`,
      );
    }
    for (const check of perpetual) {
      if (check.live !== 1) {
        failures.push(
          `perpetual ${check.key}: ${check.live} live successor(s) (state ${check.state}, ${check.stale} stale message(s))`,
        );
      }
    }
    for (const p of poison) {
      if (p.state !== 'failed' || !/^PoisonMessageError: started \d+ times/.test(p.error ?? '')) {
        failures.push(`poison ${p.key} was not quarantined (state ${p.state}, error ${p.error})`);
      }
      if (p.starts > MAX_REDELIVERIES + 1) {
        failures.push(`poison ${p.key} started ${p.starts} times (most: ${MAX_REDELIVERIES + 1})`);
      }
    }
    if (pending !== 0) {
      failures.push(
        `${pending} message(s) pending in the consumer group (${gone} of gone workers at the drain's end)`,
      );
    }
    failures.push(...chaos.crashes);

    console.log(
      '\n' +
        table([
          ['tasks planned', options.tasks],
          ['toxic tasks', chaos.toxicKeys.length],
          ['perpetual keys', perpetualKeys().length],
          ['adds that failed and were retried', produced.failedAttempts],
          ['worker kills (SIGKILL)', chaos.kills.length],
          ['worker exits by toxic tasks', chaos.toxicExits.length],
          [
            'poison tasks (quarantined)',
            `${chaos.poisonKeys.length} (${poison.filter((p) => p.state === 'failed').length})`,
          ],
          [
            '  their starts (most per task)',
            `${poison.reduce((n, p) => n + p.starts, 0)} (${MAX_REDELIVERIES + 1})`,
          ],
          ['worker exits by poison tasks', chaos.poisonExits.length],
          ['full-Redis phases (adds refused)', chaos.fullPhases.length],
          ['Redis restarts', chaos.restarts.length],
          ['lost', lost.length],
          ['not completed', notCompleted.length],
          ['tasks run more than once', duplicates],
          [
            '  in flight at a kill / toxic or poison exit',
            (causes.get('kill') ?? 0) +
              (causes.get('toxic exit') ?? 0) +
              (causes.get('poison exit') ?? 0),
          ],
          ['  in flight at a Redis restart', causes.get('restart') ?? 0],
          ['  unexplained', unexplained.length],
          ['  twice in one worker process', sameWorker],
          ['runs of tasks (completed handler runs)', executions],
          ['runs of perpetual keys', perpetualRuns],
          ['perpetual runs of one generation run twice', perpetualDuplicates],
          ['pending in the group at the end', pending],
          ['elapsed (chaos + drain), s', elapsed.toFixed(1)],
          ['throughput, task runs/s', ((executions + perpetualRuns) / elapsed).toFixed(1)],
        ]),
    );
    if (unexplained.length) {
      console.log(
        `\nunexplained duplicates (first 10):\n  ${unexplained.slice(0, 10).join('\n  ')}`,
      );
    }
    if (failures.length) {
      console.log(`\nFAILED:\n  ${failures.join('\n  ')}`);
    } else {
      console.log(
        '\nOK: no task lost, poison quarantined, one live successor per perpetual key, nothing pending',
      );
      passed = true;
    }
    return passed ? 0 : 1;
  } finally {
    chaos.killEverything();
    await app.close().catch(() => undefined);
    await redis.stop();
    if (passed && !options.keep) removeDir(redis.dir);
    else console.log(`chaos: logs and data kept in ${redis.dir}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
