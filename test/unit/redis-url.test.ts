import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DocketConfigurationError } from '../../lib/errors/docket-configuration.error.js';
import { parseRedisUrl, redactUrl } from '../../lib/store/redis-url.js';

describe('parseRedisUrl', () => {
  it('reads redis:// with user, password, port and database', () => {
    assert.deepEqual(parseRedisUrl('redis://alice:s3cret@cache.local:6380/4'), {
      kind: 'standalone',
      options: { host: 'cache.local', port: 6380, username: 'alice', password: 's3cret', db: 4 },
    });
  });

  it('defaults host, port and database', () => {
    const target = parseRedisUrl('redis://');
    assert.equal(target.kind, 'standalone');
    assert.deepEqual(target.kind === 'standalone' && target.options, {
      host: 'localhost',
      port: 6379,
      username: undefined,
      password: undefined,
      db: 0,
    });
  });

  it('reads a password without a user, percent-encoded characters and IPv6 hosts', () => {
    const a = parseRedisUrl('redis://:p%40ss%2Fword@[::1]:7000/2');
    assert.equal(a.kind, 'standalone');
    if (a.kind !== 'standalone') return;
    assert.equal(a.options.username, undefined);
    assert.equal(a.options.password, 'p@ss/word');
    assert.equal(a.options.host, '::1');
    assert.equal(a.options.port, 7000);
    assert.equal(a.options.db, 2);
  });

  it('turns TLS on for rediss://', () => {
    const target = parseRedisUrl('rediss://h:6390');
    assert.equal(target.kind, 'standalone');
    assert.deepEqual(target.kind === 'standalone' && target.options.tls, {});
  });

  it('reads sentinels, the service and the database', () => {
    const target = parseRedisUrl('redis+sentinel://:pw@s1:26380,s2/mymaster/3');
    assert.equal(target.kind, 'sentinel');
    if (target.kind !== 'sentinel') return;
    assert.deepEqual(target.options.sentinels, [
      { host: 's1', port: 26380 },
      { host: 's2', port: 26379 },
    ]);
    assert.equal(target.options.name, 'mymaster');
    assert.equal(target.options.password, 'pw');
    assert.equal(target.options.db, 3);
    const tls = parseRedisUrl('rediss+sentinel://s1/svc');
    assert.equal(tls.kind === 'sentinel' && tls.options.enableTLSForSentinelMode, true);
  });

  it('reads cluster nodes', () => {
    const target = parseRedisUrl('redis+cluster://u:p@n1:7001,n2:7002');
    assert.equal(target.kind, 'cluster');
    if (target.kind !== 'cluster') return;
    assert.deepEqual(target.nodes, [
      { host: 'n1', port: 7001 },
      { host: 'n2', port: 7002 },
    ]);
    assert.equal(target.options.redisOptions?.password, 'p');
    assert.equal(target.options.redisOptions?.username, 'u');
    assert.deepEqual(
      (parseRedisUrl('rediss+cluster://n1') as { options: { redisOptions: { tls?: object } } })
        .options.redisOptions.tls,
      {},
    );
  });

  it('reads memory:// with and without an id', () => {
    assert.deepEqual(parseRedisUrl('memory://'), { kind: 'memory', id: 'default' });
    assert.deepEqual(parseRedisUrl('memory://tests'), { kind: 'memory', id: 'tests' });
  });

  it('refuses what it cannot connect to, with a configuration error naming the problem', () => {
    const cases: [string, RegExp][] = [
      ['http://x', /unknown scheme "http:\/\/"/],
      ['localhost:6379', /no scheme/],
      ['redis://h:99999', /bad port/],
      ['redis://h:6379/db', /database "db" is not a number/],
      ['redis+sentinel://s1:26379', /service name is missing/],
      ['redis+cluster://n1:7000/2', /only database 0/],
      ['redis+cluster://', /no host/],
    ];
    for (const [url, message] of cases) {
      assert.throws(
        () => parseRedisUrl(url),
        (error: Error) => {
          assert.ok(error instanceof DocketConfigurationError, url);
          assert.match(error.message, message, url);
          assert.match(error.message, /url/, url);
          return true;
        },
      );
    }
  });

  it('never shows the password in an error', () => {
    assert.throws(
      () => parseRedisUrl('redis://u:hunter2@h:bad'),
      (error: Error) => !error.message.includes('hunter2'),
    );
  });

  it('reads a password that contains "/" or "@" and never shows it in an error', () => {
    const target = parseRedisUrl('redis://u:se/c@ret@h:6379/1');
    assert.equal(target.kind, 'standalone');
    if (target.kind !== 'standalone') return;
    assert.equal(target.options.password, 'se/c@ret');
    assert.equal(target.options.host, 'h');
    assert.equal(target.options.db, 1);
    assert.throws(
      () => parseRedisUrl('redis://:se/cret@h:bad'),
      (error: Error) => {
        assert.ok(error instanceof DocketConfigurationError);
        assert.doesNotMatch(error.message, /se\/cret|cret/);
        return true;
      },
    );
  });
});

describe('redactUrl', () => {
  it('hides the password and keeps the rest', () => {
    assert.equal(redactUrl('redis://alice:s3cret@h:6379/1'), 'redis://alice:***@h:6379/1');
    assert.equal(redactUrl('redis://:s3cret@h:6379'), 'redis://:***@h:6379');
    assert.equal(
      redactUrl('redis+sentinel://:pw@s1:1,s2:2/svc'),
      'redis+sentinel://:***@s1:1,s2:2/svc',
    );
    assert.equal(redactUrl('redis://h:6379/0'), 'redis://h:6379/0');
  });

  it('hides a password that contains "@" entirely', () => {
    assert.equal(redactUrl('redis://u:p@ss@h:6379/0'), 'redis://u:***@h:6379/0');
  });

  it('hides a password given without a user', () => {
    assert.equal(
      (parseRedisUrl('redis://secret@h') as { options: { password?: string } }).options.password,
      'secret',
    );
    assert.doesNotMatch(redactUrl('redis://secret@h:6379'), /secret/);
  });
});
