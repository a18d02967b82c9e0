import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { CliError } from '../../lib/cli/cli-error.js';
import { confirm, type Terminal } from '../../lib/cli/confirm.js';

/** A terminal whose keyboard is `typed` (or none, for a pipe), and what it showed. */
function terminal(typed: string | null, tty = true) {
  const input = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) input.isTTY = true;
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    // answer once the question is on the screen
    if (typed !== null && shown.includes('[y/N]')) {
      input.end(typed);
      typed = null;
    } else if (typed === null && shown.includes('[y/N]') && !input.writableEnded) input.end();
  });
  const logged: string[] = [];
  const term: Terminal = { input, output, log: (line) => logged.push(line) };
  return { term, shown: () => shown, logged };
}

const PLAN = {
  count: 2,
  plan: "Clearing docket 'd' on redis://h:6379/0 removes 2 tasks",
  nothing: 'Nothing to clear',
};

describe('docket CLI: confirmation of clear and dead purge', () => {
  it('asks on a terminal and goes ahead on y or yes', async () => {
    for (const answer of ['y\n', 'yes\n', ' Y \n', 'YES\n']) {
      const { term, shown, logged } = terminal(answer);
      assert.equal(await confirm(PLAN, false, term), true, answer);
      assert.match(shown(), /^Clearing docket 'd' on redis:\/\/h:6379\/0 removes 2 tasks\n/);
      assert.match(shown(), /Go ahead\? \[y\/N\] /);
      assert.deepEqual(logged, []);
    }
  });

  it('stops on any other answer, and when the input ends', async () => {
    for (const answer of ['\n', 'n\n', 'no\n', 'yess\n', null]) {
      const { term } = terminal(answer);
      await assert.rejects(confirm(PLAN, false, term), (error: unknown) => {
        assert.ok(error instanceof CliError);
        assert.equal(error.exitCode, 1);
        assert.equal(error.message, 'not confirmed: nothing was changed');
        return true;
      });
    }
  });

  it('--yes prints the plan and goes ahead without asking', async () => {
    const { term, shown, logged } = terminal(null, false);
    assert.equal(await confirm(PLAN, true, term), true);
    assert.deepEqual(logged, [PLAN.plan]);
    assert.equal(shown(), '');
  });

  it('refuses without a terminal and without --yes, even with nothing to do', async () => {
    for (const request of [PLAN, { ...PLAN, count: 0 }]) {
      const { term, shown } = terminal(null, false);
      await assert.rejects(confirm(request, undefined, term), (error: unknown) => {
        assert.ok(error instanceof CliError);
        assert.equal(error.exitCode, 2);
        assert.equal(
          error.message,
          `${PLAN.plan}; give --yes to go ahead (there is no terminal to ask on)`,
        );
        return true;
      });
      assert.equal(shown(), '');
    }
  });

  it('does not ask when there is nothing to do', async () => {
    const { term, shown, logged } = terminal(null);
    assert.equal(await confirm({ ...PLAN, count: 0 }, false, term), false);
    assert.deepEqual(logged, ['Nothing to clear']);
    assert.equal(shown(), '');
  });
});
