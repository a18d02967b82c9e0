import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Consumer, Payload, Producer, Side, SideOptions } from './side.js';

function connection(url: string, worker: boolean): ConnectionOptions {
  const { hostname, port } = new URL(url);
  // A worker's blocking connection must retry forever (BullMQ refuses it otherwise).
  return { host: hostname, port: Number(port), ...(worker ? { maxRetriesPerRequest: null } : {}) };
}

function version(): string {
  const entry = createRequire(import.meta.url).resolve('bullmq');
  let dir = dirname(entry);
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (pkg.name === 'bullmq') return pkg.version;
    } catch {
      // not here; look one folder up
    }
  }
  return 'unknown';
}

/** Jobs of the queue that are not finished, in every state a job waits or runs in. */
const UNFINISHED = ['wait', 'active', 'delayed', 'prioritized', 'paused', 'waiting-children'];

export const bullmqSide: Side = {
  lib: 'bullmq',
  version: version(),

  async producer(options: SideOptions): Promise<Producer> {
    const queue = new Queue(options.queue, {
      connection: connection(options.url, false),
      // BullMQ's default keeps every completed job; fire-and-forget removes it at once.
      defaultJobOptions: options.fireAndForget ? { removeOnComplete: true } : {},
    });
    await queue.waitUntilReady();
    return {
      async add(payload: Payload, due?: number, key?: string): Promise<void> {
        const opts =
          due === undefined && key === undefined
            ? undefined
            : {
                delay: due === undefined ? undefined : Math.max(0, due - Date.now()),
                // BullMQ refuses integer ids of its own choosing; its own ids are that counter
                jobId: key === undefined || /^\d+$/.test(key) ? undefined : key,
              };
        await queue.add('noop', payload, opts);
      },
      async addBulk(payloads: Payload[]): Promise<void> {
        await queue.addBulk(payloads.map((data) => ({ name: 'noop', data })));
      },
      async unfinished(): Promise<number> {
        const counts = await queue.getJobCounts(...(UNFINISHED as never[]));
        return Object.values(counts).reduce((sum, n) => sum + n, 0);
      },
      close: () => queue.close(),
    };
  },

  async consumer(
    options: SideOptions,
    concurrency: number,
    onTask: (payload: Payload) => void,
  ): Promise<Consumer> {
    const worker = new Worker(
      options.queue,
      async (job) => {
        onTask(job.data as Payload);
      },
      { connection: connection(options.url, true), concurrency, autorun: false },
    );
    worker.on('error', () => undefined);
    await worker.waitUntilReady();
    return {
      start(): void {
        void worker.run().catch(() => undefined);
      },
      stop: () => worker.close(),
    };
  },
};
