import type { PerpetualIntent } from '../behaviours/perpetual.js';
import type { TaskDefinition } from '../explorer/task-definition.js';
import type { AdmissionRule } from '../store/admission.js';
import type { TaskMessage } from './message.js';

/** A task this worker holds, from its claim to its recorded end. */
export class RunningTask {
  /** Made when first asked for: most tasks (no context, no timeout) never need one. */
  private aborter: AbortController | undefined;
  /** Told when shutdown gives up on it (a batch aborts its own signal then). */
  onAbandon: ((reason: unknown) => void) | undefined;
  /** `cancel(key)` reached this worker while the task ran. */
  cancelRequested = false;
  /** Shutdown gave up on it: its end is not recorded, redelivery takes over. */
  abandoned = false;
  readonly perpetual: PerpetualIntent = { cancelled: false };

  constructor(
    readonly message: TaskMessage,
    /** The task that runs it: its own, or the fallback task. */
    readonly definition: TaskDefinition,
    readonly startedAt: number,
    /** The admission rules it was claimed with. */
    readonly admission: readonly AdmissionRule[],
  ) {}

  /** Its abort: the signal a handler's context holds; aborted by a cancel, a timeout, a shutdown. */
  get controller(): AbortController {
    return (this.aborter ??= new AbortController());
  }
}

/** The tasks a worker holds, by message id and by key. */
export class RunningTasks {
  private readonly byId = new Map<string, RunningTask>();
  private readonly byKey = new Map<string, RunningTask>();

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  add(task: RunningTask): void {
    this.byId.set(task.message.id, task);
    this.byKey.set(task.message.key, task);
  }

  remove(task: RunningTask): void {
    this.byId.delete(task.message.id);
    if (this.byKey.get(task.message.key) === task) this.byKey.delete(task.message.key);
  }

  ofKey(key: string): RunningTask | undefined {
    return this.byKey.get(key);
  }

  /** The tasks whose leases still count (not abandoned). */
  held(): RunningTask[] {
    return [...this.byId.values()].filter((task) => !task.abandoned);
  }

  /** Give up on every task: abort it with `reason`; its message is left to redelivery. */
  abandonAll(reason: Error): number {
    const count = this.byId.size;
    for (const task of this.byId.values()) {
      task.abandoned = true;
      task.controller.abort(reason);
      task.onAbandon?.(reason);
    }
    this.byId.clear();
    this.byKey.clear();
    return count;
  }

  /** Abort the task of `key` because it was cancelled; false when this worker does not run it. */
  cancel(key: string, reason: Error): boolean {
    const task = this.byKey.get(key);
    if (!task || task.cancelRequested) return false;
    task.cancelRequested = true;
    task.controller.abort(reason);
    return true;
  }
}
