import type {
  AttemptView,
  TaskDetailView,
  TimelineEntry,
} from '../../dashboard-views.interface.js';
import { ApiError, act, get } from './api.js';
import { button, cancel } from './actions.js';
import { $, bar, h, span, time, toast } from './dom.js';
import { renderExplanation } from './explain.js';

/**
 * The detail page of one execution (`<mount>/tasks/<key>`): what the docket keeps of it, why
 * it is where it is, and the actions its state allows. Read again on every refresh.
 */

const KEY = document.body.dataset.key ?? '';
let shown = '';

async function runNow(key: string): Promise<void> {
  const done = await act<{ state: string }>('run-now', { key }, `Run task ${key} now?`);
  if (done) toast(`Task ${key} is ${done.state}`);
}

async function replaceAt(key: string, when: string | null): Promise<void> {
  const given = window.prompt(
    `Run task ${key} at (ISO 8601, e.g. 2030-01-31T09:00:00Z):`,
    when ?? new Date().toISOString(),
  );
  if (given === null) return;
  const done = await act<{ state: string; when: string }>('replace-at', { key, at: given });
  if (done) toast(`Task ${key} is ${done.state}, due ${done.when}`);
}

async function retryTask(key: string): Promise<void> {
  const done = await act<{ retried: number }>('retry-task', { key }, `Run task ${key} again?`);
  if (done) toast(`Retried task ${key}`);
}

function fact(label: string, ...value: (Node | string | null)[]): HTMLElement {
  return h('div', null, h('dt', null, label), h('dd', null, ...value));
}

function panel(title: string, id: string, ...children: (Node | null)[]): HTMLElement {
  return h('div', { class: 'panel', id }, h('h2', null, title), ...children);
}

/** A stack, folded under its first line (the error itself is shown above it). */
function stack(text: string | null, open = false): HTMLElement | null {
  if (!text) return null;
  const details = h(
    'details',
    { class: 'stack' },
    h('summary', null, 'stack'),
    h('pre', { class: 'error' }, text),
  );
  details.open = open;
  return details;
}

/** The clock time of an ISO date with its milliseconds (the day on hover). */
function clock(iso: string | null): HTMLElement {
  if (!iso) return h('span', null, '—');
  const date = new Date(iso);
  const text = `${date.toLocaleTimeString(undefined, { hour12: false })}.${String(date.getMilliseconds()).padStart(3, '0')}`;
  return h('time', { datetime: iso, title: date.toLocaleString(), class: 'mono' }, text);
}

function attemptsPanel(attempts: AttemptView[]): HTMLElement | null {
  if (attempts.length === 0) return null;
  return panel(
    'Earlier attempts',
    'task-attempts',
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ...['#', 'Outcome', 'Worker', 'Started', 'Ended', 'Error'].map((c) => h('th', null, c)),
        ),
      ),
      h(
        'tbody',
        null,
        ...attempts.map((a) =>
          h(
            'tr',
            { class: 'attempt' },
            h('td', null, String(a.attempt)),
            h('td', null, h('span', { class: `pill ${a.outcome}` }, a.outcome)),
            h('td', { class: 'mono' }, a.worker ?? '—'),
            h('td', null, clock(a.startedAt)),
            h('td', null, clock(a.endedAt)),
            h(
              'td',
              { class: 'error' },
              a.outcome === 'lost' ? 'its worker went silent' : (a.error ?? ''),
              a.retryAt ? h('div', { class: 'hint' }, 'retry due ', clock(a.retryAt)) : null,
              stack(a.errorStack),
            ),
          ),
        ),
      ),
    ),
  );
}

const WHAT: Record<TimelineEntry['what'], string> = {
  added: 'added',
  due: 'due',
  started: 'started',
  failed: 'failed',
  lost: 'lost',
  completed: 'completed',
  cancelled: 'cancelled',
};

function timelinePanel(timeline: TimelineEntry[]): HTMLElement {
  return panel(
    'Timeline',
    'task-timeline',
    h(
      'ol',
      { class: 'timeline' },
      ...timeline.map((e) =>
        h(
          'li',
          { class: `step ${e.what}` },
          clock(e.at),
          h('span', { class: `pill ${e.what}` }, WHAT[e.what]),
          e.attempt === null ? null : h('span', { class: 'hint' }, `attempt ${e.attempt}`),
          e.detail ? h('span', { class: e.what === 'failed' ? 'error' : 'mono' }, e.detail) : null,
        ),
      ),
    ),
    h(
      'p',
      { class: 'hint' },
      'The time of an add is known from a default (UUIDv7) key only; a key of your own shows the times from its due time on.',
    ),
  );
}

