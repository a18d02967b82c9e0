/** A state of a live execution, as `DocketInspector.tasks()` lists them. */
export type LiveState = 'running' | 'queued' | 'scheduled';

/** Which live executions `DocketInspector.tasks()` lists, and which page of them. */
export interface TaskListOptions {
  /** The states listed. @default ['running', 'queued', 'scheduled'] */
  states?: LiveState[];
  /** Only the executions of this task (its exact name). */
  task?: string;
  /**
   * Only the executions whose key starts with this text, or whose task name or arguments (as
   * stored: JSON) contain it; case aside.
   */
  search?: string;
  /** How many to skip. @default 0 */
  offset?: number;
  /** The most listed, 1 to 1 000. @default 50 */
  limit?: number;
}

/** A live execution in a list. */
export interface ListedTask {
  key: string;
  taskName: string;
  /** Decoded arguments, or the raw text when they could not be decoded. */
  args: unknown[] | string;
  when: Date;
  attempt: number;
  state: LiveState;
  /** Running: the worker that runs it. */
  worker?: string;
  /** Running: when it started. */
  startedAt?: Date;
  /** Queued while its task or the docket is paused: it does not start until `resume`. */
  paused?: boolean;
  /** Scheduled and waiting for its dependencies: the keys (of its `after`) still open. */
  waitingFor?: string[];
}

/** One page of the live executions that pass a filter, and how many pass it in all. */
export interface TaskList {
  total: number;
  offset: number;
  tasks: ListedTask[];
}

/** How an execution in the history ended. */
export type FinishedState = 'completed' | 'failed' | 'cancelled';

/** Which finished executions `DocketInspector.history()` lists, and which page of them. */
export interface TaskHistoryOptions {
  /** The states listed. @default ['completed', 'failed', 'cancelled'] */
  states?: FinishedState[];
  /** Only the executions of this task (its exact name). */
  task?: string;
  /**
   * Only the executions whose key starts with this text, or whose task name, arguments (as
   * stored: JSON) or error contain it; case aside.
   */
  search?: string;
  /** Whether `search` looks into the arguments. @default true */
  searchArguments?: boolean;
  /** How many to skip. @default 0 */
  offset?: number;
  /** The most listed, 1 to 1 000. @default 50 */
  limit?: number;
}

/** A finished execution in the history. */
export interface FinishedTask {
  key: string;
  taskName: string;
  /** Decoded arguments, or the raw text when they could not be decoded. */
  args: unknown[] | string;
  when: Date;
  attempt: number;
  state: FinishedState;
  worker?: string;
  startedAt?: Date;
  completedAt: Date;
  /** `"<Name>: <message>"` of a failed execution. */
  error?: string;
}

/** One page of the history, newest end first, and how many pass the filter in all. */
export interface TaskHistory {
  total: number;
  offset: number;
  tasks: FinishedTask[];
}
