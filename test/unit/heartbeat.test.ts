import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Heartbeat, REGISTER_EVERY } from '../../lib/worker/heartbeat.js';

const INTERVAL = 5;
const BEATS = 80;

/**
 * A heartbeat over a store whose every beat takes three intervals to answer (a slow machine),
 * run for BEATS beats; answers each beat's time and the registry's lifetime when the beat
 * wrote it, and the errors the heartbeat reported.
 */
async function slowBeats() {
  const beats: { at: number; lifetime?: number }[] = [];
  const errors: unknown[] = [];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const heartbeat = new Heartbeat({
    store: {
      connected: true,
      async unregister() {},
      async beat(_worker, now, registry) {
        beats.push({ at: now, lifetime: registry?.lifetime });
        await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL));
        if (beats.length === BEATS) done();
        return Infinity;
      },
    },
    worker: 'worker-1',
    heartbeatInterval: INTERVAL,
    missedHeartbeats: 5,
    tasks: () => ['quick'],
    about: {} as never,
    nextDue() {},
    disrupted(error) {
      errors.push(error);
    },
  });
  heartbeat.start();
  await finished;
  await heartbeat.stop();
  return { beats, errors };
}

describe('Heartbeat', () => {
  it(
    'rewrites the task registry before it expires, however long each beat takes',
    { timeout: 30_000 },
    async () => {
      const { beats, errors } = await slowBeats();
      assert.deepEqual(errors, []);
      const written = beats.filter((beat) => beat.lifetime !== undefined);
      assert.equal(written[0], beats[0], 'the first beat writes the registry');
      assert.ok(written.length >= 3, `${written.length} writes in ${BEATS} beats`);
      // the longest time from one beat to the next: a registry is rewritten at most that long
      // after REGISTER_EVERY intervals (its lifetime adds missedHeartbeats intervals, the most a
      // beat may be late before the worker counts as gone); every 15th beat took 60 intervals
      const gap = Math.max(...beats.slice(1).map((beat, i) => beat.at - beats[i]!.at));
      for (let i = 1; i < written.length; i++) {
        const since = written[i]!.at - written[i - 1]!.at;
        assert.ok(since >= INTERVAL * REGISTER_EVERY, `rewritten after ${since} ms only`);
        assert.equal(written[i]!.lifetime, INTERVAL * (REGISTER_EVERY + 5));
        assert.ok(
          since <= INTERVAL * REGISTER_EVERY + gap,
          `rewritten ${since} ms after the last write, beats ${gap} ms apart at most`,
        );
      }
    },
  );
});
