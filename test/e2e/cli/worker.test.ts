import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { gateFile } from '../../fixtures/cli-app.js';
import { uniqueName, useDocket } from '../../utils.js';
import { CliProcess, errorLine, FIXTURE, runCli, target } from './helpers.js';

describe('docket worker', { timeout: 300_000, concurrency: true }, () => {
  it('works the module, drains on SIGTERM with a task in flight, and exits 0', async (t) => {
    const name = uniqueName('cli');
    const worker = new CliProcess([
      'worker',
      '--module',
      `${FIXTURE}#CliAppModule`,
      ...target(name),
      '--minimum-check-interval',
      '100ms',
      '--shutdown-timeout',
      '30s',
    ]);
    t.after(() => worker.kill());
    const producer = await useDocket(t, [], { name, worker: false });
    const execution = await producer.client.add('gate', { key: 'g1' })('done');
    for await (const event of execution.subscribe()) {
      if (event.type === 'state' && event.state === 'running') break;
    }
    worker.child.kill('SIGTERM');
    await worker.waitForOutput(/SIGTERM: draining/);
    t.after(() => rmSync(gateFile(name), { force: true }));
    writeFileSync(gateFile(name), 'go');
    const result = await worker.exited;
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /drained; bye/);
    assert.equal(await execution.result({ timeout: 5_000 }), 'done');
    assert.equal(execution.state, 'completed');
  });

  it('takes worker options from flags, logs JSON lines, and stops on SIGINT', async (t) => {
    const name = uniqueName('cli');
    const workerName = `cli-worker-${name}`;
    const worker = new CliProcess(
      [
        'worker',
        '--module',
        FIXTURE,
        ...target(name),
        '--name',
        workerName,
        '--log-format',
        'json',
        '--minimum-check-interval',
        '100ms',
        '--no-schedule-automatic-tasks',
      ],
      { DOCKET_WORKER_CONCURRENCY: '3' },
    );
    t.after(() => worker.kill());
    await worker.waitForOutput(/worker \S+ started on docket/);
    const ls = await runCli(['workers', 'ls', ...target(name)]);
    assert.match(ls.stdout, new RegExp(`│ ${workerName} │ .* │ fail, gate, sleep, steps, trace │`));
    worker.child.kill('SIGINT');
    const result = await worker.exited;
    assert.equal(result.code, 0, result.stderr);
    const records = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const record of records) {
      assert.equal(typeof record.time, 'string');
      assert.ok(['log', 'warn', 'error'].includes(record.level as string), JSON.stringify(record));
    }
    const started = records.find((r) => /started on docket/.test(String(r.message)));
    assert.match(
      String(started?.message),
      new RegExp(`worker ${workerName} started on docket "${name}"`),
    );
    assert.match(String(started?.message), /concurrency 3/);
    assert.ok(
      records.some((r) => r.message === 'SIGINT: draining (a second signal stops at once)'),
    );
    assert.ok(!records.some((r) => r.level === 'warn'), 'no option was overridden');
  });

  it("warns when the module's own options win over a flag", async (t) => {
    const worker = new CliProcess([
      'worker',
      '--module',
      `${FIXTURE}#PinnedModule`,
      ...target(),
      '--concurrency',
      '5',
    ]);
    t.after(() => worker.kill());
    await worker.waitForOutput(/SIGTERM or SIGINT drains/);
    assert.match(
      worker.stdout,
      /options win over flags and environment: .*worker\.concurrency 2 \(asked: 5\)/,
    );
    worker.child.kill('SIGTERM');
    assert.equal((await worker.exited).code, 0);
  });

  it('reports a boot that fails in one line, without a stack', async () => {
    const result = await runCli(['worker', '--module', `${FIXTURE}#BadOptionsModule`, ...target()]);
    assert.equal(result.code, 2);
    assert.match(
      errorLine(result),
      /^error: option "worker\.concurrency" is 0; it must be a whole number/,
    );
    assert.doesNotMatch(result.stdout, /\n\s+at /);
  });

  it('refuses a module whose DocketModule has no worker', async () => {
    const result = await runCli([
      'worker',
      '--module',
      `${FIXTURE}#ProducerOnlyModule`,
      ...target(),
    ]);
    assert.equal(result.code, 2);
    assert.match(errorLine(result), /ProducerOnlyModule has worker: false/);
  });
});
