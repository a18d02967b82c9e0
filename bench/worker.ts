// A worker process of the benchmark: node .out/bench/worker.js '<WorkerSpec as JSON>'.
// It boots one library's worker, says 'ready', takes tasks after 'start', says how many it
// ran at every `reportEvery` tasks, and on 'stop' drains, reports what it measured and exits.
import { bullmqSide } from './bullmq-side.js';
import { docketSide } from './docket-side.js';
import { nowMs, type Lib, type Payload, type SideOptions } from './side.js';

export interface WorkerSpec extends SideOptions {
  lib: Lib;
  concurrency: number;
  /** What each task records: nothing, start − sent (ms), or start − due (ms). */
  record: 'count' | 'latency' | 'punctuality';
  /**
   * Report the count when it reaches a multiple of this. Sparse on purpose: a message per
   * task (or per few ms) costs the worker measurable CPU, more so the busier it is.
   */
  reportEvery: number;
}

/** Messages from the orchestrator. */
export type ToWorker = { cmd: 'start' } | { cmd: 'stop' };

/** Messages to the orchestrator. */
export type FromWorker =
  | { type: 'ready' }
  | { type: 'count'; count: number }
  | {
      type: 'done';
      count: number;
      /** RSS (bytes) when told to start: booted, connected, no task run yet. */
      rssStart: number;
      rssMax: number;
      cpuMicros: number;
      samples: number[];
    }
  | { type: 'error'; message: string };

const RSS_EVERY_MS = 100;
const MAX_SAMPLES = 200_000;

function send(message: FromWorker): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? '{}') as WorkerSpec;
  const side = spec.lib === 'docket' ? docketSide : bullmqSide;
  let count = 0;
  const samples: number[] = [];
  const counted = () => {
    if (++count % spec.reportEvery === 0) void send({ type: 'count', count });
  };
  const onTask =
    spec.record === 'count'
      ? counted
      : (payload: Payload) => {
          const stamp = spec.record === 'latency' ? payload.sent : payload.due;
          // Punctuality compares with the due time in whole ms, as both libraries decide it.
          const now = spec.record === 'latency' ? nowMs() : Date.now();
          if (stamp !== undefined && samples.length < MAX_SAMPLES) samples.push(now - stamp);
          counted();
        };
  const consumer = await side.consumer(spec, spec.concurrency, onTask);

  let rssMax = process.memoryUsage.rss();
  let rssStart = rssMax;
  let rssTimer: NodeJS.Timeout | undefined;
  let cpuStart = process.cpuUsage();
  let stopping = false;
  process.on('message', (message: ToWorker) => {
    if (message.cmd === 'start') {
      cpuStart = process.cpuUsage();
      rssStart = process.memoryUsage.rss();
      rssMax = Math.max(rssMax, rssStart);
      consumer.start();
      rssTimer = setInterval(() => {
        rssMax = Math.max(rssMax, process.memoryUsage.rss());
      }, RSS_EVERY_MS);
    } else if (message.cmd === 'stop' && !stopping) {
      stopping = true;
      void (async () => {
        clearInterval(rssTimer);
        const cpu = process.cpuUsage(cpuStart);
        rssMax = Math.max(rssMax, process.memoryUsage.rss());
        await consumer.stop();
        await send({
          type: 'done',
          count,
          rssStart,
          rssMax,
          cpuMicros: cpu.user + cpu.system,
          samples,
        });
        process.exit(0);
      })();
    }
  });
  // The orchestrator went away: do not linger.
  process.on('disconnect', () => process.exit(1));
  await send({ type: 'ready' });
}

main().catch(async (error: unknown) => {
  await send({ type: 'error', message: (error as Error)?.stack ?? String(error) });
  process.exit(1);
});
