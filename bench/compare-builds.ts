// Compare the worker of two builds of this repository, paired: node .out/bench/compare-builds.js
// <checkout A> <checkout B> [concurrency=50] [rounds=10]. Each checkout must have run
// `npm run build:test`. One warm worker process per build drains 20 000 pre-filled no-op tasks
// per round from the Redis at DOCKET_BENCH_URL (default redis://127.0.0.1:6379), A and B in
// turn (which goes first alternates), and the medians of the per-round ratios are printed:
// tasks/s, and the worker's CPU µs per task; and how often each worker's delivery loop read
// the stream itself (the other reads go along with claims and ends). Pairing adjacent runs cancels most of what a
// shared machine's load does to both; `npm run bench` is the comparison with BullMQ.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Round {
  rate: number;
  cpu: number;
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
async function child(checkout: string, concurrency: number): Promise<void> {
  const url = process.env.DOCKET_BENCH_URL ?? 'redis://127.0.0.1:6379';
  const sideFile = `${checkout}/.out/bench/docket-side.js`;
  const { docketSide } = (await import(sideFile)) as typeof import('./docket-side.js');
  const loopReads = await countLoopReads(checkout);
  let round = 0;
  process.on('message', (message) => {
    if (message !== 'go') process.exit(0);
    void (async () => {
      const options = { queue: `compare-${process.pid}-${round++}`, url, fireAndForget: false };
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
      const start = performance.now();
      consumer.start();
      await finished;
      const used = process.cpuUsage(cpu);
      const ms = performance.now() - start;
      await consumer.stop();
      await producer.close();
      process.send!({
        rate: (TASKS / ms) * 1_000,
        cpu: (used.user + used.system) / TASKS,
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
  const [a, b, c = '50', r = '10'] = process.argv.slice(2);
  if (process.env.COMPARE_CHILD) return child(a, Number(c));
  if (!a || !b)
    throw new Error('usage: compare-builds.js <checkout A> <checkout B> [concurrency] [rounds]');
  const self = fileURLToPath(import.meta.url);
  const spawn = (checkout: string) =>
    new Promise<ChildProcess>((resolve) => {
      const p = fork(self, [checkout, c], { env: { ...process.env, COMPARE_CHILD: '1' } });
      p.once('message', () => resolve(p));
    });
  const run = (p: ChildProcess) =>
    new Promise<Round>((resolve) => {
      p.once('message', (m) => resolve(m as Round));
      p.send('go');
    });
  const [pa, pb] = [await spawn(a), await spawn(b)];
  const rate: number[] = [];
  const cpu: number[] = [];
  const readsA: number[] = [];
  const readsB: number[] = [];
  for (let i = 0; i < Number(r); i++) {
    // which goes first alternates
    let x: Round;
    let y: Round;
    if (i % 2 === 0) {
      x = await run(pa);
      y = await run(pb);
    } else {
      y = await run(pb);
      x = await run(pa);
    }
    rate.push(x.rate / y.rate);
    cpu.push(x.cpu / y.cpu);
    readsA.push(x.loopReads);
    readsB.push(y.loopReads);
  }
  console.log(
    `concurrency ${c}, ${r} rounds: A/B tasks/s ${median(rate).toFixed(3)} (rounds ${rate.map((v) => v.toFixed(2)).join(' ')}), A/B worker CPU per task ${median(cpu).toFixed(3)}, delivery-loop reads per ${TASKS} tasks A ${median(readsA)} B ${median(readsB)}`,
  );
  pa.send('stop');
  pb.send('stop');
}

void main();
