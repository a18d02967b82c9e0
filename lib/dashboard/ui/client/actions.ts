import type { PausedView } from '../../dashboard-views.interface.js';
import { act } from './api.js';
import { h, toast } from './dom.js';

/** Whether the page offers no action (read-only, or actions refused without a guard). */
export const READ_ONLY = document.body.dataset.readonly === 'true';

/** The cell of a row's actions: empty on a read-only page. */
export function actionCell(...buttons: HTMLElement[]): HTMLTableCellElement {
  return h('td', { class: 'act' }, ...(READ_ONLY ? [] : buttons));
}

/** An action button; `data-action` and `data-key` name it for tests and scripts. */
export function button(
  label: string,
  action: string,
  key: string,
  handler: () => unknown,
  danger = false,
): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: danger ? 'danger' : null,
      'data-action': action,
      'data-key': key,
      onclick: handler,
    },
    label,
  );
}

export async function cancel(key: string): Promise<void> {
  const data = await act<{ state: string | null }>('cancel', { key }, `Cancel task ${key}?`);
  if (data) toast(`Task ${key} is ${data.state ?? 'gone'}`);
}

/** Pause (on) or resume the docket (no task) or one task; only a pause asks first. */
export async function setPaused(task: string | null, on: boolean): Promise<void> {
  const what = task ? `task ${task}` : 'the docket';
  const question = on
    ? `Pause ${what}? ${task ? 'None of its tasks starts' : 'No task starts'}` +
      ' on any worker until it is resumed; running ones finish, the others wait.'
    : null;
  const done = await act<{ paused: PausedView }>(
    on ? 'pause' : 'resume',
    task ? { task } : {},
    question,
  );
  if (done) toast(`${on ? 'Paused' : 'Resumed'} ${what}`);
}

/** Retry a dead letter, or every one. */
export async function retry(target: { key: string } | { all: true }): Promise<void> {
  const question = 'all' in target ? 'Retry every dead letter?' : null;
  const done = await act<{ retried: number }>('retry', target, question);
  if (done) toast(`Retried ${done.retried} task(s)`);
}
