import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIS_URL, uniqueName } from '../../utils.js';
import { errorLine, runCli } from './helpers.js';

/** The test Redis's database `db` (the other tests use database 0). */
const database = (db: number) => REDIS_URL.replace(/\/\d+$/, `/${db}`);

describe(
  'docket CLI: a docket that was never used',
  { timeout: 300_000, concurrency: true },
  () => {
    it('is an error that names the dockets of the database, for every command that reads or deletes', async () => {
      const url = database(11);
      const used = [uniqueName('orders'), uniqueName('emails')];
      for (const name of used) {
        const added = await runCli(['tasks', 'trace', '--url', url, '--docket', name]);
        assert.equal(added.code, 0, added.stderr);
      }
      const typo = uniqueName('ordres');
      const commands = [
        ['snapshot'],
        ['snapshot', '--json'],
        ['workers'],
        ['workers', 'for-task', 'trace'],
        ['dead', 'ls'],
        ['dead', 'retry', '--all'],
        ['dead', 'purge', '--yes'],
        ['strikes'],
        ['restore', 'trace'],
        ['clear', '--yes'],
        ['watch', 'some-key'],
      ];
      const results = await Promise.all(
        commands.map((args) => runCli([...args, '--url', url, '--docket', typo])),
      );
      const expected =
        `error: docket '${typo}' on ${url} has never been used (none of its keys is there); ` +
        `dockets there: `;
      commands.forEach((args, i) => {
        const result = results[i];
        assert.equal(result.code, 1, `${args.join(' ')}: ${result.stderr}`);
        const line = errorLine(result);
        assert.ok(line.startsWith(expected), `${args.join(' ')}: ${line}`);
        // (an earlier run outside a fresh server may have left dockets of its own there)
        const there = line.slice(expected.length).split(', ');
        assert.deepEqual([...there].sort(), there, 'sorted');
        for (const name of used) assert.ok(there.includes(name), `${args.join(' ')}: ${line}`);
        assert.equal(result.stdout, '', args.join(' '));
      });
    });

    it('on an empty database says that there is no docket there', async () => {
      const url = database(12);
      const name = uniqueName('docket');
      const result = await runCli(['snapshot', '--url', url, '--docket', name]);
      assert.equal(result.code, 1);
      assert.equal(
        errorLine(result),
        `error: docket '${name}' on ${url} has never been used (none of its keys is there); ` +
          'there is no docket on that database',
      );
    });

    it('counts a docket used by a strike or a future task only', async () => {
      const url = database(13);
      const struck = uniqueName('struck');
      const future = uniqueName('future');
      const strike = await runCli(['strike', 'trace', '--url', url, '--docket', struck]);
      assert.equal(strike.code, 0, strike.stderr);
      const add = await runCli(['tasks', 'trace', '--delay', '1h', '--url', url, '-d', future]);
      assert.equal(add.code, 0, add.stderr);
      for (const name of [struck, future]) {
        const result = await runCli(['snapshot', '--url', url, '--docket', name]);
        assert.equal(result.code, 0, result.stderr);
      }
    });
  },
);
