import type { DeadLetterEntry } from '../public-api.js';
import { isoOrNull } from '../util/dates.js';
import type { DeadLetterView } from './dashboard-views.interface.js';
import { previewArgs } from './preview.js';

/** Arguments as the lists show them: a short preview, or null when `showArguments` is off. */
export function argsView(show: boolean, args: unknown[] | string): string | null {
  return show ? previewArgs(args) : null;
}

/** A live task as the lists of waiting tasks show it (`api/scheduled`, `api/tasks`). */
export function waitingView<S extends string>(
  task: {
    key: string;
    taskName: string;
    args: unknown[] | string;
    attempt: number;
    when: Date;
    state: S;
    paused?: boolean;
    waitingFor?: string[];
  },
  show: boolean,
): {
  key: string;
  taskName: string;
  args: string | null;
  attempt: number;
  when: string | null;
  state: S;
  paused: boolean;
  waitingFor: string[] | null;
} {
  return {
    key: task.key,
    taskName: task.taskName,
    args: argsView(show, task.args),
    attempt: task.attempt,
    when: isoOrNull(task.when),
    state: task.state,
    paused: task.paused === true,
    waitingFor: task.waitingFor ?? null,
  };
}

/** A dead letter as the lists show it (`api/failures`, `api/dead-letters`). */
export function deadLetterView(letter: DeadLetterEntry, show: boolean): DeadLetterView {
  return {
    id: letter.id,
    key: letter.key,
    taskName: letter.taskName,
    args: argsView(show, letter.args),
    error: letter.error,
    attempt: letter.attempt,
    deadAt: isoOrNull(letter.deadAt),
  };
}
