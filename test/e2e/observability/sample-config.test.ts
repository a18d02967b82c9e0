// The sample app reads its configuration from the environment (registerAs namespaces of
// @nestjs/config); what createSampleApp is given goes over it. Environment variables are
// process-wide, so these tests have a file (a process) of their own.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { DocketWorker } from '../../../lib/index.js';
import { createSampleApp } from '../../../sample-app/create-sample-app.js';
import { REDIS_URL, createDocket, uniqueName } from '../../utils.js';
import { call, untilStatus } from './helpers.js';

const saved = { ...process.env };

function setEnv(vars: Record<string, string>): void {
  Object.assign(process.env, vars);
}

describe('sample app configuration', { timeout: 60_000 }, () => {
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('takes the docket, worker and health settings from the environment', async () => {
    const name = uniqueName('env');
    setEnv({
      DOCKET_URL: REDIS_URL,
      DOCKET_NAME: name,
      DOCKET_WORKER_NAME: 'configured-worker',
      DOCKET_WORKER_MINIMUM_CHECK_INTERVAL: '250ms',
      HEALTH_MAX_QUEUE_DEPTH: '1000',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    const sample = await createSampleApp({ logger: false });
    try {
      assert.match(sample.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(sample.app.get(DocketWorker).name, 'configured-worker');
      const live = await untilStatus(sample.url, '/health/live', 200, 10_000);
      assert.equal(live.body.info.docket.worker, 'configured-worker');
      const posted = await call(sample.url, 'POST', '/tasks/welcome', { userId: 'env' });
      const got = await call(sample.url, 'GET', `/tasks/${posted.body.key}?wait=10000`);
      assert.equal(got.body.state, 'completed');
      assert.equal(got.body.worker, 'configured-worker');
      // the execution is the configured docket's
      const observer = await createDocket([], { name, worker: false });
      try {
        assert.equal((await observer.client.getExecution(posted.body.key))?.state, 'completed');
      } finally {
        await observer.close();
      }
    } finally {
      await sample.app.close();
    }
  });

  it('lets createSampleApp options override the environment', async () => {
    const name = uniqueName('override');
    setEnv({ DOCKET_URL: 'redis://127.0.0.1:1/0', DOCKET_WORKER_NAME: 'from-env' });
    const sample = await createSampleApp({
      url: REDIS_URL,
      name,
      port: 0,
      host: '127.0.0.1',
      logger: false,
      worker: { minimumCheckInterval: 200 },
    });
    try {
      // the worker object is merged: the name still comes from the environment
      assert.equal(sample.app.get(DocketWorker).name, 'from-env');
      await untilStatus(sample.url, '/health/ready', 200, 10_000);
    } finally {
      await sample.app.close();
    }
  });

  it('fails the boot with a sentence naming a malformed variable', async () => {
    setEnv({ DOCKET_URL: REDIS_URL, DOCKET_WORKER_CONCURRENCY: 'lots' });
    await assert.rejects(
      createSampleApp({ port: 0, host: '127.0.0.1', logger: false }),
      /environment variable DOCKET_WORKER_CONCURRENCY="lots": expected a whole number ≥ 1/,
    );
  });
});
