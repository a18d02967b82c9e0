import type { TaskTimeout } from '../interfaces/task-context.interface.js';

/** The deadline of a running task, movable by `ctx.timeout.extend()`. */
export class Deadline implements TaskTimeout {
  private at: number;

  constructor(
    private readonly timeout: number | undefined,
    private readonly onChange: () => void,
  ) {
    this.at = timeout === undefined ? Infinity : Date.now() + timeout;
  }

  get time(): number {
    return this.at;
  }

  remaining(): number {
    return Math.max(0, this.at - Date.now());
  }

  extend(ms?: number): void {
    if (this.timeout === undefined && ms === undefined) return;
    this.at = Math.max(this.at, Date.now()) + (ms ?? this.timeout ?? 0);
    this.onChange();
  }
}
