import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { before, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where the fixture projects are set up and tarballs made: outside this repository, so that
 * nothing there resolves from the repository's own node_modules. One folder per checkout.
 */
export const CACHE = join(
  tmpdir(),
  `nestjs-docket-fixtures-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}`,
);

/**
 * How long the setup of a packaging test file (its before hook: packing, installing) may take.
 * test/run.mjs gives a test file 120 s in all. The setup's commands share this budget, each
 * getting what is left of it less a moment to report, so that a slow one is killed and reported
 * with its output rather than the hook timing out around it.
 */
export const SETUP_TIMEOUT = 110_000;

/** A setup's budget, starting now: each call gives the time left for the next command. */
export type Budget = () => number;

/** The budget of a setup that starts now (SETUP_TIMEOUT, less 5 s to report a killed command). */
export function setupBudget(): Budget {
  const end = Date.now() + SETUP_TIMEOUT - 5_000;
  // whole seconds, for the message of a killed command
  return () => Math.max(1_000, Math.floor((end - Date.now()) / 1_000) * 1_000);
}

/** How a command ended and what it printed (stdout and stderr, interleaved). */
export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
}

/**
 * The environment of a command run for a fixture project: ours (npm's settings included: the
 * registry, a proxy, a CA file), less what describes an `npm test` around us (its package, its
 * lifecycle event), node's test runner's marker (a child `node --test` would report to us
 * instead of printing) and DOCKET_* settings other than the test run's Redis URL.
 */
function fixtureEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(name)) continue;
    if (name === 'NODE_TEST_CONTEXT') continue;
    if (name.startsWith('DOCKET_') && name !== 'DOCKET_TEST_URL') continue;
    env[name] = value;
  }
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', NO_COLOR: '1' };
}

/** Run `command` in `cwd`; on timeout its whole process group is killed. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  timeout: number,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: fixtureEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, output });
    });
  });
}

const NETWORK =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT)\b|network request|request to \S+ failed/i;

/** Run `command` and fail the test with its output unless it exits 0; returns the output. */
export async function mustRun(
  command: string,
  args: string[],
  cwd: string,
  timeout: number,
): Promise<string> {
  const line = `${command} ${args.join(' ')}`;
  const result = await run(command, args, cwd, timeout);
  if (result.code === 0) return result.output;
  const tail = result.output.split('\n').slice(-60).join('\n');
  if (command === 'npm' && ['ci', 'install'].includes(args[0]!) && NETWORK.test(result.output)) {
    assert.fail(
      `npm could not reach the package registry (${line} in ${cwd}). The packaging tests ` +
        `install the locked dependencies of their fixture projects from it; check the network ` +
        `and npm's registry setting.\n${tail}`,
    );
  }
  const how = result.timedOut
    ? `did not finish within ${timeout / 1000} s (killed)`
    : `exited with ${result.code ?? result.signal}`;
  assert.fail(`${line} (in ${cwd}) ${how}:\n${tail}`);
}

/** The files of the working tree that a clone has: git's tracked and not-ignored files. */
function cloneFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(git.status, 0, `git ls-files failed: ${git.stderr ?? git.error}`);
  return git.stdout
    .split('\0')
    .filter((file) => file && existsSync(join(ROOT, file)) && lstatSync(join(ROOT, file)).isFile());
}

/** The one tarball `npm pack` made in `dest`. */
function tarballIn(dest: string): string {
  const tarballs = readdirSync(dest).filter((name) => name.endsWith('.tgz'));
  assert.equal(tarballs.length, 1, `npm pack made ${tarballs.join(', ') || 'no tarball'}`);
  return join(dest, tarballs[0]!);
}

/** `dir`, created empty (emptied if it was there). */
export function freshDir(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * `npm pack` in a copy of the working tree as a fresh clone has it (nothing built: no dist/, no
 * generated sources), with this repository's node_modules linked in for the build. npm runs the
 * package's prepack, so the tarball shows what a clone packs. Returns the tarball's path.
 */
export async function packClone(work: string, budget: Budget): Promise<string> {
  const clone = freshDir(join(work, 'clone'));
  for (const file of cloneFiles()) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(ROOT, file), join(clone, file));
  }
  assert.equal(existsSync(join(clone, 'dist')), false, 'the clone has a dist/');
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const dest = freshDir(join(work, 'pack'));
  await mustRun('npm', ['pack', '--pack-destination', dest], clone, budget());
  return tarballIn(dest);
}

