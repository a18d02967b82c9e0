import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { REDIS_URL, uniqueName } from '../utils.js';

// SPEC §1: the ESM package loads from a CommonJS NestJS 11 application (Node ≥ 20.19 can
// require() ESM). The fixture has its own Nest 11, pinned by its lock file; the built package is
// copied into its node_modules (a symlink would resolve @nestjs/* from this repository's Nest).

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = join(root, 'test/fixtures/cjs-nest11');
const modules = join(fixture, 'node_modules');
const installed = join(modules, 'nestjs-docket');
const stamp = join(modules, '.fixture-lock.sha256');

interface PackageJson {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

function run(command: string, args: string[], cwd: string): void {
  const done = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 280_000 });
  assert.equal(
    done.status,
    0,
    `${command} ${args.join(' ')} failed:\n${done.stdout ?? ''}\n${done.stderr ?? done.error}`,
  );
}

function newest(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir).map((name) => {
      const path = join(dir, name);
      const stat = statSync(path);
      return stat.isDirectory() ? newest(path) : stat.mtimeMs;
    }),
  );
}

/** `npm run build` unless dist/ is there and newer than every file of lib/. */
function ensureBuilt(): void {
  const entry = join(root, 'dist/index.js');
  if (existsSync(entry) && statSync(entry).mtimeMs >= newest(join(root, 'lib'))) return;
  run('npm', ['run', 'build'], root);
}

/** `npm ci` in the fixture unless its node_modules was installed from the same lock file. */
function ensureFixtureInstalled(): void {
  const lock = createHash('sha256')
    .update(readFileSync(join(fixture, 'package-lock.json')))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return;
  run('npm', ['ci', '--prefix', fixture, '--no-audit', '--no-fund'], root);
  writeFileSync(stamp, lock);
}

function installPackage(): void {
  rmSync(installed, { recursive: true, force: true });
  mkdirSync(installed, { recursive: true });
  copyFileSync(join(root, 'package.json'), join(installed, 'package.json'));
  cpSync(join(root, 'dist'), join(installed, 'dist'), { recursive: true });
}

describe('CommonJS NestJS 11 application', () => {
  const pkg = readJson<PackageJson>(join(root, 'package.json'));

  before(
    () => {
      ensureBuilt();
      ensureFixtureInstalled();
      installPackage();
    },
    { timeout: 600_000 },
  );

  it('declares every runtime dependency of the package', () => {
    const fixtureDeps = readJson<PackageJson>(join(fixture, 'package.json')).dependencies ?? {};
    const needed = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter(
        (name) => !pkg.peerDependenciesMeta?.[name]?.optional,
      ),
    ];
    const missing = needed.filter((name) => !(name in fixtureDeps));
    assert.deepEqual(
      missing,
      [],
      `add ${missing.join(', ')} to test/fixtures/cjs-nest11/package.json, then run ` +
        `npm install --package-lock-only there`,
    );
  });

  it('require()s the package, runs a task and prints its result', { timeout: 90_000 }, async () => {
    assert.equal(lstatSync(installed).isSymbolicLink(), false);
    const name = uniqueName('cjs');
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(process.execPath, ['app.js'], {
        cwd: fixture,
        env: { ...process.env, DOCKET_TEST_URL: REDIS_URL, DOCKET_NAME: name },
        timeout: 60_000,
      }));
    } catch (error) {
      const e = error as Error & { stdout?: string; stderr?: string };
      assert.fail(`node app.js failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
    const last = stdout.trim().split('\n').pop() ?? '';
    const report = JSON.parse(last) as {
      result: { greeting: string; key: string; attempt: number };
      resultAtIsDate: boolean;
      state: string;
      taskName: string;
      nestCore: string;
      nestCommon: string;
      docket: string;
      requireModule: boolean;
    };
    assert.match(report.nestCore, /^11\./, 'the fixture must run on NestJS 11');
    assert.match(report.nestCommon, /^11\./, 'the fixture must run on NestJS 11');
    assert.equal(report.docket, pkg.version);
    assert.equal(report.requireModule, true);
    assert.equal(report.state, 'completed');
    assert.equal(report.taskName, 'greet');
    assert.equal(report.result.greeting, 'Hello, CommonJS!!');
    assert.equal(report.result.attempt, 1);
    assert.equal(typeof report.result.key, 'string');
    assert.equal(report.resultAtIsDate, true);
  });
});
