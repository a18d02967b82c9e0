import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { DashboardLive } from '../../../lib/dashboard/dashboard-live.service.js';
import type { LiveChanges } from '../../../lib/dashboard/dashboard-live.interface.js';
import type { DocketClient } from '../../../lib/index.js';
import { BACKEND, REDIS_URL, createDocket, waitFor, type TestDocket } from '../../utils.js';
import { ADMIN, AdminCookieGuard, startDashboardApp, type DashboardApp } from './fixture.js';
import { SseClient, type SseEvent } from './sse.js';

// `api/live`: the docket's events as server-sent events, guarded like every read, on Express
// and Fastify behind a global prefix; the docket's events are followed while a page is open.

const changes = (event: SseEvent): LiveChanges | null =>
  event.type === 'changes' ? (JSON.parse(event.data) as LiveChanges) : null;

/** Whether `event` is a message of changes naming `key` (with an event of `type`). */
const naming = (key: (k: string) => boolean, type?: string) => (event: SseEvent) =>
  changes(event)?.events.some((e) => key(e.key) && (type === undefined || e.type === type)) ===
  true;

/**
 * Open the live stream and wait until the docket's events reach it: the scripts publish them
 * once the stream's subscription has set the docket listening, so probe adds are made until
 * the stream names one.
 */
async function openLive(url: string, producer: DocketClient): Promise<SseClient> {
  const stream = await SseClient.open(url, { cookie: ADMIN });
  assert.equal(stream.status, 200);
  const probe = naming((key) => key.startsWith('probe-'));
  let n = 0;
  await waitFor(
    async () => {
      await producer.add('quick', { key: `probe-${n++}`, delay: 3_600_000 })(0);
      return stream.next(probe, 'a probe', 500).then(
        () => true,
        () => false,
      );
    },
    'the live stream to tell the docket’s events',
    15_000,
  );
  return stream;
}

for (const platform of ['express', 'fastify'] as const) {
  describe(
    `dashboard live stream on ${platform} behind a global prefix and a view guard`,
    {
      timeout: 60_000,
    },
    () => {
      let docket: DashboardApp;
      let producer: TestDocket;
      let live: string;

      before(async () => {
        docket = await startDashboardApp({
          platform,
          globalPrefix: 'ops',
          dashboard: { viewGuard: AdminCookieGuard },
        });
        // another process of the docket, that adds without a dashboard
        producer = await createDocket([], { name: docket.name, worker: false });
        live = `${docket.url}/ops/docket/api/live`;
      });
      after(async () => {
        await producer?.close();
        await docket?.close();
      });

      it('names a task added from outside, and the run of a task', async () => {
        const stream = await openLive(live, producer.client);
        assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
        const [hello] = stream.events;
        assert.equal(hello.type, 'hello');
        assert.deepEqual(JSON.parse(hello.data), { docket: docket.name, heartbeat: 15_000 });
        assert.equal(hello.retry, 3_000);

        await producer.client.add('quick', { key: 'from-outside', delay: 600_000 })(1);
        const added = changes(
          await stream.next(
            naming((key) => key === 'from-outside'),
            'the add of from-outside',
          ),
        )!;
        assert.deepEqual(
          added.events.find((e) => e.key === 'from-outside'),
          { type: 'scheduled', key: 'from-outside', task: 'quick', state: 'waiting' },
        );
        assert.ok(added.views.includes('scheduled'), `${added.views}`);

        await producer.client.add('quick', { key: 'runs-now' })(2);
        const ended = changes(
          await stream.next(
            naming((key) => key === 'runs-now', 'completed'),
            'the end of runs-now',
          ),
        )!;
        assert.ok(ended.views.includes('running') && ended.views.includes('overview'));
        const told = stream
          .all<LiveChanges>('changes')
          .flatMap((message) => message.events)
          .filter((e) => e.key === 'runs-now')
          .map((e) => `${e.type} ${e.state}`);
        assert.deepEqual(told, ['scheduled waiting', 'started running', 'completed completed']);
        await stream.close();
      });

      it('gathers a burst into a few messages, listing 50 events each at most', async () => {
        const stream = await openLive(live, producer.client);
        const args = Array.from({ length: 120 }, (_, i) => [i]);
        const burst = await producer.client.addMany('quick', args, { delay: 600_000 });
        const keys = new Set(burst.map((execution) => execution.key));
        const ofBurst = () =>
          stream.all<LiveChanges>('changes').filter((m) => m.events.some((e) => keys.has(e.key)));
        const listed = () =>
          ofBurst().reduce(
            (sum, m) => sum + m.events.filter((e) => keys.has(e.key)).length + m.more,
            0,
          );
        // every event of the burst is told: listed, or counted in `more`
        await stream.next((event) => event.type === 'changes' && listed() >= 120, 'the burst');
        const messages = ofBurst();
        assert.ok(messages.length <= 3, `${messages.length} messages for one burst`);
        assert.ok(messages.every((m) => m.events.length <= 50));
        assert.ok(messages.some((m) => m.more > 0));
        await stream.close();
      });

      it('refuses the stream to whom the view guard refuses', async () => {
        const refused = await SseClient.open(live);
        assert.equal(refused.status, 401);
        assert.equal(refused.events.length, 0);
        await refused.close();
      });
    },
  );
}

describe(
  'dashboard live stream: the subscription lives while pages are open',
  {
    timeout: 60_000,
  },
  () => {
    let docket: DashboardApp | undefined;
    let redis: Redis | undefined;

    before(async () => {
      docket = await startDashboardApp();
      if (BACKEND === 'redis') redis = new Redis(REDIS_URL);
    });
    after(async () => {
      redis?.disconnect();
      await docket?.close();
    });

    /** Subscribers of the docket's events channel, on Redis (the memory backend has no server). */
    async function listeners(name: string): Promise<number | null> {
      if (!redis) return null;
      const [, count] = (await redis.pubsub('NUMSUB', `{${name}}:events`)) as [string, number];
      return Number(count);
    }

    it('lets go of the docket’s events when the last page leaves, and ends streams at shutdown', async () => {
      const app = docket!;
      const live = app.app.get(DashboardLive, { strict: false });
      const url = `${app.url}/docket/api/live`;
      const first = await openLive(url, app.client);
      const second = await openLive(url, app.client);
      assert.equal(live.connected, 2);
      if (redis) assert.equal(await listeners(app.name), 1, 'one subscription for both pages');

      await first.close();
      await waitFor(() => live.connected === 1, 'the first page to be gone');
      await app.client.add('quick', { key: 'after-first' })(3);
      await second.next(
        naming((key) => key === 'after-first'),
        'the add, on the page still open',
      );
      await second.close();
      await waitFor(() => live.connected === 0, 'the second page to be gone');
      if (redis) {
        await waitFor(async () => (await listeners(app.name)) === 0, 'the subscription to end');
      }

      // a page still open when the application shuts down: its stream ends, the app closes
      const third = await openLive(url, app.client);
      docket = undefined;
      await app.close();
      await third.ended;
      assert.equal(live.connected, 0);
    });
  },
);

describe('dashboard without live updates', () => {
  let docket: DashboardApp;

  before(async () => {
    docket = await startDashboardApp({ dashboard: { live: false } });
  });
  after(() => docket?.close());

  it('answers 404 on api/live, and the page polls', async () => {
    const stream = await SseClient.open(`${docket.url}/docket/api/live`, { cookie: ADMIN });
    assert.equal(stream.status, 404);
    await stream.close();
    const page = await (await fetch(`${docket.url}/docket`)).text();
    assert.match(page, /data-live="false"/);
  });
});
