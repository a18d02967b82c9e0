// The docket on a Redis Cluster of three masters, reached with redis+cluster:// naming two of
// them: every key of a docket shares the hash tag {name}, so its multi-key scripts never fail
// with CROSSSLOT; a CROSSSLOT (or any other Redis error) in the worker's loops fails the test.
import { after, before, describe } from 'node:test';
import { itRunsTheRepresentativeSet } from './scenarios.js';
import { hasBinary, startCluster, type RedisCluster } from './servers.js';

const missing = ['redis-server', 'redis-cli'].find((b) => !hasBinary(b));

describe(
  'Redis Cluster (3 masters)',
  { skip: missing && `${missing} is not installed`, timeout: 120_000 },
  () => {
    let cluster: RedisCluster | undefined;
    before(async () => {
      cluster = await startCluster(3);
    });
    after(async () => {
      await cluster?.stop();
    });
    itRunsTheRepresentativeSet(() => ({ url: cluster!.url }));
  },
);
