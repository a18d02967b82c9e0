// Runs the test suite against a redis-server of its own on a free loopback port, so tests
// never touch a user's data. Usage: node test/run.mjs [filter…] (after `npm run build:test`).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = '.out/test';

/** The redis-server binary on the PATH, or null. */
function findRedis() {
  const which = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  return which.stdout.trim() || null;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'fixtures' ? [] : files(path);
    return name.endsWith('.test.js') ? [path] : [];
  });
}

async function startRedis(bin, port) {
  const child = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ping.stdout.trim() === 'PONG') return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not start on port ${port}`);
}

// A compiled test whose source is gone (moved or deleted since .out/ was built) is not run.
const hasSource = (file) => existsSync(file.replace(/^\.out\//, '').replace(/\.js$/, '.ts'));
const compiled = files(root);
const stale = compiled.filter((f) => !hasSource(f));
if (stale.length > 0) {
  console.log(`# not run: ${stale.length} compiled test(s) without a source: ${stale.join(', ')}`);
}
const filters = process.argv.slice(2);
const selected = compiled.filter(
  (f) => hasSource(f) && (filters.length === 0 || filters.some((x) => f.includes(x))),
);
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ') || '(all)'} under ${root}`);
  process.exit(1);
}

// Without a redis-server binary (a fresh machine), every test that can run in-process on
// memory:// still runs; the run says how many need a Redis server and how to get one.
const redisBin = findRedis();
let redis = null;
if (redisBin) {
  const port = await freePort();
  redis = await startRedis(redisBin, port);
  process.env.DOCKET_TEST_URL = `redis://127.0.0.1:${port}/0`;
  process.env.DOCKET_TEST_REDIS_PORT = String(port);
} else {
  process.env.DOCKET_TEST_NO_REDIS_SERVER = '1';
}

let passed = 0;
let failed = 0;
let skipped = 0;
let todo = 0;

/** Run `files` (node:test, in parallel processes) with the current environment. */
async function runFiles(files) {
  const stream = run({
    files,
    concurrency: Math.max(2, availableParallelism()),
    timeout: 120_000,
  });
  stream.on('test:pass', (data) => {
    if (data.details?.type === 'suite') return;
    if (data.skip || data.todo) skipped++;
    else passed++;
  });
  stream.on('test:fail', (data) => {
    if (data.details?.type === 'suite') return;
    // A failing `todo` test documents a known bug; like node's own runner, it does not fail the run.
    if (data.todo) todo++;
    else failed++;
  });
  stream.compose(spec).pipe(process.stdout, { end: false });
  await new Promise((resolve) => stream.on('end', resolve));
}

// The storage contract suite (contract/) and the e2e suite run on both backends: on this
// Redis, then again in-process on memory:// (DOCKET_TEST_BACKEND=memory, see test/utils.ts).
// Left out of the second pass: the command line (other processes cannot see a memory://
// docket), the tests of the memory:// backend itself (e2e/memory/) and the deployment tests of
// e2e/reliability/ (outages, Cluster, Sentinel, TLS, ACL, dead letters), which need a real
// Redis server. (A contract test that cannot run on memory:// skips itself there.)
const onBothBackends = (file) =>
  /^\.out\/test\/contract\/[^/]+\.test\.js$/.test(file) ||
  /^\.out\/test\/e2e\/((behaviours|observability|dashboard)\/)?[^/]+\.test\.js$/.test(file);
// Tests that need no Redis at all: the unit tests and the checks of the documentation.
const inProcess = (file) => /^\.out\/test\/(unit|docs)\//.test(file);
/** How many tests a compiled file declares (it( and test( calls), for the summary. */
const declaredTests = (file) =>
  (readFileSync(file, 'utf8').match(/(?<![\w.])(?:it|test)\(\s*['"`]/g) ?? []).length;
let notRun = [];
try {
  if (redis) {
    process.env.DOCKET_TEST_BACKEND = 'redis';
    await runFiles(selected);
  } else {
    const units = selected.filter(inProcess);
    if (units.length > 0) await runFiles(units);
    notRun = selected.filter((f) => !inProcess(f) && !onBothBackends(f));
  }
  const memoryFiles = selected.filter(onBothBackends);
  if (memoryFiles.length > 0) {
    console.log('\n# the contract and e2e suites again, on the memory:// backend\n');
    process.env.DOCKET_TEST_BACKEND = 'memory';
    await runFiles(memoryFiles);
  }
} catch (error) {
  // The summary below still prints; the run fails.
  console.error(error);
  failed++;
} finally {
  redis?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  if (!redis) {
    const onlyRedis = notRun.reduce((sum, f) => sum + declaredTests(f), 0);
    const both = selected.filter(onBothBackends);
    const redisPass = both.reduce((sum, f) => sum + declaredTests(f), 0);
    console.log(
      `\n# No redis-server on the PATH: ran the tests that run in-process on memory://.` +
        `\n# Not run: about ${onlyRedis + redisPass} tests need a Redis server (${onlyRedis} in ` +
        `${notRun.length} files that run only on Redis, ${redisPass} in the Redis pass of the ` +
        `${both.length} files run above on memory://), and the ${skipped} skipped above.` +
        `\n# Install one (Debian/Ubuntu: apt-get install -y redis-server; macOS: brew install redis)` +
        `\n# and run npm test again: it starts its own redis-server on a free port.`,
    );
  }
  console.log(
    `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${todo ? `, ${todo} todo (known bugs)` : ''}`,
  );
}
process.exit(failed > 0 || passed === 0 ? 1 : 0);
