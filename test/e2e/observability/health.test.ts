// The sample app's probes over real HTTP, on Redis deployments of the tests' own: readiness
// follows Redis (down within seconds of a crash, up again when it is back, with the work
// resuming), liveness follows this process's worker loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSampleApp } from '../../../sample-app/create-sample-app.js';
import { REDIS_ONLY, uniqueName } from '../../utils.js';
import { call, PersistentRedis, StallingProxy, untilStatus } from './helpers.js';

const TEST_REDIS_PORT = Number(process.env.DOCKET_TEST_REDIS_PORT ?? 6379);

describe('sample app /health/ready', { timeout: 90_000, skip: REDIS_ONLY }, () => {
  it('is 503 within 5 s of Redis stopping, 200 again once it is back, and the work resumes', async () => {
    // a Redis of this test's own (never the shared one), with AOF so the docket survives
    const redis = await PersistentRedis.start();
    try {
      const sample = await createSampleApp({
        url: redis.url,
        name: uniqueName('ready'),
        port: 0,
        host: '127.0.0.1',
        logger: false,
        worker: { minimumCheckInterval: 200, reconnectionDelay: 200 },
        health: { readyTimeout: 500 },
      });
      try {
        const up = await untilStatus(sample.url, '/health/ready', 200, 10_000);
        assert.equal(up.body.info.docket.status, 'up');
        assert.equal(typeof up.body.info.docket.pingMs, 'number');
        assert.equal(typeof up.body.info.docket.liveWorkers, 'number');

        // due while Redis is away: it must run once Redis is back
        const key = `outage-${up.at}`;
        const posted = await call(sample.url, 'POST', '/tasks/welcome', {
          userId: 'patient',
          delayMs: 1_500,
          key,
        });
        assert.equal(posted.body.state, 'scheduled');

        await redis.stop();
        const stoppedAt = Date.now();
        const down = await untilStatus(sample.url, '/health/ready', 503, 5_000);
        assert.ok(down.at - stoppedAt <= 5_000, `503 after ${down.at - stoppedAt}ms`);
        assert.equal(down.body.status, 'error');
        assert.equal(down.body.error.docket.status, 'down');
        assert.match(down.body.error.docket.message, /Redis|not reachable|connect/i);

        await redis.start();
        await untilStatus(sample.url, '/health/ready', 200, 15_000);
        const got = await call(sample.url, 'GET', `/tasks/${key}?wait=20000`);
        assert.equal(got.body.state, 'completed', JSON.stringify(got.body));
        assert.ok(Date.parse(got.body.startedAt) >= Date.parse(posted.body.when));
        assert.equal(got.body.result.to, 'patient');

        // and new work is taken as before
        const fresh = await call(sample.url, 'POST', '/tasks/welcome', { userId: 'after' });
        const done = await call(sample.url, 'GET', `/tasks/${fresh.body.key}?wait=10000`);
        assert.equal(done.body.state, 'completed');
        await untilStatus(sample.url, '/health/live', 200, 5_000);
      } finally {
        await sample.app.close();
      }
    } finally {
      await redis.destroy();
    }
  });
});

describe('sample app /health/live', { timeout: 60_000 }, () => {
  it('is 503 while the worker loop is stuck, though Redis answers, and 200 once it moves', async () => {
    // The app talks to the test Redis through a proxy that can hold the bytes of the one
    // connection that issued XREADGROUP: the worker's blocking connection. Its read then never
    // returns and the delivery loop stops polling, as a wedged socket or a stuck loop would,
    // while the app's other connection (commands, pings, depths) keeps answering. So readiness
    // (Redis reachable) stays 200 and the 503 of liveness can only come from the loop itself,
    // after 3 × minimumCheckInterval + 1 s = 1.6 s without a poll.
    const proxy = await StallingProxy.start(TEST_REDIS_PORT);
    try {
      const sample = await createSampleApp({
        url: proxy.url,
        name: uniqueName('live'),
        port: 0,
        host: '127.0.0.1',
        logger: false,
        worker: { minimumCheckInterval: 200 },
      });
      try {
        const live = await untilStatus(sample.url, '/health/live', 200, 10_000);
        assert.equal(live.body.info.docket.status, 'up');
        assert.equal(typeof live.body.info.docket.lastPollMsAgo, 'number');
        // liveness is up from the start: wait for the worker's first blocking read
        for (let i = 0; i < 100 && proxy.blockingConnections === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(proxy.blockingConnections, 1);

        proxy.stall();
        const stalledAt = Date.now();
        const stuck = await untilStatus(sample.url, '/health/live', 503, 10_000);
        // the last poll was about one read (200 ms, more on a loaded machine) before the stall
        assert.ok(stuck.at - stalledAt >= 1_000, `503 after only ${stuck.at - stalledAt}ms`);
        assert.match(stuck.body.error.docket.message, /has not polled for \d+ms \(limit 1600ms\)/);

        const ready = await call(sample.url, 'GET', '/health/ready');
        assert.equal(ready.status, 200, 'readiness must not depend on the stuck loop');

        proxy.release();
        await untilStatus(sample.url, '/health/live', 200, 5_000);
      } finally {
        proxy.release();
        await sample.app.close();
      }
    } finally {
      await proxy.close();
    }
  });

  it("is 200 between boot and the first poll, and measures from the loop's start", async () => {
    // the blocking connection is stalled from the start: the first poll never completes
    const proxy = await StallingProxy.start(TEST_REDIS_PORT);
    proxy.stall();
    try {
      const sample = await createSampleApp({
        url: proxy.url,
        name: uniqueName('first-poll'),
        port: 0,
        host: '127.0.0.1',
        logger: false,
        worker: { minimumCheckInterval: 1_000 },
      });
      try {
        // well within 3 × 1 s + 1 s of the loop's start
        const early = await call(sample.url, 'GET', '/health/live');
        assert.equal(early.status, 200, JSON.stringify(early.body));
        const stuck = await untilStatus(sample.url, '/health/live', 503, 10_000);
        const [, ms] = /has not polled for (\d+)ms/.exec(stuck.body.error.docket.message) ?? [];
        assert.ok(Number(ms) < 60_000, `measured from ${ms}ms ago`);
      } finally {
        proxy.release();
        await sample.app.close();
      }
    } finally {
      await proxy.close();
    }
  });
});
