// The docket as a Redis ACL user that may touch only its own docket's keys and channels. The
// smallest set of command categories that runs everything is MINIMAL; RECOMMENDED adds INFO
// (ioredis's ready check: without it ioredis warns on every connection and cannot wait for a
// server that is still loading its data) and CLIENT ID/UNBLOCK (the worker ends its blocking read
// at once when runUntilFinished or shutdown asks, instead of after minimumCheckInterval).
// In the README the patterns read `~{<name>}:* &{<name>}:*`; here `{acl-*}` covers the dockets
// acl-… of this file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bootDocket, itRunsTheRepresentativeSet, ReliabilityTasks } from './scenarios.js';
import { hasBinary, removeDir, startStandalone, type RedisServer } from './servers.js';

const PATTERNS = ['~{acl-*}:*', '&{acl-*}:*'];
const MINIMAL = [
  '-@all',
  '+@stream',
  '+@hash',
  '+@sortedset',
  '+@set',
  '+@list',
  '+@string',
  '+@keyspace',
  '+@pubsub',
  '+@scripting',
  '+@transaction',
];
const RECOMMENDED = [...MINIMAL, '+info', '+client|id', '+client|unblock'];

describe(
  'ACL users limited to their docket',
  { skip: !hasBinary('redis-server') && 'redis-server is not installed', timeout: 120_000 },
  () => {
    let server: RedisServer | undefined;
    before(async () => {
      server = await startStandalone();
      const admin = server.client();
      try {
        for (const [user, rules] of [
          ['docketuser', RECOMMENDED],
          ['minimaluser', MINIMAL],
        ] as const) {
          await admin.call('ACL', 'SETUSER', user, 'reset', 'on', '>pw', ...PATTERNS, ...rules);
        }
      } finally {
        admin.disconnect();
      }
    });
    after(async () => {
      await server?.stop();
      if (server) removeDir(server.dir);
    });

    const url = (user: string) => `redis://${user}:pw@127.0.0.1:${server!.port}/0`;

    it(
      'the minimal categories run tasks, cancel and dead letters',
      { timeout: 30_000 },
      async () => {
        const docket = await bootDocket({ url: url('minimaluser') }, {}, 'acl');
        try {
          const { client, worker, tasks } = docket;
          const done = await client.add(ReliabilityTasks.prototype.echo)('acl');
          const blocked = await client.add(ReliabilityTasks.prototype.block)();
          const running = worker.runUntilFinished();
          await tasks.blockStarted.promise;
          await client.cancel(blocked.key);
          await running;
          assert.equal(await done.result({ timeout: 5_000 }), 'acl');
          await assert.rejects(blocked.result({ timeout: 5_000 }), /cancelled/);
          assert.equal(await client.purgeDeadLetters(), 0);
          assert.equal(worker.status().disruptions, 0);
        } finally {
          await docket.close();
        }
      },
    );

    it('another docket name is refused with NOPERM', { timeout: 30_000 }, async () => {
      const docket = await bootDocket({ url: url('docketuser') }, { worker: false }, 'other');
      try {
        await assert.rejects(docket.client.add('rel.echo')('x'), /NOPERM/);
      } finally {
        await docket.close();
      }
    });

    it(
      'a wrong password is reported as such, not as "not reachable"',
      {
        timeout: 30_000,
      },
      async () => {
        const docket = await bootDocket(
          { url: `redis://docketuser:wrong@127.0.0.1:${server!.port}/0` },
          { worker: false },
          'acl',
        );
        try {
          await assert.rejects(docket.client.add('rel.echo')('x'), /WRONGPASS|password/i);
        } finally {
          await docket.close();
        }
      },
    );

    describe('the representative set with the recommended line', () => {
      itRunsTheRepresentativeSet(() => ({ url: url('docketuser') }), {}, 'acl');
    });
  },
);
