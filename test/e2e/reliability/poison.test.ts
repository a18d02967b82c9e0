import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PoisonMessageError, type Execution } from '../../../lib/index.js';
import { REDIS_ONLY, REDIS_URL, uniqueName, useDocket } from '../../utils.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/poison-worker.js', import.meta.url));

/**
 * Worker processes as a supervisor (Kubernetes, systemd) runs them: one that exits is started
 * again under a new name, and one whose task hangs is killed, as a liveness probe would.
 */
class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  /** What the workers started, `<task>:<arg>`, in order. */
  readonly starts: string[] = [];
  /** The tasks each worker said it started. */
  private readonly startedBy = new Map<string, Set<string>>();
  private count = 0;
  private stopped = false;

  constructor(private readonly docket: string) {}

  async start(): Promise<void> {
    const worker = `pw-${++this.count}`;
    const child = spawn(process.execPath, [FIXTURE, this.docket, REDIS_URL, worker], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.children.set(worker, child);
    child.once('exit', () => {
      this.children.delete(worker);
      if (!this.stopped) void this.start();
    });
    let buffered = '';
    await new Promise<void>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          if (line === 'ready') resolve();
          else if (line.startsWith('start ')) {
            this.starts.push(line.slice(6));
            const seen = this.startedBy.get(worker) ?? new Set<string>();
            seen.add(line.slice(6));
            this.startedBy.set(worker, seen);
          }
        }
      });
      child.once('exit', () => resolve());
    });
  }

  /** Whether `worker` said that it started `task` (its handler runs). */
  started(worker: string, task: string): boolean {
    return this.startedBy.get(worker)?.has(task) ?? false;
  }

  /** SIGKILL the process of `worker` (its liveness probe failed). */
  kill(worker: string): void {
    this.children.get(worker)?.kill('SIGKILL');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const exits = [...this.children.values()].map(
      (child) => new Promise((resolve) => child.once('exit', resolve)),
    );
    for (const child of this.children.values()) child.kill('SIGKILL');
    await Promise.all(exits);
  }
}

describe('poison tasks', { skip: REDIS_ONLY, timeout: 120_000 }, () => {
  it('are quarantined after maxRedeliveries + 1 starts, and the innocent tasks of their workers complete', async (t) => {
    const name = uniqueName('poison');
    const supervisor = new Supervisor(name);
    t.after(() => supervisor.stop());
    const producer = await useDocket(t, [], { name, worker: false });
    await Promise.all([supervisor.start(), supervisor.start()]);

    const exit = await producer.client.add('exit', { key: 'exit' })();
    const spin = await producer.client.add('spin', { key: 'spin' })();
    const innocents = await producer.client.addMany(
      'innocent',
      Array.from({ length: 20 }, (_, n) => [n]),
    );

    // the liveness probe: a task running for more than 1.5 s means its worker is stuck
    const probe = setInterval(() => {
      void producer.client.getExecution('spin').then((execution) => {
        if (execution?.state !== 'running' || !execution.worker || !execution.startedAt) return;
        // a slow machine may claim long before the handler runs: the probe waits for the handler
        if (!supervisor.started(execution.worker, 'spin')) return;
        if (Date.now() - execution.startedAt.getTime() > 1_500) supervisor.kill(execution.worker);
      });
    }, 200);
    t.after(() => clearInterval(probe));

    const ended = async (execution: Execution) => {
      try {
        return { value: await execution.result({ timeout: 90_000 }) };
      } catch (error) {
        return { error: error as Error };
      }
    };
    const [exitEnd, spinEnd, ...innocentEnds] = await Promise.all(
      [exit, spin, ...innocents].map(ended),
    );
    clearInterval(probe);

    for (const end of [exitEnd, spinEnd]) {
      assert.ok(end.error instanceof PoisonMessageError, `not quarantined: ${String(end.error)}`);
      assert.match(end.error.message, /^started 4 times, its worker never finished it$/);
    }
    assert.deepEqual(
      innocentEnds.map((end) => end.value),
      Array.from({ length: 20 }, (_, n) => n),
      'every innocent task completed',
    );
    // Redis counted maxRedeliveries + 1 starts of each (the error says so). The handlers may
    // have printed one fewer: when the first worker reads both poisons in one batch and claims
    // them together, the one whose handler runs first (a busy loop, or an exit) keeps the other
    // from ever printing — a start the engine counts, as it cannot tell. Redelivered messages
    // run alone, so this can happen once at most.
    const { starts } = supervisor;
    for (const task of ['exit', 'spin']) {
      const printed = starts.filter((s) => s === task).length;
      assert.ok(
        printed === 3 || printed === 4,
        `${task} started maxRedeliveries + 1 times (printed ${printed})`,
      );
    }
    const letters = await producer.client.deadLetters();
    assert.deepEqual(letters.map((letter) => [letter.key, letter.error]).sort(), [
      ['exit', 'PoisonMessageError: started 4 times, its worker never finished it'],
      ['spin', 'PoisonMessageError: started 4 times, its worker never finished it'],
    ]);
  });
});
