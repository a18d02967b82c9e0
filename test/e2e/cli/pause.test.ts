import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueName, useDocket } from '../../utils.js';
import { runCli, runOk, target } from './helpers.js';

describe('docket pause and resume', { timeout: 300_000 }, () => {
  it('pauses and resumes the docket and a task; paused and snapshot show it', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    await docket.client.add('report')('r1');
    const [docketWide, byName] = await Promise.all([
      runOk(['pause', ...target(name)]),
      runOk(['pause', 'report', ...target(name)]),
    ]);
    assert.match(docketWide, new RegExp(`^Paused docket '${name}'`));
    assert.match(byName, new RegExp(`^Paused task 'report' of docket '${name}'`));
    assert.deepEqual(await docket.client.paused(), { docket: true, tasks: ['report'] });
    const [json, snapshot] = await Promise.all([
      runOk(['paused', '--json', ...target(name)]),
      runOk(['snapshot', ...target(name)]),
    ]);
    assert.deepEqual(JSON.parse(json), { docket: true, tasks: ['report'] });
    assert.match(snapshot, /PAUSED: the whole docket \(and by name: report\)/);
    assert.match(snapshot, /report \(paused\)/);
    const resumed = await runOk(['resume', ...target(name)]);
    assert.match(resumed, new RegExp(`^Resumed docket '${name}'`));
    assert.match(resumed, /still paused by name: report/);
    assert.deepEqual(await docket.client.paused(), { docket: false, tasks: ['report'] });
    await docket.client.resume('report');
    assert.match(await runOk(['paused', ...target(name)]), /^Nothing is paused/);
  });

  it('explain says why a task waits, as text and as JSON', async (t) => {
    const name = uniqueName('cli');
    const docket = await useDocket(t, [], { name, worker: false });
    const later = await docket.client.add('report', { delay: 3_600_000 })('r1');
    const [text, json, missing] = await Promise.all([
      runOk(['explain', later.key, ...target(name)]),
      runOk(['explain', later.key, '--json', ...target(name)]),
      runCli(['explain', 'no-such-key', ...target(name)]),
    ]);
    assert.match(text, new RegExp(`^${later.key}: scheduled, scheduled until `));
    const why = JSON.parse(json) as { state: string; reason: string; until: string };
    assert.equal(why.reason, 'scheduled');
    assert.equal(new Date(why.until).getTime(), later.when.getTime());
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no task no-such-key in docket/);
  });
});
