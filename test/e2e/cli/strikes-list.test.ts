import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StrikeCondition } from '../../../lib/index.js';
import { uniqueName, useDocket } from '../../utils.js';
import { runCli, runOk, target } from './helpers.js';

describe('docket strikes', { timeout: 300_000, concurrency: true }, () => {
  it('lists the strikes in effect as a table and as JSON', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const conditions: StrikeCondition[] = [
      { task: 'report' },
      { parameter: 'customerId', operator: 'between', value: [1, 2.5] },
      { task: 'trace', parameter: 'message', operator: '==', value: '7' },
      { task: 'trace', parameter: 'message', operator: '!=', value: 'blocked' },
      { task: 'trace', parameter: 'due', operator: '<', value: new Date('2026-01-01T00:00:00Z') },
      { task: 'trace', parameter: 'urgent', value: true },
    ];
    for (const condition of conditions) await docket.client.strike(condition);
    const [text, out] = await Promise.all([
      runOk(['strikes', ...target(name)]),
      runOk(['strikes', '--json', ...target(name)]),
    ]);
    assert.match(text, new RegExp(`^Strikes in effect in docket '${name}'`));
    assert.match(text, /│ report +│ +│ +│ +│/);
    assert.match(text, /│ \* +│ customerId │ between +│ int:1 float:2\.5 +│/);
    assert.match(text, /│ trace +│ message +│ == +│ str:7 +│/);
    assert.match(text, /│ trace +│ message +│ != +│ blocked +│/);
    assert.match(text, /│ trace +│ due +│ < +│ date:2026-01-01T00:00:00\.000Z │/);
    assert.match(text, /│ trace +│ urgent +│ == +│ bool:true +│/);

    const json = JSON.parse(out) as {
      task: string | null;
      parameter: string | null;
      operator: string | null;
      value: unknown;
      arguments: string[];
    }[];
    // oldest first, with the arguments of the restore that lifts each one
    assert.deepEqual(
      json.map((s) => s.arguments),
      [
        ['report'],
        ['*', 'customerId', 'between', 'int:1', 'float:2.5'],
        ['trace', 'message', '==', 'str:7'],
        ['trace', 'message', '!=', 'blocked'],
        ['trace', 'due', '<', 'date:2026-01-01T00:00:00.000Z'],
        ['trace', 'urgent', '==', 'bool:true'],
      ],
    );
    assert.deepEqual(json[0], {
      task: 'report',
      parameter: null,
      operator: null,
      value: null,
      arguments: ['report'],
    });
    assert.deepEqual(json[1], {
      task: null,
      parameter: 'customerId',
      operator: 'between',
      value: [1, 2.5],
      arguments: ['*', 'customerId', 'between', 'int:1', 'float:2.5'],
    });
    // each restore is a process of its own: side by side
    await Promise.all(json.map((s) => runOk(['restore', ...s.arguments, ...target(name)])));
    assert.deepEqual(await docket.inspector.strikes(), []);
    assert.equal(
      await runOk(['strikes', ...target(name)]),
      `No strikes in effect in docket '${name}'\n`,
    );
  });

  it('strike on a docket never used goes ahead, with a note', async () => {
    const name = uniqueName('cli');
    const result = await runCli(['strike', 'trace', ...target(name)]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'Striking trace\n');
    assert.match(result.stderr, new RegExp(`^note: docket '${name}' on .* has never been used`));
    assert.match(await runOk(['strikes', ...target(name)]), /│ trace │/);
  });
});
