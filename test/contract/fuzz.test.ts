// Fuzzing the worker's input: 1 000 random entries written straight into {name}:stream (missing
// and empty fields, wrong types, bad JSON, ~1 MB strings, unknown and odd task names, odd
// characters, wrong argument shapes, garbage `$t` tags, `__proto__` keys, bait for eval)
// interleaved with 200 good tasks added through the client. Seeded: the seed is printed, and
// DOCKET_FUZZ_SEED=<n> repeats a run. The worker never stops, every good task completes, every
// entry that cannot run becomes a dead letter with a reason, nothing is pending at the end, and
// no payload is evaluated. Keys and task names with odd characters work end to end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  Ctx,
  DocketTask,
  ExecutionCancelledError,
  type ExecutionEvent,
  type TaskContext,
} from '../../lib/index.js';
import { prng } from '../chaos/plan.js';
import { REDIS_URL, waitFor } from '../utils.js';
import { pendingCount, rawRedis } from './raw.js';
import { bootDocket, type ReliabilityDocket } from '../e2e/reliability/scenarios.js';

const ODD_TASK = 'odd name: {ü} ✓ 🚀 "quoted" \\ back';

@Injectable()
class FuzzTasks {
  ran = new Map<string, number>();

  /** Runs only with exactly (integer, string); anything else fails (and is dead-lettered). */
  @DocketTask({ name: 'fuzz.good' })
  async good(n: unknown, tag: unknown, ...rest: unknown[]): Promise<string> {
    if (!Number.isInteger(n) || typeof tag !== 'string' || rest.length > 0) {
      throw new TypeError(`fuzz.good(integer, string) got ${kindOf(n)}, ${kindOf(tag)}`);
    }
    this.ran.set(tag, (this.ran.get(tag) ?? 0) + 1);
    return tag;
  }

  @DocketTask({ name: ODD_TASK })
  async odd(value: string, @Ctx() ctx: TaskContext): Promise<string> {
    return `${ctx.key} ${value}`;
  }

