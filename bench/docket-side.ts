import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Injectable, Module, type INestApplicationContext, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Redis } from 'ioredis';
import {
  DocketClient,
  DocketInspector,
  DocketModule,
  DocketTask,
  DocketWorker,
  type DocketModuleOptions,
  type TaskBatch,
} from '../lib/index.js';
import type { Consumer, Payload, Producer, Side, SideOptions } from './side.js';

/** Where the no-op task reports to; set by the worker process before it boots. */
const hook: { onTask: (payload: Payload) => void } = { onTask: () => undefined };

@Injectable()
class BenchTasks {
  @DocketTask()
  noop(payload: Payload): void {
    hook.onTask(payload);
  }
}

/** The same no-op task taking batches of up to BATCH items. */
const BATCH = 100;

@Injectable()
class BatchBenchTasks {
  @DocketTask({ name: 'noop', batch: { size: BATCH } })
  noop(batch: TaskBatch<[Payload]>): void {
    for (const item of batch) hook.onTask(item.args[0]);
  }
}

function rootModule(options: DocketModuleOptions, tasks: Type | undefined): Type {
  @Module({ imports: [DocketModule.forRoot(options)], providers: tasks ? [tasks] : [] })
  class DocketBenchModule {}
  return DocketBenchModule;
}

function boot(module: Type): Promise<INestApplicationContext> {
  return NestFactory.createApplicationContext(module, { logger: false, abortOnError: false });
}

function moduleOptions(options: SideOptions): DocketModuleOptions {
  return {
    name: options.queue,
    url: options.url,
    executionTtl: options.fireAndForget ? 0 : undefined,
  };
}

/** `addMany` is not part of DocketClient yet; use it when it appears. */
type AddMany = (task: string, argsList: unknown[][]) => Promise<unknown>;

function version(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

export const docketSide: Side = {
  lib: 'docket',
  version: version(),

  async producer(options: SideOptions): Promise<Producer> {
    const app = await boot(rootModule({ ...moduleOptions(options), worker: false }, undefined));
    const client = app.get(DocketClient);
    const raw = new Redis(options.url);
    const stream = `{${options.queue}}:stream`;
    const queue = `{${options.queue}}:queue`;
    const addMany = (client as unknown as { addMany?: AddMany }).addMany;
    return {
      async add(payload: Payload, due?: number, key?: string): Promise<void> {
        const opts =
          due === undefined && key === undefined
            ? undefined
            : { when: due === undefined ? undefined : new Date(due), key };
        await client.add('noop', opts)(payload);
      },
      addBulk:
        typeof addMany === 'function'
          ? async (payloads) => {
              await addMany.call(
                client,
                'noop',
                payloads.map((p) => [p]),
              );
            }
          : null,
      async unfinished(): Promise<number> {
        // A finished message is acknowledged and deleted, so the stream holds only the
        // waiting and the running ones.
        const [length, due] = await Promise.all([raw.xlen(stream), raw.zcard(queue)]);
        return length + due;
      },
      async close(): Promise<void> {
        raw.disconnect();
        await app.close();
      },
    };
  },

  async consumer(
    options: SideOptions,
    concurrency: number,
    onTask: (payload: Payload) => void,
  ): Promise<Consumer> {
    hook.onTask = onTask;
    if (options.batch !== undefined && options.batch !== BATCH) {
      throw new Error(`the docket bench's batch task takes batches of ${BATCH}`);
    }
    const tasks = options.batch ? BatchBenchTasks : BenchTasks;
    const app = await boot(
      rootModule({ ...moduleOptions(options), worker: { concurrency, autoStart: false } }, tasks),
    );
    const worker = app.get(DocketWorker);
    if (options.history) await app.get(DocketInspector).keepHistory(options.history, 3_600_000);
    return {
      start(): void {
        void worker.runForever();
      },
      stop: () => app.close(),
    };
  },
};
