import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// `npm test` on a machine without a redis-server binary runs what runs on memory://, says how
// many tests need a Redis server and how to install one, and still exits 0.

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** A PATH with node and sh only: no redis-server. */
function pathWithoutRedis(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'docket-no-redis-'));
  symlinkSync(process.execPath, join(dir, 'node'));
  symlinkSync('/bin/sh', join(dir, 'sh'));
  return { dir, path: dir };
}

function runner(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/run.mjs', ...args], { cwd: root, env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

describe('the test runner without redis-server', { timeout: 120_000 }, () => {
  it('runs the memory:// tests, names what needs a Redis server, and exits 0', async (t) => {
    const { dir, path } = pathWithoutRedis();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: path };
    delete env.DOCKET_TEST_BACKEND;
    delete env.DOCKET_TEST_URL;
    delete env.NODE_TEST_CONTEXT; // a run of its own, not a child of this one
    // a unit test, a test that runs on both backends, and one that runs only on Redis
    const { code, out } = await runner(
      ['unit/message.test', 'e2e/add.test', 'reliability/poison.test'],
      env,
    );
    assert.equal(code, 0, out);
    assert.match(out, /No redis-server on the PATH/);
    assert.match(out, /Not run: about \d+ tests need a Redis server \(\d+ in 1 files/);
    assert.match(out, /apt-get install -y redis-server/);
    const summary = /^(\d+) passed, (\d+) failed/m.exec(out);
    assert.ok(summary, out);
    assert.ok(Number(summary[1]) > 0, 'some tests ran');
    assert.equal(summary[2], '0');
  });
});
