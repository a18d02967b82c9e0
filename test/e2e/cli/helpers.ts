import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REDIS_URL, uniqueName } from '../../utils.js';

/** The built CLI, as `npx docket` runs it. */
export const CLI = fileURLToPath(new URL('../../../../dist/cli/main.js', import.meta.url));
/** The repository root: children run there, so `--module` paths are relative to it. */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const FIXTURE = '.out/test/fixtures/cli-app.js';

/** The environment of a child: ours without anything that would steer the CLI. */
function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(DOCKET_(?!TEST_)|FORCE_COLOR$|NO_COLOR$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `docket …` child whose output is collected. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly child: ChildProcess;
  readonly exited: Promise<CliResult>;
  private waiters: (() => void)[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      this[stream] += chunk.toString();
      for (const wake of this.waiters.splice(0)) wake();
    };
    this.child.stdout!.on('data', collect('stdout'));
    this.child.stderr!.on('data', collect('stderr'));
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code, signal) => {
        for (const wake of this.waiters.splice(0)) wake();
        resolve({ code, signal, stdout: this.stdout, stderr: this.stderr });
      });
    });
  }

  /** Resolve when stdout matches `pattern`; fail if the child exits first or after `timeout`. */
  async waitForOutput(pattern: RegExp, timeout = 90_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeout;
    for (;;) {
      const match = pattern.exec(this.stdout);
      if (match) return match;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(
          `docket exited before printing ${pattern}:\n${this.stdout}\n${this.stderr}`,
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `docket did not print ${pattern} in ${timeout}ms:\n${this.stdout}\n${this.stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Kill the child if it still runs (after a failed test). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Run `docket …args` to its end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new CliProcess(args, env).exited;
}

/** Run `docket …args`, which must exit 0, and answer its stdout. */
export async function runOk(args: string[]): Promise<string> {
  const result = await runCli(args);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** `--url` and `--docket` of a fresh docket on the test Redis. */
export function target(name = uniqueName('cli')): string[] {
  return ['--url', REDIS_URL, '--docket', name];
}

/** The single line a failing command prints on stderr. */
export function errorLine(result: CliResult): string {
  const lines = result.stderr.trimEnd().split('\n');
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got:\n${result.stderr}`);
  return lines[0];
}