  @DocketTask({ name: 'fuzz.wait' })
  async wait(@Ctx() ctx: TaskContext): Promise<void> {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    throw ctx.signal.reason;
  }
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

type Expect = 'dead' | 'superseded' | 'runs';

interface Entry {
  fields: (string | Buffer)[];
  expect: Expect;
  /** The tag a run records (expect 'runs'). */
  tag?: string;
  /** The key its dead letter carries, when it keeps one. */
  key?: string;
}

const MB = 1_048_576;

/** Random bad (or oddly good) stream entries, from a seeded PRNG. */
function generate(count: number, seed: number): Entry[] {
  const random = prng(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const now = () => String(Date.now());
  const oddStrings = [
    '',
    ' ',
    '\u0000',
    'ü✓🚀',
    '\ud800',
    '{}',
    '{x}:y',
    '::',
    '__proto__',
    'constructor',
    '\r\n',
    '"\'`',
    '${process.exit(1)}',
    'x'.repeat(5_000),
  ];
  const badTags = [
    '[{"$t":"Nope","v":1}]',
    '[{"$t":"BigInt","v":"1.5"}]',
    '[{"$t":"BigInt","v":{}}]',
    '[{"$t":"Map","v":"x"}]',
    '[{"$t":"Map","v":[1]}]',
    '[{"$t":"Set","v":null}]',
    '[{"$t":"Buffer","v":12}]',
    '[{"$t":"Object","v":null}]',
    '[{"$t":"Function","v":"globalThis.__fuzzEvaluated = true"}]',
    '[{"$t":"eval","v":"globalThis.__fuzzEvaluated = true"}]',
  ];
  const badJson = [
    '',
    '[',
    '[1,',
    '{"a":1}',
    '"text"',
    '42',
    'null',
    'undefined',
    '[1, 2,]',
    "['single']",
    '[NaN]',
    '{"__proto__":{"polluted":true}}',
  ];
  const wrongShapes = [
    '[]',
    '[1]',
    '["1", "two"]',
    '[1.5, "x"]',
    '[1, "x", "extra"]',
    '[null, null]',
    '[{"__proto__":{"polluted":true}}, "x"]',
    '[{"constructor":{"prototype":{"polluted":true}}}, "x"]',
    '[{"$t":"Date","v":{}}, "x"]',
    '[{"$t":"Number","v":"NaN"}, "x"]',
    '[{"$t":"undefined"}, "x"]',
    '[{"$t":5}, "x"]',
    '[1, {"$t":"Object","v":{"$t":"x"}}]',
    '[[[[[[[[[[1]]]]]]]]]], "x"]',
  ];
  const entries: Entry[] = [];
  let huge = 0;
  for (let i = 0; i < count; i++) {
    const key = `bad-${i}`;
    const base: Record<string, string> = {
      key,
      task: 'fuzz.good',
      args: `[${i},"run-${i}"]`,
      when: now(),
      attempt: '1',
      generation: '0',
    };
    const flat = (f: Record<string, string>) => Object.entries(f).flat();
    const r = random();
    if (r < 0.15) {
      // a required field missing or empty
      const field = pick(['key', 'task', 'args', 'when', 'attempt', 'generation']);
      const f = { ...base };
      if (random() < 0.5) delete f[field];
      else f[field] = '';
      entries.push({ fields: flat(f), expect: 'dead', key: field === 'key' ? '' : key });
    } else if (r < 0.27) {
      // fields of the wrong type
      const f = { ...base };
      const field = pick(['when', 'attempt', 'generation']);
      f[field] = pick(['NaN', 'Infinity', 'soon', '1.5', '-1', '0x', '1e400', 'null', '0', ' ']);
      const valid =
        field === 'when'
          ? /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(f.when) && Number.isFinite(Number(f.when))
          : field === 'attempt'
            ? Number.isInteger(Number(f.attempt)) && Number(f.attempt) >= 1
            : /^\d+$/.test(f.generation);
      if (valid && field === 'generation' && f.generation !== '0') {
        entries.push({ fields: flat(f), expect: 'superseded' });
      } else if (valid) {
        entries.push({ fields: flat(f), expect: 'runs', tag: `run-${i}` });
      } else {
        entries.push({ fields: flat(f), expect: 'dead', key });
      }
    } else if (r < 0.42) {
      entries.push({ fields: flat({ ...base, args: pick(badJson) }), expect: 'dead', key });
    } else if (r < 0.52) {
      entries.push({ fields: flat({ ...base, args: pick(badTags) }), expect: 'dead', key });
    } else if (r < 0.64) {
      entries.push({ fields: flat({ ...base, args: pick(wrongShapes) }), expect: 'dead', key });
    } else if (r < 0.74) {
      const task = `${pick(oddStrings)}${pick(['', 'fuzz.good ', 'no.such.task', 'FUZZ.GOOD'])}`;
      entries.push({ fields: flat({ ...base, task: task || 'x' }), expect: 'dead', key });
    } else if (r < 0.77) {
      // bytes that are not UTF-8 in the args or the task name
      const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x5b, 0xc3, 0x28, 0x5d]);
      const field = pick(['args', 'task']);
      const list: (string | Buffer)[] = flat(base);
      list[list.indexOf(field) + 1] = bytes;
      entries.push({ fields: list, expect: 'dead', key });
    } else if (r < 0.8 && huge < 5) {
      // ~1 MB strings in one field
      huge++;
      const blob = 'ж'.repeat(MB / 2);
      const field = pick(['args', 'task', 'key']);
      if (field === 'args') {
        entries.push({ fields: flat({ ...base, args: `["${blob}"]` }), expect: 'dead', key });
      } else if (field === 'task') {
        entries.push({ fields: flat({ ...base, task: blob }), expect: 'dead', key });
      } else {
        // a long key is a key: the task runs
        entries.push({
          fields: flat({ ...base, key: `${key}${blob}` }),
          expect: 'runs',
          tag: `run-${i}`,
        });
      }
    } else if (r < 0.86) {
      // a later generation with no execution behind it: superseded, by design
      const generation = String(1 + Math.floor(random() * 5));
      entries.push({ fields: flat({ ...base, generation }), expect: 'superseded' });
    } else {
      // odd but valid: odd key characters, unknown extra fields, odd field order
      const f: Record<string, string> = {
        ...base,
        key: `${key}${pick(oddStrings.slice(1, -1))}`,
      };
      if (random() < 0.5) f[pick(['__proto__', 'extra', 'constructor', 'toString'])] = 'x';
      const list = flat(f);
      entries.push({
        fields: random() < 0.5 ? list : pairsReversed(list),
        expect: 'runs',
        tag: `run-${i}`,
      });
    }
  }
  return entries;
}

