import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uniqueName, useDocket } from '../../utils.js';
import { runOk, target } from './helpers.js';

describe(
  'docket snapshot and explain of a task waiting for its dependencies',
  { timeout: 300_000 },
  () => {
    it('show the keys it waits for', async (t) => {
      const name = uniqueName('cli');
      const docket = await useDocket(t, [], { name, worker: false });
      await docket.client.add('report', { key: 'first', delay: 3_600_000 })('r1');
      await docket.client.add('summary', { key: 'then', after: 'first' })();
      const [explained, snapshot] = await Promise.all([
        runOk(['explain', 'then', ...target(name)]),
        runOk(['snapshot', ...target(name)]),
      ]);
      assert.match(explained, /^then: scheduled, dependencies\n {2}waiting for first\n/);
      assert.match(snapshot, /│ then\s+│ summary\s+│ after first\s+│/);
    });
  },
);
