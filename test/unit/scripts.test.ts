import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocketKeys } from '../../lib/store/keys.js';
import { CLAIM } from '../../lib/store/scripts/claim.script.js';
import { FINISH } from '../../lib/store/scripts/finish.script.js';
import { DEPTHS, SNAPSHOT } from '../../lib/store/scripts/reads.script.js';
import { SCHEDULE, SCHEDULE_MANY } from '../../lib/store/scripts/schedule.script.js';
import { LUA_SOURCES } from '../../lib/store/scripts/lua-sources.generated.js';

const keys = new DocketKeys('unit');

describe('script definitions', () => {
  it('send as many KEYS as their file name says, under the docket prefix', () => {
    const request = {
      key: 'k',
      taskName: 't',
      args: '[]',
      when: 1,
      attempt: 1,
      mode: 'add' as const,
    };
    const built = SCHEDULE.keys(keys, { now: 1, request });
    assert.equal(built.length, SCHEDULE.numberOfKeys);
    assert.deepEqual(built, ['{unit}:stream', '{unit}:queue', '{unit}:parked:k', '{unit}:runs:k']);
  });

  it('encode a claim as one JSON argument: key, generation, id and the admission rules', () => {
    const args = CLAIM.args(keys, {
      consumer: 'w1',
      now: 5,
      executionTtl: 900,
      deadLetterTtl: 60,
      maxStarts: 4,
      requests: [
        { key: 'a', generation: '2', id: '1-0', admission: [] },
        { key: 'b', generation: '1', id: '2-0', admission: [{ t: 'conc', k: 'c', m: 1, s: 9 }] },
      ],
    });
    assert.deepEqual(args.slice(0, 7), ['{unit}:', 'docket-workers', 'w1', 5, 900, 60, 4]);
    assert.equal(args.length, 9);
    assert.equal(args[8], 0, 'reads nothing along unless asked');
    assert.deepEqual(JSON.parse(args[7] as string), [
      ['a', '2', '1-0'],
      ['b', '1', '2-0', [{ t: 'conc', k: 'c', m: 1, s: 9 }]],
    ]);
  });

  it('encode the ends as one JSON argument of strings, and read the JSON reply back', () => {
    const end = {
      key: 'k',
      generation: '1',
      id: '1-0',
      outcome: 'completed' as const,
      attempt: 1,
      taskName: 't',
      args: '[]',
      admission: [],
    };
    const input = {
      now: 7,
      executionTtl: 0,
      deadLetterTtl: 1_000,
      readAlong: { consumer: 'w1', count: 4 },
      ends: [
        end,
        {
          ...end,
          key: 'lone \ud800 surrogate',
          outcome: 'retry' as const,
          retryWhen: 99,
          error: 'E: x',
          stack: 'at y',
          admission: [{ t: 'conc' as const, k: 'c', m: 1, s: 9 }],
        },
      ],
    };
    const args = FINISH.args(keys, input);
    assert.equal(args.length, 8);
    assert.deepEqual(args.slice(5, 7), ['w1', 4]);
    const rows = JSON.parse(args[7] as string) as unknown[][];
    // a completion's trailing empty values are left out; every value is a string
    assert.deepEqual(rows[0], ['k', '1', '1-0', 'completed', '', '', '', '1', 't', '[]']);
    assert.deepEqual(rows[1], [
      'lone \ufffd surrogate',
      '1',
      '1-0',
      'retry',
      '',
      'E: x',
      '99',
      '1',
      't',
      '[]',
      [{ t: 'conc', k: 'c', m: 1, s: 9 }],
      '',
      '',
      'at y',
    ]);
    assert.doesNotMatch(args[7] as string, /\\ud800/i, 'no lone surrogate escape for cjson');
    const reply = FINISH.decode(JSON.stringify([['ok'], [['3-0', ['key', 'x']]]]), input);
    assert.deepEqual(reply, { statuses: ['ok'], read: [['3-0', ['key', 'x']]] });
    // an empty Lua table encodes as {}
    assert.deepEqual(FINISH.decode('[["ok"],{}]', input), { statuses: ['ok'], read: [] });
  });

  it('read schedule-many replies seven values each', () => {
    const replies = SCHEDULE_MANY.decode(
      [
        ...['scheduled', 'queued', '5', '1', 't', '[1]', '1'],
        ...['already_scheduled', 'running', '4', '7', 't', '[2]', '3'],
        ...['error', 'UnreadableRecordError: WRONGTYPE', '', '', '', '', ''],
      ],
      { now: 1, requests: [] },
    );
    assert.deepEqual(
      replies.map((r) =>
        r.disposition === 'error'
          ? [r.disposition, r.error]
          : [r.disposition, r.state, r.when, r.generation, r.args, r.attempt],
      ),
      [
        ['scheduled', 'queued', 5, 1, '[1]', 1],
        ['already_scheduled', 'running', 4, 7, '[2]', 3],
        ['error', 'UnreadableRecordError: WRONGTYPE'],
      ],
    );
  });

  it('count due work that no worker read as queued, and pending as running', () => {
    const depths = DEPTHS.decode([10, 4, 3, 8, 2, 1, 5, 1], { now: 0, liveSince: 0 });
    assert.deepEqual(depths, {
      stream: 10,
      queue: 9,
      schedule: 8,
      running: 4,
      workers: 2,
      deadLetters: 1,
      held: 5,
      releasing: 1,
    });
  });

  it('list snapshot rows with a state and a task, and skip the others', () => {
    const snapshot = SNAPSHOT.decode(
      [
        ['a', 'queued', 't', '[1]', '5', '1', null, null, '1'],
        ['b', null, null, null, null, null, null, null, null],
        ['c', 'running', 't', '[]', '6', '2', 'w1', '9', '4'],
      ],
      { limit: 10 },
    );
    assert.deepEqual(
      snapshot.runs.map((r) => [r.key, r.state, r.worker, r.startedAt, r.generation]),
      [
        ['a', 'queued', undefined, undefined, 1],
        ['c', 'running', 'w1', 9, 4],
      ],
    );
  });

  it('embed every Lua file with its includes resolved, once each', () => {
    const claim = LUA_SOURCES['claim-2'];
    assert.equal(claim.match(/local function schedule_run\(/g)?.length, 1);
    assert.equal(claim.match(/local function admit\(/g)?.length, 1);
    assert.doesNotMatch(claim, /@include/);
  });
});
