import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueName, useDocket } from '../../utils.js';
import { runCli, target } from './helpers.js';

async function ok(args: string[]): Promise<string> {
  const result = await runCli(args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('docket pause and resume', { timeout: 300_000 }, () => {
  it('pauses and resumes the docket and a task; paused and snapshot show it', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.add('report')('r1');
    const [docketWide, byName] = await Promise.all([
      ok(['pause', ...target(name)]),
      ok(['pause', 'report', ...target(name)]),
    ]);
    assert.match(docketWide, new RegExp(`^Paused docket '${name}'`));
    assert.match(byName, new RegExp(`^Paused task 'report' of docket '${name}'`));
    assert.deepEqual(await docket.client.paused(), { docket: true, tasks: ['report'] });
    const [json, snapshot] = await Promise.all([
      ok(['paused', '--json', ...target(name)]),
      ok(['snapshot', ...target(name)]),
    ]);
    assert.deepEqual(JSON.parse(json), { docket: true, tasks: ['report'] });
    assert.match(snapshot, /PAUSED: the whole docket \(and by name: report\)/);
    assert.match(snapshot, /report \(paused\)/);
    const resumed = await ok(['resume', ...target(name)]);
    assert.match(resumed, new RegExp(`^Resumed docket '${name}'`));
    assert.match(resumed, /still paused by name: report/);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['report'] });
    await docket.client.resume('report');
    assert.match(await ok(['paused', ...target(name)]), /^Nothing is paused/);
  });
});