function render(t: TaskDetailView): HTMLElement[] {
  const duration =
    t.startedAt && t.completedAt ? span(Date.parse(t.completedAt) - Date.parse(t.startedAt)) : null;
  const actions = [
    t.actions.runNow ? button('Run now', 'run-now', t.key, () => runNow(t.key)) : null,
    t.actions.replaceAt
      ? button('Run at…', 'replace-at', t.key, () => replaceAt(t.key, t.when))
      : null,
    t.actions.retry ? button('Retry', 'retry-task', t.key, () => retryTask(t.key)) : null,
    t.actions.cancel ? button('Cancel', 'cancel', t.key, () => cancel(t.key), true) : null,
  ].filter((b): b is HTMLButtonElement => b !== null);
  const why = {
    panel: h('p', { class: 'why-line' }),
    reason: h('span', { class: 'pill' }),
    detail: h('span'),
    times: h('p', { class: 'hint' }),
  };
  why.panel.append(why.reason, ' ', why.detail);
  renderExplanation(why, t.explanation);
  const running = t.state === 'running' || t.progress.current !== null;
  const waiting = t.state === 'scheduled' || t.state === 'queued';
  return [
    h(
      'div',
      { class: 'panel', id: 'task-summary' },
      h(
        'h2',
        null,
        h('strong', { id: 'task-name' }, t.taskName),
        h('span', { class: 'mono', id: 'task-key' }, t.key),
        h('span', { class: `pill ${t.state}`, id: 'task-state' }, t.state),
        t.paused && (t.state === 'queued' || t.state === 'scheduled')
          ? h('span', { class: 'pill paused' }, 'paused')
          : null,
        h('span', { class: 'task-actions' }, ...actions),
      ),
      h(
        'dl',
        { class: 'facts' },
        fact('Attempt', String(t.attempt)),
        waiting ? fact('Due', time(t.when, 'until')) : fact('Was due', time(t.when)),
        fact('Worker', t.worker ? h('span', { class: 'mono' }, t.worker) : '—'),
        fact('Started', t.startedAt ? time(t.startedAt) : '—'),
        fact('Finished', t.completedAt ? time(t.completedAt) : '—'),
        fact('Took', duration ?? '—'),
      ),
      running ? h('div', { id: 'task-progress' }, bar(t.progress)) : null,
    ),
    panel('Why it is where it is', 'task-why', why.panel, why.times),
    panel(
      'Arguments',
      'task-args',
      t.args === null
        ? h('p', { class: 'hint' }, 'hidden: the dashboard has showArguments off')
        : t.args.length === 0
          ? h('p', { class: 'hint' }, 'none')
          : h(
              'ol',
              { class: 'values' },
              ...t.args.map((text, i) =>
                h('li', null, h('span', { class: 'hint' }, `#${i}`), h('pre', null, text)),
              ),
            ),
    ),
    t.state === 'completed'
      ? panel(
          'Result',
          'task-result',
          h('pre', null, t.result ?? (t.args === null ? 'hidden' : 'undefined')),
        )
      : null,
    t.error !== null || t.deadLetter !== null
      ? panel(
          'Error',
          'task-error',
          h('pre', { class: 'error' }, t.error ?? t.deadLetter?.error ?? ''),
          // the stack of the error shown: the record's, or (without one) its dead letter's
          stack(t.error !== null ? t.errorStack : (t.deadLetter?.errorStack ?? null), true),
          t.deadLetter
            ? h(
                'p',
                { class: 'hint' },
                `dead letter after ${t.deadLetter.attempt} attempt(s), `,
                time(t.deadLetter.deadAt),
              )
            : null,
        )
      : null,
    attemptsPanel(t.attempts),
    timelinePanel(t.timeline),
  ].filter((node): node is HTMLElement => node !== null);
}

/** Read the execution and render it (again only when it changed). */
export async function loadDetail(): Promise<void> {
  const target = $('#task-detail');
  let data: TaskDetailView;
  try {
    data = await get<TaskDetailView>(`task?key=${encodeURIComponent(KEY)}`);
  } catch (error) {
    const message = (error as Error).message;
    if (shown !== message) {
      shown = message;
      target.replaceChildren(
        h('div', { class: 'panel', id: 'task-missing' }, h('h2', null, KEY), h('p', null, message)),
      );
    }
    if (error instanceof ApiError && error.status === 404) return;
    throw error;
  }
  document.title = `${data.taskName} ${data.key} · Docket`;
  const signature = JSON.stringify(data);
  if (signature === shown) return;
  shown = signature;
  target.replaceChildren(...render(data));
}
