import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admissionFor, compilePlan } from '../../lib/behaviours/plan.js';
import { DocketConfigurationError } from '../../lib/errors/docket-configuration.error.js';
import type { TaskDefinition } from '../../lib/explorer/task-definition.js';
import type { DocketTaskOptions } from '../../lib/interfaces/docket-task-options.interface.js';

function definition(
  options: DocketTaskOptions,
  parameters: string[] = ['customerId', 'order'],
): Omit<TaskDefinition, 'plan'> {
  return {
    name: 'bill',
    source: 'Billing#bill',
    options,
    method: () => undefined,
    instance: {},
    ctxIndex: -1,
    parameters,
    rest: false,
  };
}

describe('compilePlan and admissionFor', () => {
  it('compiles each rule with a key of its own, completed by the argument value', () => {
    const plan = compilePlan(
      definition({
        cooldown: [{ window: 1_000 }, { window: 5_000, argument: 'customerId' }],
        rateLimit: { limit: 2, per: 60_000, argument: 'order.region', drop: true },
        debounce: { settle: 200, scope: 'shared' },
        concurrency: { max: 3, argument: 'customerId' },
      }),
    );
    const rules = admissionFor(plan, [42, { region: 'eu' }], 300_000);
    assert.deepEqual(rules, [
      { t: 'cooldown', k: 'cooldown:bill:1000ms', w: 1_000 },
      { t: 'cooldown', k: 'cooldown:bill:5000ms:customerId=42', w: 5_000 },
      { t: 'debounce', k: 'debounce:shared', s: 200 },
      { t: 'rate', k: 'rateLimit:bill:60000ms:order.region="eu"', l: 2, p: 60_000, d: true },
      { t: 'conc', k: 'concurrency:bill:customerId=42', m: 3, s: 300_000 },
    ]);
  });

  it('gives no rules to a task without admission options', () => {
    assert.deepEqual(admissionFor(compilePlan(definition({})), [1], 1_000), []);
  });

  it('keys values by their encoding, so 1 and "1" are different lines', () => {
    const plan = compilePlan(definition({ concurrency: { max: 1, argument: 'customerId' } }));
    const [number] = admissionFor(plan, [1], 1);
    const [text] = admissionFor(plan, ['1'], 1);
    assert.notEqual(number.k, text.k);
  });

  for (const [options, problem] of [
    [{ concurrency: { max: 0 } }, 'concurrency.max must be a whole number > 0'],
    [{ rateLimit: { limit: 1, per: -1 } }, 'rateLimit.per must be a number > 0'],
    [
      { concurrency: { max: 1, argument: 'nope' } },
      'concurrency.argument "nope" is not a parameter',
    ],
    [{ perpetual: { every: 1_000 }, cron: '* * * * *' }, 'perpetual and cron cannot be combined'],
    [{ retry: { attempts: 0 } }, 'retry.attempts must be a whole number ≥ 1'],
    [{ cron: 'not cron' }, 'cron: "not cron" is not a 5-field cron expression'],
    // a wrong type names the option and the form it takes
    [{ timeout: '5s' }, 'timeout must be a number > 0, not "5s"'],
    [{ retry: 3 }, 'retry must be { attempts, delay, backoff, maxDelay }, not 3'],
    [{ retry: { attempts: 2, delay: '1s' } }, 'retry.delay must be a number of ms ≥ 0, not "1s"'],
    [
      { retry: { attempts: 2, backoff: 'linear' } },
      "retry.backoff must be 'fixed' or 'exponential'",
    ],
    [{ retry: { attemps: 2 } }, 'retry has no field "attemps" (it takes attempts, delay'],
    [{ perpetual: 5 }, 'perpetual must be { every, automatic }, not 5'],
    [{ cron: 5 }, 'cron must be a cron expression or { expression, tz, automatic }, not 5'],
    [{ cron: { expression: 5 } }, 'cron.expression must be a cron expression string, not 5'],
    [{ concurrency: 'x' }, 'concurrency must be { max, argument, scope }, not "x"'],
    [{ rateLimit: 7 }, 'rateLimit must be { limit, per, argument, drop, scope } or a list of them'],
    [{ cooldown: [{ window: 1 }, 'x'] }, 'cooldown must be { window, argument, scope } or a list'],
    [{ debounce: { settle: 'soon' } }, 'debounce.settle must be a number > 0, not "soon"'],
    [{ progress: true }, 'unknown option "progress" (@DocketTask takes name, retry'],
  ] as unknown as [DocketTaskOptions, string][]) {
    it(`refuses ${JSON.stringify(options)} at boot, naming the task`, () => {
      assert.throws(
        () => compilePlan(definition(options)),
        (error: Error) =>
          error instanceof DocketConfigurationError &&
          error.message.includes('task "bill" (Billing#bill)') &&
          error.message.includes(problem),
      );
    });
  }
});
