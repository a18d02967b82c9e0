import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DocketClient, DocketModule, DocketTask, DocketWorker } from '../../../lib/index.js';
import { createDocket } from '../../utils.js';

// The memory:// backend itself: these tests name their memory:// URLs, so they run the same in
// either pass of test/run.mjs. The engine suite runs on memory:// in the second pass.

const memoryUrl = () => `memory://${randomBytes(4).toString('hex')}`;

@Injectable()
class Work {
  readonly done: string[] = [];

  @DocketTask()
  async record(label: string): Promise<string> {
    this.done.push(label);
    return label.toUpperCase();
  }
}

describe('memory:// backend', () => {
  it('boots a Nest app, runs tasks and closes in under two seconds, with no socket', async () => {
    const connections = () =>
      process.getActiveResourcesInfo().filter((resource) => /TCP|Pipe/.test(resource)).length;
    const before = connections();
    const started = performance.now();
    const module = await Test.createTestingModule({
      imports: [DocketModule.forRoot({ url: memoryUrl(), worker: { autoStart: true } })],
      providers: [Work],
    }).compile();
    module.useLogger(false);
    await module.init();
    const client = module.get(DocketClient);
    const executions = await Promise.all(
      ['a', 'b', 'c'].map((label) => client.add(Work.prototype.record)(label)),
    );
    const results = await Promise.all(executions.map((e) => e.result({ timeout: 1_000 })));
    const opened = connections() - before;
    await module.close();
    const elapsed = performance.now() - started;
    assert.deepEqual(results, ['A', 'B', 'C']);
    assert.equal(opened, 0, 'a memory:// docket opens no connection');
    // (typically a few hundred ms; the bound leaves room for a busy 2-core machine)
    assert.ok(elapsed < 2_000, `boot, three tasks and close took ${elapsed.toFixed(0)} ms`);
  });

  it('a process on memory:// exits by itself after the app closed', async () => {
    const fixture = fileURLToPath(new URL('../../fixtures/memory-app.js', import.meta.url));
    const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, `the process was killed or failed; output: ${output}`);
    assert.match(output, /^done \d+/);
  });

  it('loads its Lua VM only when a memory:// client is made, not with the package', async () => {
    // the published build (CommonJS): what require() keeps in its cache says what was loaded
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const probe = `
      require('reflect-metadata');
      const { Module } = require('@nestjs/common');
      const { NestFactory } = require('@nestjs/core');
      const docket = require('./dist/index.js');
      const loaded = () => Object.keys(require.cache).some((file) => file.includes('fengari'));
      const before = loaded();
      const options = { name: 'lazy', url: 'memory://lazy-lua', worker: false };
      class App {}
      Module({ imports: [docket.DocketModule.forRoot(options)] })(App);
      (async () => {
        const app = await NestFactory.createApplicationContext(App, { logger: false });
        await app.get(docket.DocketClient).add('anything')();
        const after = loaded();
        await app.close();
        console.log(JSON.stringify({ before, after }));
      })();
    `;
    const child = spawn(process.execPath, ['-e', probe], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, output);
    assert.deepEqual(JSON.parse(output), { before: false, after: true });
  });

  it('dockets of one URL share their data; other URLs are separate', async (t) => {
    const url = memoryUrl();
    const producer = await createDocket([Work], { url, name: 'shared', worker: false });
    t.after(() => producer.close());
    const worker = await createDocket([Work], { url, name: 'shared' });
    t.after(() => worker.close());
    const elsewhere = await createDocket([Work], { url: memoryUrl(), name: 'shared' });
    t.after(() => elsewhere.close());

    const execution = await producer.client.add('record', { key: 'one' })('from the producer');
    assert.equal((await elsewhere.client.snapshot()).future.length, 0);
    await worker.worker.runUntilFinished();
    assert.equal(await execution.result({ timeout: 1_000 }), 'FROM THE PRODUCER');
    assert.deepEqual(worker.module.get(Work).done, ['from the producer']);
    assert.equal(await elsewhere.client.getExecution('one'), null);
  });

  it('runs a future task at its time, not before and without a longer wait', async (t) => {
    const docket = await createDocket([Work], { url: memoryUrl() });
    t.after(() => docket.close());
    const execution = await docket.client.add(Work.prototype.record, { delay: 200 })('later');
    const due = execution.when.getTime();
    const running = docket.worker.runUntilFinished();
    await execution.result({ timeout: 2_000 });
    await running;
    await execution.sync();
    const lateness = execution.startedAt!.getTime() - due;
    assert.ok(lateness >= 0, `started ${-lateness} ms early`);
    assert.ok(lateness < 50, `started ${lateness} ms late`);
  });

  it('an ioredis client cannot be the connection of a memory:// docket', async () => {
    const { Redis } = await import('ioredis');
    const client = new Redis({ lazyConnect: true });
    try {
      await assert.rejects(
        createDocket([], { url: memoryUrl(), connection: client }),
        /memory:\/\/.*cannot use the ioredis client given as "connection"/,
      );
    } finally {
      client.disconnect();
    }
  });

  it('the worker reports its backend', async (t) => {
    const docket = await createDocket([Work], { url: 'memory://reporting' });
    t.after(() => docket.close());
    assert.equal(docket.module.get(DocketWorker).state, 'stopped');
    await docket.client.add('record')('x');
    await docket.worker.runUntilFinished();
    assert.deepEqual(docket.module.get(Work).done, ['x']);
  });
});
