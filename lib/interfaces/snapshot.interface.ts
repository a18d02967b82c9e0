/** A live worker, from the heartbeat registry. */
export interface WorkerInfo {
  name: string;
  lastSeen: Date;
  tasks: string[];
}

/** A task a worker holds. */
export interface RunningTask {
  key: string;
  taskName: string;
  args: unknown[] | string;
  when: Date;
  attempt: number;
  worker: string;
  startedAt: Date;
}

/** A task waiting: due in the future, or queued and not yet claimed. */
export interface FutureTask {
  key: string;
  taskName: string;
  args: unknown[] | string;
  when: Date;
  attempt: number;
}

/** What a docket holds at one moment. */
export interface DocketSnapshot {
  takenAt: Date;
  totalTasks: number;
  running: RunningTask[];
  future: FutureTask[];
  workers: WorkerInfo[];
}

/** A message that could not be run, or an execution that failed its last attempt. */
export interface DeadLetter {
  key: string;
  taskName: string;
  /** Decoded arguments, or the raw text when they could not be decoded. */
  args: unknown[] | string;
  error: string;
  attempt: number;
  deadAt: Date;
}
