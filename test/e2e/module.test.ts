import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Redis } from 'ioredis';
import {
  DocketClient,
  DocketModule,
  DocketTask,
  DocketWorker,
  type DocketModuleOptions,
  type DocketOptionsFactory,
} from '../../lib/index.js';
import { REDIS_URL, createDocket, uniqueName } from '../utils.js';

@Injectable()
class Tasks {
  @DocketTask()
  async double(n: number): Promise<number> {
    return n * 2;
  }
}

/** A configuration provider, as ConfigService would be. */
@Injectable()
class DocketSettings {
  readonly name = uniqueName('async');
  readonly url = REDIS_URL;
}

@Module({ providers: [DocketSettings], exports: [DocketSettings] })
class SettingsModule {}

@Injectable()
class DocketOptionsFromSettings implements DocketOptionsFactory {
  constructor(@Inject(DocketSettings) private readonly settings: DocketSettings) {}
  createDocketOptions(): DocketModuleOptions {
    return {
      name: this.settings.name,
      url: this.settings.url,
      worker: { autoStart: false, name: 'from-class' },
    };
  }
}

/** A feature module that does not import DocketModule: the client comes from the global module. */
@Injectable()
class Producer {
  constructor(@Inject(DocketClient) readonly docket: DocketClient) {}
}

@Module({ providers: [Producer], exports: [Producer] })
class FeatureModule {}

async function runOne(
  imports: NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>,
  worker: string,
): Promise<void> {
  const module = await Test.createTestingModule({ imports, providers: [Tasks] }).compile();
  module.useLogger(false);
  try {
    await module.init();
    const client = module.get(DocketClient);
    const settings = module.get(DocketSettings);
    assert.equal(client.name, settings.name);
    assert.equal(module.get(Producer).docket, client);
    const execution = await module.get(Producer).docket.add(Tasks.prototype.double)(21);
    await module.get(DocketWorker).runUntilFinished();
    assert.equal(await execution.result({ timeout: 2_000 }), 42);
    assert.equal((await client.getExecution(execution.key))?.worker, worker);
  } finally {
    await module.close();
  }
}

describe('DocketModule', { timeout: 60_000 }, () => {
  it('forRootAsync with useFactory and inject', async () => {
    await runOne(
      [
        DocketModule.forRootAsync({
          imports: [SettingsModule],
          inject: [DocketSettings],
          useFactory: async (settings: DocketSettings) => ({
            name: settings.name,
            url: settings.url,
            worker: { autoStart: false, name: 'from-factory' },
          }),
        }),
        SettingsModule,
        FeatureModule,
      ],
      'from-factory',
    );
  });

  it('forRootAsync with useClass', async () => {
    await runOne(
      [
        DocketModule.forRootAsync({
          imports: [SettingsModule],
          useClass: DocketOptionsFromSettings,
        }),
        SettingsModule,
        FeatureModule,
      ],
      'from-class',
    );
  });

  it('forRootAsync refuses bad options from the factory at boot', async () => {
    await assert.rejects(
      (async () => {
        const module = await Test.createTestingModule({
          imports: [
            DocketModule.forRootAsync({
              useFactory: () => ({ url: REDIS_URL, worker: { concurrency: -1 } }),
            }),
          ],
        }).compile();
        await module.close();
      })(),
      /"worker\.concurrency"/,
    );
  });
});

@Injectable()
class Mailer {
  @DocketTask('send')
  async send(): Promise<void> {}
}

@Injectable()
class Notifier {
  @DocketTask('send')
  async notify(): Promise<void> {}
}

@Injectable()
class SameMethodA {
  @DocketTask()
  async record(): Promise<void> {}
}

@Injectable()
class SameMethodB {
  @DocketTask()
  async record(): Promise<void> {}
}

describe('boot errors', { timeout: 60_000 }, () => {
  it('two tasks with one name fail naming both Class#method', async () => {
    await assert.rejects(createDocket([Mailer, Notifier]), (error: Error) => {
      assert.match(error.message, /"send"/);
      assert.match(error.message, /Mailer#send/);
      assert.match(error.message, /Notifier#notify/);
      return true;
    });
    await assert.rejects(createDocket([SameMethodA, SameMethodB]), (error: Error) => {
      assert.match(error.message, /SameMethodA#record/);
      assert.match(error.message, /SameMethodB#record/);
      return true;
    });
  });

  it('a task named like a built-in one fails naming both', async () => {
    @Injectable()
    class Shadow {
      @DocketTask()
      async trace(): Promise<void> {}
    }
    await assert.rejects(
      createDocket([Shadow]),
      /BuiltinTasks#trace.*Shadow#trace|Shadow#trace.*BuiltinTasks#trace/,
    );
  });

  it('bad options fail naming the option', async (t) => {
    const lazyClient = new Redis({ lazyConnect: true });
    t.after(() => lazyClient.disconnect());
    const cases: [DocketModuleOptions, RegExp][] = [
      [{ worker: { concurrency: -1 } }, /"worker\.concurrency"/],
      [{ colour: 'blue' } as DocketModuleOptions, /"colour"/],
      [{ worker: { speed: 3 } } as DocketModuleOptions, /"worker\.speed"/],
      [{ executionTtl: -5 }, /"executionTtl"/],
      [{ url: 'http://x' }, /url "http:\/\/x".*unknown scheme/],
      [{ url: 'memory://', connection: lazyClient }, /memory:\/\/.*cannot use the ioredis client/],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(createDocket([], options), message, JSON.stringify(options));
    }
  });

  it('a process whose boot failed exits by itself (no connection left open)', async (t) => {
    const fixture = fileURLToPath(new URL('../fixtures/boot-error.js', import.meta.url));
    const child = spawn(process.execPath, [fixture, REDIS_URL], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), 5_000))),
    ]);
    clearTimeout(timer);
    assert.match(output, /boot error: Two tasks are named "x": First#one and Second#two/);
    assert.notEqual(code, 'running', 'the process was still running 5 s after its boot failed');
  });
});
