import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { freePort } from '../../utils.js';
import { errorLine, FIXTURE, ROOT, runCli, target } from './helpers.js';

const USAGE = 2;

describe('docket CLI: usage and errors', { timeout: 300_000, concurrency: true }, () => {
  it('prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const args of [['version'], ['--version']]) {
      const result = await runCli(args);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), pkg.version);
    }
  });

  it('answers an unknown command, flag or bad value with one line and exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['bogus'], /unknown command 'bogus'/],
      [['snapshot', '--bogus'], /unknown option '--bogus'/],
      [['tasks', 'trace', '--delay', 'soon'], /--delay .*is invalid.*500ms/],
      [['tasks', 'sleep', 'long'], /invalid.*number/],
      [['worker', '--module', FIXTURE, '--concurrency', '0'], /--concurrency.*whole number ≥ 1/],
      [['worker', '--module', FIXTURE, '--redelivery-timeout', '5 minutes'], /redelivery-timeout/],
      [['worker', '--module', FIXTURE, '--log-format', 'xml'], /Allowed choices are plain, json/],
      [['worker'], /required option '-m, --module/],
      [['strike'], /give a task, a parameter, or both/],
      [['strike', 'trace', 'message', '~', 'x'], /operator "~" is not one of/],
      [['strike', 'trace', 'message', '==', 'int:x'], /value "int:x": int: takes an integer/],
      [['strike', 'trace', 'message', 'between', 'int:1'], /between takes two values/],
      [['dead', 'retry'], /give a key or --all/],
      [['snapshot', '--docket', 'has space'], /docket name "has space" is not valid/],
      [['snapshot', '--url', 'http://localhost'], /unknown scheme "http:\/\/"/],
    ];
    // Each case is a process of its own: run them side by side.
    const results = await Promise.all(cases.map(([args]) => runCli([...args])));
    cases.forEach(([args, pattern], i) => {
      const result = results[i];
      assert.equal(result.code, USAGE, `${args.join(' ')}: ${result.stderr}`);
      assert.match(errorLine(result), pattern, args.join(' '));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
    });
  });

  it('takes worker values from DOCKET_WORKER_* and names a bad one', async () => {
    const result = await runCli(['worker', '--module', FIXTURE], {
      DOCKET_WORKER_SHUTDOWN_TIMEOUT: 'forever',
    });
    assert.equal(result.code, USAGE);
    assert.match(errorLine(result), /DOCKET_WORKER_SHUTDOWN_TIMEOUT="forever"/);
  });

  it('refuses memory:// for every command but worker, saying why', async () => {
    for (const args of [['snapshot'], ['workers', 'ls'], ['tasks', 'trace']]) {
      const result = await runCli([...args, '--url', 'memory://'], {});
      assert.equal(result.code, USAGE);
      assert.match(
        errorLine(result),
        new RegExp(`docket ${args.join(' ')} cannot use memory://.*inside the process`),
      );
    }
  });

  it('never prints the password of --url', async () => {
    const secret = 's3cr3t-Pa55';
    const port = await freePort();
    const bad = await runCli(['snapshot', '--url', `foo://user:${secret}@localhost`]);
    assert.equal(bad.code, USAGE);
    assert.match(errorLine(bad), /user:\*\*\*@localhost/);
    const gone = await runCli(['snapshot', '--url', `redis://:${secret}@127.0.0.1:${port}/0`]);
    assert.equal(gone.code, 1, gone.stderr);
    assert.match(
      errorLine(gone),
      /^error: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\/0 is not reachable( \(.*\))?$/,
    );
    const env = await runCli(['clear'], { DOCKET_URL: `redis://:${secret}@127.0.0.1:${port}/0` });
    assert.equal(env.code, 1);
    // malformed URLs: no scheme, no host, a password in the query
    const malformed = await Promise.all(
      [
        `user:${secret}@localhost:${port}`,
        `redis://:${secret}@`,
        `redis://127.0.0.1:${port}/0?password=${secret}`,
        `rediss://user:${secret}@[::1`,
      ].map((url) => runCli(['snapshot', '--url', url])),
    );
    for (const result of [bad, gone, env, ...malformed]) {
      assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), result.stderr);
    }
  });

  it('says which file or export --module lacks', async () => {
    const missing = await runCli(['worker', '--module', 'no/such/file.js', ...target()]);
    assert.equal(missing.code, USAGE);
    assert.match(errorLine(missing), /there is no file .*no\/such\/file\.js/);
    const noExport = await runCli(['worker', '--module', `${FIXTURE}#Nope`, ...target()]);
    assert.equal(noExport.code, USAGE);
    assert.match(errorLine(noExport), /has no export "Nope"; it exports .*CliAppModule/);
    const notModule = await runCli(['worker', '--module', `${FIXTURE}#notAModule`, ...target()]);
    assert.equal(notModule.code, USAGE);
    assert.match(errorLine(notModule), /is not a Nest module class/);
  });
});
