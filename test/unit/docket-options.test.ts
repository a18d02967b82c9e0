import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { resolveOptions } from '../../lib/config/resolve-options.js';
import { DocketConfigurationError } from '../../lib/errors/docket-configuration.error.js';
import type { DocketModuleOptions } from '../../lib/index.js';

function refuses(options: unknown, option: string): void {
  assert.throws(
    () => resolveOptions(options as DocketModuleOptions),
    (error: Error) => {
      assert.ok(error instanceof DocketConfigurationError, `${option}: ${error}`);
      assert.ok(error.message.includes(`"${option}"`), `${option} not named in: ${error.message}`);
      return true;
    },
  );
}

describe('resolveOptions', () => {
  it('fills in the documented defaults', () => {
    const saved = process.env.DOCKET_URL;
    delete process.env.DOCKET_URL;
    try {
      const resolved = resolveOptions();
      assert.equal(resolved.name, 'docket');
      assert.equal(resolved.url, 'redis://localhost:6379/0');
      assert.equal(resolved.executionTtl, 900_000);
      assert.equal(resolved.heartbeatInterval, 2_000);
      assert.equal(resolved.missedHeartbeats, 5);
      assert.equal(resolved.maxPayloadBytes, 1_048_576);
      assert.equal(resolved.metrics, true);
      assert.deepEqual(resolved.worker, {
        name: `${hostname()}#${process.pid}`,
        concurrency: 10,
        redeliveryTimeout: 300_000,
        reconnectionDelay: 5_000,
        minimumCheckInterval: 1_000,
        schedulingResolution: 250,
        scheduleAutomaticTasks: true,
        shutdownTimeout: 30_000,
        autoStart: true,
        maxRedeliveries: 3,
      });
    } finally {
      if (saved !== undefined) process.env.DOCKET_URL = saved;
    }
  });

  it('takes the URL from DOCKET_URL when none is given', () => {
    const saved = process.env.DOCKET_URL;
    process.env.DOCKET_URL = 'redis://from-env:6390/1';
    try {
      assert.equal(resolveOptions().url, 'redis://from-env:6390/1');
      assert.equal(resolveOptions({ url: 'redis://given' }).url, 'redis://given');
    } finally {
      if (saved === undefined) delete process.env.DOCKET_URL;
      else process.env.DOCKET_URL = saved;
    }
  });

  it('keeps given values and leaves undefined ones at their default', () => {
    const resolved = resolveOptions({
      name: 'orders',
      executionTtl: 0,
      worker: { name: 'w1', concurrency: 3, autoStart: false, shutdownTimeout: undefined },
    });
    assert.equal(resolved.name, 'orders');
    assert.equal(resolved.executionTtl, 0);
    assert.ok(resolved.worker);
    assert.equal(resolved.worker.name, 'w1');
    assert.equal(resolved.worker.concurrency, 3);
    assert.equal(resolved.worker.autoStart, false);
    assert.equal(resolved.worker.shutdownTimeout, 30_000);
  });

  it('makes a producer-only process with worker: false', () => {
    assert.equal(resolveOptions({ worker: false }).worker, false);
  });

  it('refuses bad values naming the option', () => {
    refuses({ nmae: 'typo' }, 'nmae');
    refuses({ name: 'has space' }, 'name');
    refuses({ name: '{braces}' }, 'name');
    refuses({ name: '' }, 'name');
    refuses({ url: 42 }, 'url');
    refuses({ executionTtl: -1 }, 'executionTtl');
    refuses({ executionTtl: '1000' }, 'executionTtl');
    refuses({ heartbeatInterval: 0 }, 'heartbeatInterval');
    refuses({ missedHeartbeats: 1.5 }, 'missedHeartbeats');
    refuses({ maxPayloadBytes: 0 }, 'maxPayloadBytes');
    refuses({ metrics: 'yes' }, 'metrics');
    refuses({ worker: 'yes' }, 'worker');
    refuses({ worker: { concurrency: -1 } }, 'worker.concurrency');
    refuses({ worker: { concurrency: 0 } }, 'worker.concurrency');
    refuses({ worker: { concurrency: 2.5 } }, 'worker.concurrency');
    refuses({ worker: { redeliveryTimeout: 3 } }, 'worker.redeliveryTimeout');
    refuses({ worker: { reconnectionDelay: -5 } }, 'worker.reconnectionDelay');
    refuses({ worker: { minimumCheckInterval: 0 } }, 'worker.minimumCheckInterval');
    refuses({ worker: { schedulingResolution: NaN } }, 'worker.schedulingResolution');
    refuses({ worker: { shutdownTimeout: Infinity } }, 'worker.shutdownTimeout');
    refuses({ worker: { autoStart: 'no' } }, 'worker.autoStart');
    refuses({ worker: { scheduleAutomaticTasks: 1 } }, 'worker.scheduleAutomaticTasks');
    refuses({ worker: { name: '' } }, 'worker.name');
    refuses({ worker: { concurency: 2 } }, 'worker.concurency');
  });

  it('refuses a URL it cannot use, naming the url', () => {
    assert.throws(() => resolveOptions({ url: 'http://x' }), /url "http:\/\/x".*unknown scheme/);
  });
});