/** The newest modification time of the files under `dir`. */
function newest(dir: string): number {
  return Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    }),
  );
}

/**
 * `npm pack` of this repository's build, into `dest`. Its prepack is skipped: `npm test` has
 * just built dist/, and building again would change dist/ under the command-line tests running
 * beside this one (tarball.test.ts packs a fresh clone with its prepack).
 */
export async function packBuild(dest: string, budget: Budget): Promise<string> {
  const built = join(ROOT, 'dist/index.mjs');
  assert.ok(
    existsSync(built) && statSync(built).mtimeMs >= newest(join(ROOT, 'lib')),
    'dist/ is missing or older than lib/: run `npm run build` first (`npm test` does)',
  );
  await mustRun('npm', ['pack', '--ignore-scripts', '--pack-destination', dest], ROOT, budget());
  return tarballIn(dest);
}

/**
 * A fixture project of test/fixtures/, set up in CACHE: a fresh project with its own
 * node_modules. Its locked dependencies are installed with `npm ci` once per lock file; the next
 * runs only refresh its sources.
 */
export class FixtureProject {
  /** The project's folder. */
  readonly dir: string;
  /** A folder of this fixture's own for the tarball, emptied by `prepare()`. */
  readonly work: string;
  private readonly source: string;

  constructor(readonly name: string) {
    this.source = join(ROOT, 'test/fixtures', name);
    this.dir = join(CACHE, name);
    this.work = join(CACHE, `${name}.work`);
  }

  /** Copy the sources in and install the locked dependencies; true when `npm ci` ran. */
  async prepare(budget: Budget): Promise<boolean> {
    freshDir(this.work);
    mkdirSync(this.dir, { recursive: true });
    for (const entry of readdirSync(this.dir)) {
      if (entry !== 'node_modules') rmSync(join(this.dir, entry), { recursive: true, force: true });
    }
    cpSync(this.source, this.dir, {
      recursive: true,
      filter: (path) => !path.split(/[\\/]/).includes('node_modules'),
    });
    const lock = createHash('sha256')
      .update(readFileSync(join(this.dir, 'package-lock.json')))
      .digest('hex');
    const stamp = join(this.dir, 'node_modules', '.fixture-lock.sha256');
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return false;
    await mustRun('npm', ['ci', '--prefer-offline'], this.dir, budget());
    writeFileSync(stamp, lock);
    return true;
  }

  /** Install the packed package as a user would (not saved to package.json). */
  async install(tarball: string, budget: Budget): Promise<void> {
    const args = ['install', '--no-save', '--prefer-offline', tarball];
    await mustRun('npm', args, this.dir, budget());
  }

  /** The version of a package installed in the project. */
  version(pkg: string): string {
    const file = join(this.dir, 'node_modules', pkg, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
}

/**
 * The fixture project `name` (test/fixtures/<name>), set up before the tests of this file: its
 * locked dependencies and this repository's build, packed and installed as a user would.
 */
export function useFixtureProject(name: string): FixtureProject {
  const project = new FixtureProject(name);
  before(
    async () => {
      const budget = setupBudget();
      const [tarball] = await Promise.all([
        packBuild(project.work, budget),
        project.prepare(budget),
      ]);
      await project.install(tarball, budget);
    },
    { timeout: SETUP_TIMEOUT },
  );
  return project;
}

/** The test that the installed package's bin runs with npx: --help, and the version. */
export function itRunsTheBin(project: FixtureProject): void {
  it('runs the bin: npx docket --help, npx docket version', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    const [help, version] = await Promise.all([
      mustRun('npx', ['--no', '--', 'docket', '--help'], project.dir, 60_000),
      mustRun('npx', ['--no', '--', 'docket', 'version'], project.dir, 60_000),
    ]);
    assert.match(help, /Usage: docket/);
    assert.equal(version.trim().split('\n').pop(), pkg.version);
  });
}
