// The docket behind Redis Sentinel: a master, a replica and two sentinels, reached with
// redis+sentinel://s1,s2/mymaster. A forced failover (SENTINEL FAILOVER) promotes the replica;
// the worker follows the sentinels to the new master and every task added before and after
// the failover completes.
//
// The old master stays a master for ~10 s after the sentinels switched (until a sentinel
// reconfigures it and kills its clients); a client that is not told of the switch keeps
// writing to it, and those writes vanish when it becomes a replica of the new master (measured
// without `failoverDetector`: 183 of 188 adds made in that window were lost). The sentinel URL
// turns on ioredis's `failoverDetector` (a subscription to +switch-master on the sentinels),
// which moves the clients at once (3 of 183 lost, all within ~50 ms of the switch:
// asynchronous replication's own window).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Execution } from '../../../lib/index.js';
import { waitFor } from '../../utils.js';
import { bootDocket, ReliabilityTasks, type ReliabilityDocket, type Target } from './scenarios.js';
import { hasBinary, startSentinelGroup, type SentinelGroup } from './servers.js';

/** `add` again until Redis takes it (a producer's retry while the clients follow the failover). */
async function addWithRetry(docket: ReliabilityDocket, key: string, delay = 0): Promise<Execution> {
  for (let failures = 0; ; failures++) {
    try {
      return await docket.client.add(ReliabilityTasks.prototype.echo, { key, delay })(key);
    } catch (error) {
      if (failures > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Force a failover and wait until the sentinels name the replica as master. */
async function failover(group: SentinelGroup): Promise<void> {
  // Let the replica catch up so the failover itself loses no acknowledged write.
  const master = group.master.client();
  try {
    assert.equal(await master.call('WAIT', '1', '5000'), 1);
  } finally {
    master.disconnect();
  }
  const sentinel = group.sentinels[0].client();
  try {
    assert.equal(await sentinel.call('SENTINEL', 'FAILOVER', 'mymaster'), 'OK');
  } finally {
    sentinel.disconnect();
  }
  await waitFor(
    async () => (await group.masterPort()) === group.replica.port,
    'the sentinels to name the replica as master',
    20_000,
  );
}

/** Resolve once a sentinel has turned the old master into a replica (its clients are killed). */
async function demoted(group: SentinelGroup): Promise<void> {
  const old = group.master.client();
  try {
    await waitFor(
      async () => ((await old.call('ROLE').catch(() => [''])) as string[])[0] === 'slave',
      'the old master to be demoted',
      30_000,
    );
  } finally {
    old.disconnect();
  }
}

/**
 * Run `body` with a producer-only app of the docket connected to the promoted replica alone
 * (not through the sentinels): what it reads is what the new master holds.
 */
async function onPromoted(
  group: SentinelGroup,
  name: string,
  body: (promoted: ReliabilityDocket) => Promise<void>,
): Promise<void> {
  const promoted = await bootDocket(
    { url: `redis://127.0.0.1:${group.replica.port}/0` },
    { name, worker: false },
  );
  try {
    await body(promoted);
  } finally {
    await promoted.close();
  }
}

/** Add probe tasks until one lands on the new master: the docket's clients have moved. */
async function followed(group: SentinelGroup, docket: ReliabilityDocket): Promise<void> {
  await onPromoted(group, docket.name, async (promoted) => {
    await waitFor(
      async () => {
        const probe = await addWithRetry(docket, `probe-${Date.now()}`, 600_000);
        return (await promoted.client.getExecution(probe.key)) !== null;
      },
      "the docket's clients to reach the new master",
      20_000,
    );
  });
}

async function withGroup(body: (group: SentinelGroup) => Promise<void>): Promise<void> {
  const group = await startSentinelGroup(2);
  try {
    await body(group);
  } finally {
    await group.stop();
  }
}

const skip = !hasBinary('redis-server') && 'redis-server is not installed';

describe('Redis Sentinel', { skip, timeout: 120_000, concurrency: 2 }, () => {
  it(
    'the worker follows a failover; tasks added before and after it complete',
    { timeout: 60_000 },
    () =>
      withGroup(async (group) => {
        const target: Target = { url: group.url };
        const docket = await bootDocket(target, {
          worker: { autoStart: true, redeliveryTimeout: 2_000 },
        });
        try {
          assert.equal(await group.masterPort(), group.master.port);
          const before: Execution[] = [];
          for (let i = 0; i < 10; i++) before.push(await addWithRetry(docket, `now-${i}`));
          for (let i = 0; i < 10; i++) {
            before.push(await addWithRetry(docket, `later-${i}`, 1_500 + i * 100));
          }
          for (const execution of before.slice(0, 10)) await execution.result({ timeout: 10_000 });

          await failover(group);
          await followed(group, docket);
          const afterwards: Execution[] = [];
          for (let i = 0; i < 10; i++) {
            afterwards.push(await addWithRetry(docket, `after-${i}`, i % 2 ? 500 : 0));
          }
          for (const execution of [...before, ...afterwards]) {
            assert.equal(await execution.result({ timeout: 20_000 }), execution.key);
          }
          const ran = new Set(docket.tasks.values);
          for (const execution of [...before, ...afterwards]) assert.ok(ran.has(execution.key));

          // Once the old master is a replica, the executions are still there, and nothing is
          // left pending.
          await demoted(group);
          await onPromoted(group, docket.name, async (promoted) => {
            for (const execution of [...before, ...afterwards]) {
              const state = (await promoted.client.getExecution(execution.key))?.state;
              assert.equal(state, 'completed', `${execution.key} on the new master`);
            }
            assert.equal((await promoted.inspector.depths()).running, 0);
          });
        } finally {
          await docket.close();
        }
      }),
  );

  it(
    'a task added after the failover (URL options only) is not lost when the old master is demoted',
    { timeout: 60_000 },
    () =>
      withGroup(async (group) => {
        const docket = await bootDocket(
          { url: group.url },
          { worker: { autoStart: true, redeliveryTimeout: 2_000 } },
        );
        try {
          await (await addWithRetry(docket, 'before')).result({ timeout: 10_000 });
          await failover(group);
          // Well past asynchronous replication's own window.
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          await addWithRetry(docket, 'after', 60_000);
          await demoted(group);
          await onPromoted(group, docket.name, async (promoted) => {
            const state = (await promoted.client.getExecution('after'))?.state;
            assert.equal(state, 'scheduled', 'the task added after the failover was lost');
          });
        } finally {
          await docket.close();
        }
      }),
  );
});
