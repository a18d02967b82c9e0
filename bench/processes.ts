import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { killRedisNow } from './redis.js';
import type { FromWorker, ToWorker, WorkerSpec } from './worker.js';

const children = new Set<ChildProcess>();

/** Kill every worker process and the redis-server on any exit, also on error or Ctrl-C. */
export function killChildrenOnExit(): void {
  process.on('exit', killChildren);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
}

function killChildren(): void {
  killWorkers();
  killRedisNow();
}

/** Kill the worker processes still alive (after an error). */
export function killWorkers(): void {
  for (const child of children) child.kill('SIGKILL');
}

export type Done = Extract<FromWorker, { type: 'done' }>;

/** One worker process (`node .out/bench/worker.js <spec>`). */
export class WorkerProcess {
  count = 0;
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly done: Promise<Done>;
  private readonly exited: Promise<void>;
  private stopping?: Promise<Done>;
  private onCount?: () => void;

  constructor(spec: WorkerSpec, execArgv: string[] = []) {
    const entry = fileURLToPath(new URL('./worker.js', import.meta.url));
    this.child = fork(entry, [JSON.stringify(spec)], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(this.child);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', () => {
        children.delete(this.child);
        resolve();
      }),
    );
    let readyResolve!: () => void;
    let doneResolve!: (done: Done) => void;
    let fail!: (error: Error) => void;
    const failed = new Promise<never>((_, reject) => (fail = reject));
    failed.catch(() => undefined);
    this.ready = Promise.race([new Promise<void>((r) => (readyResolve = r)), failed]);
    this.done = Promise.race([new Promise<Done>((r) => (doneResolve = r)), failed]);
    this.ready.catch(() => undefined);
    this.done.catch(() => undefined);
    this.child.on('message', (message: FromWorker) => {
      if (message.type === 'ready') readyResolve();
      else if (message.type === 'count') {
        this.count = message.count;
        this.onCount?.();
      } else if (message.type === 'done') doneResolve(message);
      else fail(new Error(`worker process: ${message.message}`));
    });
    void this.exited.then(() => fail(new Error('worker process exited early')));
  }

  private send(message: ToWorker): void {
    if (this.child.connected) this.child.send(message);
  }

  start(): void {
    this.send({ cmd: 'start' });
  }

  set countListener(listener: (() => void) | undefined) {
    this.onCount = listener;
  }

  /** Drain and exit; killed when it does not within 30 s. Safe to call again. */
  stop(): Promise<Done> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private async drain(): Promise<Done> {
    this.send({ cmd: 'stop' });
    try {
      return await within(this.done, 30_000, 'a worker process to stop');
    } finally {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

export async function spawnWorkers(
  n: number,
  spec: WorkerSpec,
  execArgv: string[] = [],
): Promise<WorkerProcess[]> {
  const workers = Array.from({ length: n }, () => new WorkerProcess(spec, execArgv));
  try {
    await within(Promise.all(workers.map((w) => w.ready)), 30_000, 'worker processes to boot');
  } catch (error) {
    await Promise.allSettled(workers.map((w) => w.stop()));
    throw error;
  }
  return workers;
}

/** Resolve once the workers together report `n` handled tasks. */
export function handled(workers: WorkerProcess[], n: number, timeoutMs: number): Promise<void> {
  const total = () => workers.reduce((sum, w) => sum + w.count, 0);
  const reached = new Promise<void>((resolve) => {
    const check = () => {
      if (total() < n) return;
      for (const w of workers) w.countListener = undefined;
      resolve();
    };
    for (const w of workers) w.countListener = check;
    check();
  });
  return within(reached, timeoutMs, `${n} tasks to be handled`);
}

export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Poll every 2 ms (bounded) until `condition` holds. */
export async function until(
  condition: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(2);
  }
}

/** Run `job(0..n-1)` with `width` of them in flight. */
export async function pool(
  n: number,
  width: number,
  job: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
}

function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
  const busy = user + nice + system + irq + softirq + (steal || 0);
  return { busy, total: busy + idle + iowait };
}

/** Share of all CPUs busy over the next `ms` (0..1; NaN off Linux). */
export async function cpuBusy(ms: number): Promise<number> {
  try {
    const a = cpuTimes();
    await sleep(ms);
    const b = cpuTimes();
    return (b.busy - a.busy) / Math.max(1, b.total - a.total);
  } catch {
    await sleep(ms);
    return NaN;
  }
}

/**
 * Wait (at most `maxWaitMs`) until the machine is quiet: other processes on this 2-core
 * machine (builds, test runs) skew a run. Returns the busy share seen last.
 */
export async function quiet(threshold: number, maxWaitMs: number): Promise<number> {
  const deadline = performance.now() + maxWaitMs;
  for (;;) {
    const busy = await cpuBusy(300);
    if (!(busy > threshold) || performance.now() > deadline) return busy;
  }
}
