// Compare the worker of two builds of this repository, paired: node .out/bench/compare-builds.js
// <checkout A> <checkout B> [concurrency=50] [rounds=10] [--fresh] [--batch]. Each checkout must
// have run `npm run build:test`. One warm worker process per build drains 20 000 pre-filled
// no-op tasks per round from the Redis at DOCKET_BENCH_URL (default redis://127.0.0.1:6379), A
// and B in turn (which goes first alternates), and the medians of the per-round ratios are
// printed: tasks/s, the worker's and Redis's CPU µs per task; and how often each worker's
// delivery loop read the stream itself (the other reads go along with claims and ends).
// --fresh: a new worker process for every round (cold, as `npm run bench` starts one per run);
// --batch: the no-op task takes batches of 100. Pairing adjacent runs cancels most of what a
// shared machine's load does to both; `npm run bench` is the comparison with BullMQ.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { redisCpuMicros } from './redis.js';

interface Round {
  rate: number;
  cpu: number;
  /** Redis's CPU µs per task (the whole server's, while the round ran). */
  redisCpu: number;
  /** Reads of the worker's delivery loop (its own XREADGROUP) in the round. */
  loopReads: number;
}

/** Count the delivery loop's reads: wrap `read` of the reader class of `checkout`. */
async function countLoopReads(checkout: string): Promise<() => number> {
  const file = `${checkout}/.out/lib/store/delivery-reader.js`;
  const module = (await import(file)) as Record<string, unknown>;
  const reader = Object.values(module).find(
    (value): value is { prototype: { read: (...args: unknown[]) => Promise<unknown> } } =>
      typeof value === 'function' && typeof value.prototype?.read === 'function',
  );
  let reads = 0;
  if (reader) {
    const read = reader.prototype.read;
    reader.prototype.read = function (this: unknown, ...args: unknown[]) {
      reads++;
      return read.apply(this, args);
    };
  }
  return () => reads;
}

const TASKS = 20_000;

/** In a child: drain TASKS tasks per 'go' with the docket side of `checkout`. */
async function child(checkout: string, concurrency: number, batch: boolean): Promise<void> {
  const url = process.env.DOCKET_BENCH_URL ?? 'redis://127.0.0.1:6379';
  const stats = new Redis(url);
  const sideFile = `${checkout}/.out/bench/docket-side.js`;
  const { docketSide } = (await import(sideFile)) as typeof import('./docket-side.js');
  const loopReads = await countLoopReads(checkout);
  let round = 0;
  process.on('message', (message) => {
    if (message !== 'go') {
      stats.disconnect();
      process.exit(0);
    }
    void (async () => {
      const options = {
        queue: `compare-${process.pid}-${round++}`,
        url,
        fireAndForget: false,
        batch: batch ? 100 : undefined,
      };
      const producer = await docketSide.producer(options);
      for (let i = 0; i < TASKS; i += 1_000) {
        await producer.addBulk!(Array.from({ length: 1_000 }, (_, j) => ({ i: i + j })));
      }
      let count = 0;
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const consumer = await docketSide.consumer(options, concurrency, () => {
        if (++count === TASKS) done();
      });
      const cpu = process.cpuUsage();
      const readsBefore = loopReads();
      const redisBefore = await redisCpuMicros(stats);
      const start = performance.now();
      consumer.start();
      await finished;
      const used = process.cpuUsage(cpu);
      const ms = performance.now() - start;
      const redisUsed = (await redisCpuMicros(stats)) - redisBefore;
      await consumer.stop();
      await producer.close();
      process.send!({
        rate: (TASKS / ms) * 1_000,
        cpu: (used.user + used.system) / TASKS,
        redisCpu: redisUsed / TASKS,
        loopReads: loopReads() - readsBefore,
      });
    })();
  });
  process.send!('ready');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main(): Promise<void> {
  const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'));
  const [a, b, c = '50', r = '10'] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const fresh = flags.includes('--fresh');
  const batch = flags.includes('--batch');
  if (process.env.COMPARE_CHILD) return child(a, Number(c), batch);
  if (!a || !b) {
    throw new Error(
      'usage: compare-builds.js <checkout A> <checkout B> [concurrency] [rounds] [--fresh] [--batch]',
    );
  }
  const self = fileURLToPath(import.meta.url);
  const spawn = (checkout: string) =>
    new Promise<ChildProcess>((resolve) => {
      const p = fork(self, [checkout, c, ...flags], {
        env: { ...process.env, COMPARE_CHILD: '1' },
      });
      p.once('message', () => resolve(p));
    });
  const run = (p: ChildProcess) =>
    new Promise<Round>((resolve) => {
      p.once('message', (m) => resolve(m as Round));
      p.send('go');
    });
  const stop = (p: ChildProcess) =>
    new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.send('stop');
    });
  const [pa, pb] = fresh ? [undefined, undefined] : [await spawn(a), await spawn(b)];
  const once = async (checkout: string, warm: ChildProcess | undefined): Promise<Round> => {
    if (warm) return run(warm);
    const p = await spawn(checkout);
    const round = await run(p);
    await stop(p);
    return round;
  };
  const ratio: Record<'rate' | 'cpu' | 'redisCpu', number[]> = { rate: [], cpu: [], redisCpu: [] };
  const rounds: Record<'A' | 'B', Round[]> = { A: [], B: [] };
  for (let i = 0; i < Number(r); i++) {
    // which goes first alternates
    let x: Round;
    let y: Round;
    if (i % 2 === 0) {
      x = await once(a, pa);
      y = await once(b, pb);
    } else {
      y = await once(b, pb);
      x = await once(a, pa);
    }
    for (const key of ['rate', 'cpu', 'redisCpu'] as const) ratio[key].push(x[key] / y[key]);
    rounds.A.push(x);
    rounds.B.push(y);
  }
  const of = (side: 'A' | 'B', key: keyof Round) => median(rounds[side].map((round) => round[key]));
  const each = (key: keyof Round, digits: number) =>
    `A ${of('A', key).toFixed(digits)} B ${of('B', key).toFixed(digits)}`;
  console.log(
    `concurrency ${c}${batch ? ', batches of 100' : ''}, ${r} rounds${fresh ? ' (a fresh worker process each)' : ''}: ` +
      `A/B tasks/s ${median(ratio.rate).toFixed(3)} (rounds ${ratio.rate.map((v) => v.toFixed(2)).join(' ')}; ${each('rate', 0)}), ` +
      `A/B worker CPU per task ${median(ratio.cpu).toFixed(3)} (${each('cpu', 1)} µs), ` +
      `A/B Redis CPU per task ${median(ratio.redisCpu).toFixed(3)} (${each('redisCpu', 1)} µs), ` +
      `delivery-loop reads per ${TASKS} tasks ${each('loopReads', 0)}`,
  );
  if (pa) await stop(pa);
  if (pb) await stop(pb);
}

void main();
