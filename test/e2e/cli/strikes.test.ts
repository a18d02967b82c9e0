import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueName, useDocket, waitFor } from '../../utils.js';
import { errorLine, runCli, runOk, target } from './helpers.js';

describe('docket strike and restore', { timeout: 300_000, concurrency: true }, () => {
  it('strike blocks adds in every process until restore', async (t) => {
    const name = uniqueName('cli');
    assert.equal(
      await runOk(['strike', 'trace', 'message', '==', 'blocked', ...target(name)]),
      'Striking trace message == "blocked"\n',
    );
    assert.equal(
      await runOk(['strike', '*', 'customerId', '==', 'int:7', ...target(name)]),
      'Striking (all tasks) customerId == 7\n',
    );
    assert.match(
      await runOk(['tasks', 'trace', 'blocked', '--key', 'k1', ...target(name)]),
      new RegExp(`^Struck: trace task 'k1' matches a strike in docket '${name}' and was not added`),
    );
    assert.match(
      await runOk(['tasks', 'trace', 'free', ...target(name)]),
      new RegExp(`^Added trace task '[0-9a-f-]{36}' to docket '${name}'`),
    );

    // A process that starts now loads the strikes written by the CLI.
    const docket = await useDocket(t, [], { name, worker: false });
    assert.equal((await docket.client.add('trace')('blocked')).disposition, 'struck');
    assert.equal((await docket.client.add('other')({ customerId: 7 })).disposition, 'scheduled');

    assert.equal(
      await runOk(['restore', 'trace', 'message', '==', 'blocked', ...target(name)]),
      'Restored trace message == "blocked"\n',
    );
    assert.match(
      await runOk(['tasks', 'trace', 'blocked', '--key', 'k2', ...target(name)]),
      /^Added trace task 'k2'/,
    );
    await waitFor(
      async () => (await docket.client.add('trace')('blocked')).disposition === 'scheduled',
      'the restore to reach this process',
    );
  });

  it('strike takes typed values, between, and whole tasks', async () => {
    const name = uniqueName('cli');
    const lines = [
      [['strike', 'report'], 'Striking report'],
      [
        ['strike', 'report', 'amount', 'between', 'float:1.5', 'int:10'],
        'Striking report amount between 1.5 and 10',
      ],
      [['strike', 'report', 'urgent', '!=', 'bool:true'], 'Striking report urgent != true'],
      [
        ['strike', 'report', 'due', '<', 'date:2026-01-01T00:00:00Z'],
        'Striking report due < 2026-01-01T00:00:00.000Z',
      ],
      [['restore', 'report'], 'Restored report'],
    ] as const;
    for (const [args, line] of lines) {
      assert.equal(await runOk([...args, ...target(name)]), `${line}\n`);
    }
    const plain = await runCli(['strike', 'report', 'customerId', '==', '7', ...target(name)]);
    assert.equal(plain.code, 0);
    assert.match(plain.stderr, /note: 7 is the string "7"; write int:7/);
  });

  it('restore of a strike that is not in effect fails and says what is', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.strike({ task: 'trace', parameter: 'message', value: 7 });
    // the string "7" is not the number 7
    const wrong = await runCli(['restore', 'trace', 'message', '==', 'str:7', ...target(name)]);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stdout, '');
    assert.equal(
      errorLine(wrong),
      `error: no strike trace message == "7" is in effect in docket '${name}' ` +
        '(in effect: trace message == int:7)',
    );
    assert.equal(
      await runOk(['restore', 'trace', 'message', '==', 'int:7', ...target(name)]),
      'Restored trace message == 7\n',
    );
    const again = await runCli(['restore', 'trace', 'message', '==', 'int:7', ...target(name)]);
    assert.equal(again.code, 1);
    assert.equal(
      errorLine(again),
      `error: no strike trace message == 7 is in effect in docket '${name}' (no strike is in effect)`,
    );
  });
});
