import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, relative } from '../../../lib/cli/format.js';
import { parseDuration, parseTypedValue } from '../../../lib/util/typed-value.js';
import { envName, WORKER_OPTIONS, workerOptionsFromEnv } from '../../../lib/config/environment.js';

// Pure functions of the CLI; no Redis and no child process.
describe('docket CLI: values, durations and times', () => {
  it('parses durations in ms, ms/s/m/h and sums of them', () => {
    const cases: [string, number][] = [
      ['1500', 1_500],
      ['500ms', 500],
      ['5s', 5_000],
      ['2m', 120_000],
      ['1h', 3_600_000],
      ['1m30s', 90_000],
      ['1.5s', 1_500],
    ];
    for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
    for (const bad of ['', 'soon', '-5s', '5 s', '5d', '1m 30s', 's5']) {
      assert.throws(() => parseDuration(bad), /use milliseconds/, bad);
    }
  });

  it('types strike values by prefix; anything else is a string', () => {
    assert.equal(parseTypedValue('int:42'), 42);
    assert.equal(parseTypedValue('int:-7'), -7);
    assert.equal(parseTypedValue('int:12345678901234567890'), 12345678901234567890n);
    assert.equal(parseTypedValue('float:1.5'), 1.5);
    assert.equal(parseTypedValue('bool:true'), true);
    assert.equal(parseTypedValue('bool:False'), false);
    assert.deepEqual(parseTypedValue('date:2026-01-01T00:00:00Z'), new Date(Date.UTC(2026, 0, 1)));
    assert.deepEqual(parseTypedValue('json:{"a":[1,null]}'), { a: [1, null] });
    assert.equal(parseTypedValue('str:int:4'), 'int:4');
    assert.equal(parseTypedValue('42'), '42');
    assert.equal(parseTypedValue('http://x'), 'http://x');
    for (const bad of ['int:4.5', 'float:x', 'bool:yes', 'date:tomorrow', 'json:{']) {
      assert.throws(() => parseTypedValue(bad), /takes/, bad);
    }
  });

  it('says times relative to now in at most two units', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    const at = (ms: number) => relative(new Date(now.getTime() + ms), now);
    assert.equal(at(300), 'now');
    assert.equal(at(3_000), 'in 3s');
    assert.equal(at(-120_000), '2m ago');
    assert.equal(at(-125_400), '2m 5s ago');
    assert.equal(at(3_780_000), 'in 1h 3m');
    assert.equal(at(-2 * 86_400_000 - 4 * 3_600_000), '2d 4h ago');
    assert.equal(formatDuration(850), '850ms');
    assert.equal(formatDuration(3_600_000), '1h');
  });

  it('reads every worker option from DOCKET_WORKER_* and names a bad variable', () => {
    assert.deepEqual(
      WORKER_OPTIONS.map((o) => envName(o.key)),
      [
        'DOCKET_WORKER_NAME',
        'DOCKET_WORKER_CONCURRENCY',
        'DOCKET_WORKER_REDELIVERY_TIMEOUT',
        'DOCKET_WORKER_RECONNECTION_DELAY',
        'DOCKET_WORKER_MINIMUM_CHECK_INTERVAL',
        'DOCKET_WORKER_SCHEDULING_RESOLUTION',
        'DOCKET_WORKER_SCHEDULE_AUTOMATIC_TASKS',
        'DOCKET_WORKER_SHUTDOWN_TIMEOUT',
        'DOCKET_WORKER_MAX_REDELIVERIES',
      ],
    );
    assert.deepEqual(
      workerOptionsFromEnv({
        DOCKET_WORKER_NAME: 'w1',
        DOCKET_WORKER_CONCURRENCY: '4',
        DOCKET_WORKER_REDELIVERY_TIMEOUT: '5m',
        DOCKET_WORKER_RECONNECTION_DELAY: '500ms',
        DOCKET_WORKER_MINIMUM_CHECK_INTERVAL: '100',
        DOCKET_WORKER_SCHEDULING_RESOLUTION: '1s',
        DOCKET_WORKER_SCHEDULE_AUTOMATIC_TASKS: 'false',
        DOCKET_WORKER_SHUTDOWN_TIMEOUT: '1m30s',
      }),
      {
        name: 'w1',
        concurrency: 4,
        redeliveryTimeout: 300_000,
        reconnectionDelay: 500,
        minimumCheckInterval: 100,
        schedulingResolution: 1_000,
        scheduleAutomaticTasks: false,
        shutdownTimeout: 90_000,
      },
    );
    assert.deepEqual(workerOptionsFromEnv({ DOCKET_WORKER_CONCURRENCY: '' }), {});
    assert.throws(
      () => workerOptionsFromEnv({ DOCKET_WORKER_CONCURRENCY: 'many' }),
      (error: Error) =>
        error.name === 'DocketConfigurationError' &&
        /DOCKET_WORKER_CONCURRENCY="many" is not a valid worker\.concurrency: use a whole number ≥ 1/.test(
          error.message,
        ),
    );
  });
});
