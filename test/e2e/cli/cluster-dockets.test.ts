import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uniqueName } from '../../utils.js';
import { hasBinary, startCluster, type RedisCluster } from '../reliability/servers.js';
import { errorLine, runCli } from './helpers.js';

const missing = ['redis-server', 'redis-cli'].find((b) => !hasBinary(b));

describe(
  'docket CLI: the dockets of a Redis Cluster',
  { skip: missing && `${missing} is not installed`, timeout: 120_000 },
  () => {
    let cluster: RedisCluster | undefined;
    before(async () => {
      cluster = await startCluster(3);
    });
    after(async () => {
      await cluster?.stop();
    });

    it('names the dockets of every master when a docket was never used', async () => {
      const url = cluster!.url;
      // six dockets: their hash slots spread over the three masters
      const names = Array.from({ length: 6 }, () => uniqueName('shard'));
      const added = await Promise.all(
        names.map((name) => runCli(['tasks', 'trace', '--url', url, '--docket', name])),
      );
      for (const result of added) assert.equal(result.code, 0, result.stderr);
      const typo = uniqueName('nope');
      const result = await runCli(['snapshot', '--url', url, '--docket', typo]);
      assert.equal(result.code, 1);
      assert.equal(
        errorLine(result),
        `error: docket '${typo}' on ${url} has never been used (none of its keys is there); ` +
          `dockets there: ${[...names].sort().join(', ')}`,
      );
    });
  },
);