function pairsReversed(list: string[]): string[] {
  const pairs: string[][] = [];
  for (let i = 0; i < list.length; i += 2) pairs.push([list[i], list[i + 1]]);
  return pairs.reverse().flat();
}

const SEED = Number(process.env.DOCKET_FUZZ_SEED) || Math.floor(Math.random() * 2 ** 31);

describe('fuzzing the stream', { timeout: 120_000 }, () => {
  it(`1 000 bad entries among 200 good tasks (seed ${SEED})`, { timeout: 90_000 }, async (t) => {
    t.diagnostic(`fuzz seed ${SEED} (DOCKET_FUZZ_SEED=${SEED} repeats it)`);
    console.log(`fuzz seed ${SEED}`);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const docket = await bootDocket(
      { url: REDIS_URL },
      { worker: { autoStart: true, concurrency: 20, minimumCheckInterval: 100 } },
      'fuzz',
      [FuzzTasks],
    );
    try {
      await fuzz(docket, t);
      assert.deepEqual(unhandled, [], 'unhandled rejections');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await docket.close();
    }
  });

  it(
    'a stream entry whose `when` is in the future does not start before it',
    { timeout: 30_000 },
    async () => {
      const docket = await bootDocket(
        { url: REDIS_URL },
        { worker: { minimumCheckInterval: 50 } },
        'fuzz',
        [FuzzTasks],
      );
      const redis = rawRedis();
      try {
        const when = Date.now() + 1_500;
        await redis.xadd(
          `{${docket.name}}:stream`,
          '*',
          ...['key', 'future', 'task', 'fuzz.good', 'args', '[1,"future"]', 'when', String(when)],
          ...['attempt', '1', 'generation', '0'],
        );
        await docket.worker.runUntilFinished();
        const execution = await docket.client.getExecution('future');
        assert.equal(execution?.state, 'completed');
        assert.ok(
          execution!.startedAt!.getTime() >= when,
          `started ${when - execution!.startedAt!.getTime()}ms before its when`,
        );
      } finally {
        redis.disconnect();
        await docket.close();
      }
    },
  );

  it('keys and task names with odd characters work end to end', { timeout: 30_000 }, async () => {
    const docket = await bootDocket(
      { url: REDIS_URL },
      { worker: { minimumCheckInterval: 50 } },
      'fuzz',
      [FuzzTasks],
    );
    try {
      const { client, worker } = docket;
      const keys = [
        'with space',
        'ünïcødé ✓ 🚀',
        '{braces}',
        '}{',
        'a:b:c',
        '__proto__',
        'constructor',
        'line\nbreak',
        // the longest key maxKeyBytes allows (one more byte is refused before Redis)
        'é'.repeat(512),
      ];
      assert.throws(() => client.add(ODD_TASK, { key: `x${'é'.repeat(512)}` }), TypeError);
      const events: ExecutionEvent[][] = [];
      for (const key of keys) {
        const execution = await client.add(ODD_TASK, { key })('v');
        assert.equal(execution.taskName, ODD_TASK);
        const seen: ExecutionEvent[] = [];
        events.push(seen);
        const iterator = execution.subscribe()[Symbol.asyncIterator]();
        const first = await iterator.next();
        if (!first.done) seen.push(first.value);
        void (async () => {
          for (let n = await iterator.next(); !n.done; n = await iterator.next())
            seen.push(n.value);
        })();
      }
      const cancelled = await client.add(ODD_TASK, { key: 'ü {later} ✓', delay: 60_000 })('v');
      await client.cancel(cancelled.key);
      const running = await client.add('fuzz.wait', { key: 'wait: ✓ {}' })();
      const work = worker.runUntilFinished();
      await waitFor(
        async () => (await client.getExecution(running.key))?.state === 'running',
        'fuzz.wait to run',
      );
      await client.cancel(running.key);
      await work;
      for (const [i, key] of keys.entries()) {
        const execution = await client.getExecution(key);
        assert.equal(execution?.state, 'completed', key.slice(0, 40));
        assert.equal(await execution?.result({ timeout: 2_000 }), `${key} v`);
        await waitFor(
          () => events[i].some((e) => e.type === 'state' && e.state === 'completed'),
          `the completed event of ${key.slice(0, 40)}`,
        );
      }
      await assert.rejects(cancelled.result({ timeout: 2_000 }), ExecutionCancelledError);
      await assert.rejects(running.result({ timeout: 2_000 }), ExecutionCancelledError);
      await assert.rejects(async () => client.add(ODD_TASK, { key: '' })('v'), TypeError);
    } finally {
      await docket.close();
    }
  });
});

