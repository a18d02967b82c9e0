// The docket over TLS: a redis-server that listens only on a TLS port with a certificate of a
// CA made for the test, reached with rediss:// and `connection: { tls: { ca } }` (merged over the
// options parsed from the URL).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../utils.js';
import { bootDocket, itRunsTheRepresentativeSet, ReliabilityTasks } from './scenarios.js';
import {
  hasBinary,
  makeCertificates,
  redisHasTls,
  removeDir,
  startStandalone,
  type RedisServer,
  type TlsFiles,
} from './servers.js';

const skip = !hasBinary('openssl')
  ? 'openssl is not installed'
  : !redisHasTls()
    ? 'this redis-server was built without TLS'
    : undefined;

describe('TLS (rediss://)', { skip, timeout: 120_000 }, () => {
  let files: TlsFiles | undefined;
  let server: RedisServer | undefined;
  let ca = '';
  before(async () => {
    files = makeCertificates();
    ca = readFileSync(files.ca, 'utf8');
    const port = await freePort();
    server = await startStandalone({
      port,
      noPlainPort: true,
      args: [
        '--tls-port',
        String(port),
        '--tls-cert-file',
        files.cert,
        '--tls-key-file',
        files.key,
        '--tls-ca-cert-file',
        files.ca,
        '--tls-auth-clients',
        'no',
      ],
      clientOptions: { tls: { ca } },
    });
  });
  after(async () => {
    await server?.stop();
    if (server) removeDir(server.dir);
    if (files) removeDir(files.dir);
  });

  const target = () => ({ url: `rediss://127.0.0.1:${server!.port}`, connection: { tls: { ca } } });

  it('add → result with the CA given in `connection.tls`', { timeout: 30_000 }, async () => {
    const docket = await bootDocket(target());
    try {
      const execution = await docket.client.add(ReliabilityTasks.prototype.echo)('over tls');
      await docket.worker.runUntilFinished();
      assert.equal(await execution.result({ timeout: 5_000 }), 'over tls');
    } finally {
      await docket.close();
    }
  });

  /** What `add` says when the server's certificate cannot be verified (no CA given). */
  async function unverifiedAdd(): Promise<Error> {
    const docket = await bootDocket({ url: `rediss://127.0.0.1:${server!.port}` });
    try {
      await docket.client.add(ReliabilityTasks.prototype.echo)('never');
    } catch (error) {
      return error as Error;
    } finally {
      await docket.close();
    }
    assert.fail('add succeeded against a server whose certificate was not verified');
  }

  it('refuses a server whose certificate it cannot verify', { timeout: 30_000 }, async () => {
    const error = await unverifiedAdd();
    assert.equal(error.name, 'RedisUnavailableError');
  });

  it(
    'says why it cannot connect (the certificate), not only "not reachable"',
    {
      timeout: 30_000,
    },
    async () => {
      const error = await unverifiedAdd();
      assert.match(error.message, /certificate/i);
    },
  );

  describe('the representative set', () => {
    itRunsTheRepresentativeSet(target);
  });
});