async function fuzz(docket: ReliabilityDocket, t: { diagnostic(message: string): void }) {
  const entries = generate(1_000, SEED);
  const stream = `{${docket.name}}:stream`;
  const redis = rawRedis();
  const good: string[] = [];
  try {
    for (const [i, entry] of entries.entries()) {
      await redis.xadd(stream, '*', ...entry.fields);
      if (i % 5 === 0) {
        const tag = `good-${i}`;
        good.push(tag);
        await docket.client.add('fuzz.good', { key: tag })(i, tag);
      }
    }
  } finally {
    redis.disconnect();
  }
  const expected = {
    dead: entries.filter((e) => e.expect === 'dead').length,
    superseded: entries.filter((e) => e.expect === 'superseded').length,
    runs: entries.filter((e) => e.expect === 'runs'),
  };
  t.diagnostic(
    `${entries.length} entries: ${expected.dead} to dead letters, ${expected.superseded} superseded, ${expected.runs.length} odd but valid; ${good.length} good tasks`,
  );

  await waitFor(
    async () => (await pendingCount(docket.name)) === 0 && (await streamLength(docket)) === 0,
    'the stream to drain',
    60_000,
  );
  await waitFor(() => docket.worker.activeTasks === 0, 'the worker to be idle', 10_000);

  const fuzzTasks = docket.module.get(FuzzTasks);
  for (const tag of good) assert.equal(fuzzTasks.ran.get(tag), 1, `good task ${tag}`);
  for (const entry of expected.runs) {
    assert.equal(
      fuzzTasks.ran.get(entry.tag!),
      1,
      `odd but valid entry ${entry.tag}: ${JSON.stringify(entry.fields).slice(0, 300)}`,
    );
  }
  const letters = await docket.client.deadLetters();
  assert.equal(letters.length, expected.dead, 'one dead letter per entry that cannot run');
  for (const letter of letters)
    assert.ok(letter.error.length > 0, `letter ${letter.key} has no reason`);
  const keyed = new Set(letters.map((l) => l.key));
  for (const entry of entries) {
    if (entry.expect === 'dead' && entry.key)
      assert.ok(keyed.has(entry.key), `no letter for ${entry.key}`);
  }
  assert.equal(await pendingCount(docket.name), 0);
  assert.equal(
    (globalThis as Record<string, unknown>).__fuzzEvaluated,
    undefined,
    'a payload was evaluated',
  );
  assert.equal(
    ({} as Record<string, unknown>).polluted,
    undefined,
    'Object.prototype was polluted',
  );
  const loopErrors = docket.logger.problems.filter((p) =>
    /delivery loop|could not be finished/.test(p),
  );
  assert.deepEqual(loopErrors, [], 'the worker loop failed');
}

async function streamLength(docket: ReliabilityDocket): Promise<number> {
  const redis = rawRedis();
  try {
    return await redis.xlen(`{${docket.name}}:stream`);
  } finally {
    redis.disconnect();
  }
}
