import type {
  DeadLetterView,
  FailureView,
  FinishedRowView,
  PageView,
  RunningView,
  TaskRowView,
  StrikeView,
  TaskView,
  WorkerView,
} from '../../dashboard-views.interface.js';
import { act } from './api.js';
import { READ_ONLY, actionCell, button, cancel, retry, setPaused } from './actions.js';
import { $, argsCell, bar, fill, h, keyCell, keyLink, mono, span, time, toast } from './dom.js';
import type { Selection } from './bulk.js';
import { afterListDrawn, explain, explainedRow } from './explain.js';

/** The tables of the views: each renders the API's answer into its rows. */

const table = (selector: string) => $<HTMLTableElement>(selector);

export function renderRunning(items: RunningView[]): void {
  fill(
    table('#running'),
    items,
    (t) => t.key,
    (t, previous) =>
      h(
        'tr',
        null,
        h(
          'td',
          null,
          h('strong', null, t.taskName),
          t.attempt > 1 ? h('div', { class: 'bar-label' }, `attempt ${t.attempt}`) : null,
        ),
        keyCell(t.key),
        argsCell(t.args),
        mono(t.worker),
        h('td', null, time(t.startedAt)),
        h('td', null, bar(t.progress, previous?.querySelector('.progress'))),
        actionCell(button('Cancel', 'cancel', t.key, () => cancel(t.key), true)),
      ),
  );
}

export function renderScheduled(
  data: PageView<TaskRowView>,
  picks: Selection,
): Promise<void> | null {
  const before = explainedRow();
  fill(
    table('#scheduled'),
    data.items,
    (t) => t.key,
    (t) =>
      h(
        'tr',
        null,
        picks.cell(t.key),
        h('td', null, t.state === 'running' ? time(t.startedAt) : time(t.when, 'until')),
        h('td', null, h('strong', null, t.taskName)),
        keyCell(t.key),
        argsCell(t.args),
        h(
          'td',
          null,
          h('span', { class: `pill ${t.state}` }, t.state),
          t.paused
            ? h(
                'span',
                { class: 'pill paused', title: 'its task or the docket is paused' },
                'paused',
              )
            : null,
          t.waitingFor
            ? h(
                'span',
                { class: 'pill waiting', title: 'it starts once these executions have ended' },
                `waits for ${t.waitingFor.join(', ')}`,
              )
            : null,
          t.state === 'running'
            ? null
            : h(
                'button',
                {
                  type: 'button',
                  class: 'why',
                  'data-action': 'explain',
                  'data-key': t.key,
                  title: 'why it waits',
                  onclick: () => explain(t.key),
                },
                'Why?',
              ),
        ),
        actionCell(button('Cancel', 'cancel', t.key, () => cancel(t.key), true)),
      ),
  );
  picks.rendered(data.items.map((t) => t.key));
  return afterListDrawn(before);
}

export function renderDeadLetters(data: PageView<DeadLetterView>, picks: Selection): void {
  fill(
    table('#dead-letters'),
    data.items,
    // the row's key names the letter for people and tests; its checkbox carries the id
    (d) => `${d.key}@${d.deadAt}`,
    (d) =>
      h(
        'tr',
        null,
        picks.cell(d.id),
        h('td', null, time(d.deadAt)),
        h('td', null, h('strong', null, d.taskName || '?')),
        keyCell(d.key),
        argsCell(d.args),
        h('td', null, String(d.attempt)),
        h('td', { class: 'error' }, d.error),
        actionCell(button('Retry', 'retry', d.key, () => retry({ key: d.key }))),
      ),
  );
  picks.rendered(data.items.map((d) => d.id));
  $('#retry-all').hidden = READ_ONLY || data.total === 0;
}

export function renderRecentFailures(recent: FailureView[]): void {
  fill(
    table('#recent-failures'),
    recent,
    (f) => `${f.key}@${f.failedAt}`,
    (f) =>
      h(
        'tr',
        null,
        h('td', null, time(f.failedAt)),
        h('td', null, h('strong', null, f.taskName || '?')),
        keyCell(f.key),
        argsCell(f.args),
        h('td', { class: 'error' }, f.error),
      ),
  );
}

export function renderStrikes(items: StrikeView[]): void {
  fill(
    table('#strikes'),
    items,
    (s) => s.id,
    (s) =>
      h(
        'tr',
        null,
        h('td', null, s.task || 'any task'),
        mono(s.parameter || '—'),
        mono(s.parameter ? s.operator : ''),
        h(
          'td',
          { class: 'mono strike-value' },
          s.value === null ? '' : s.value,
          s.type ? h('span', { class: 'pill type', title: `typed as ${s.type}:…` }, s.type) : null,
        ),
        actionCell(
          button('Restore', 'restore', s.id, async () => {
            if (await act('restore', { id: s.id })) toast('Restored');
          }),
        ),
      ),
  );
}

export function renderTasks(tasks: TaskView[], docketPaused: boolean): void {
  const items = tasks.map((t) => ({ docketPaused, ...t }));
  fill(
    table('#tasks'),
    items,
    (t) => t.name,
    (t) =>
      h(
        'tr',
        null,
        h('td', null, h('strong', null, t.name)),
        h('td', null, String(t.workers)),
        h(
          'td',
          null,
          t.paused
            ? h(
                'span',
                { class: 'pill paused', title: 'nothing of it starts until it is resumed' },
                'PAUSED',
              )
            : h('span', { class: 'hint' }, t.docketPaused ? 'paused with the docket' : 'runs'),
        ),
        actionCell(
          t.paused
            ? button('Resume', 'resume', t.name, () => setPaused(t.name, false))
            : button('Pause', 'pause', t.name, () => setPaused(t.name, true), true),
        ),
      ),
  );
}

export function renderWorkers(target: HTMLTableElement, workers: WorkerView[]): void {
  fill(
    target,
    workers,
    (w) => w.name,
    (w) =>
      h(
        'tr',
        null,
        mono(w.name),
        ...(w.running
          ? [
              h('td', { class: 'host' }, w.host ?? '—'),
              h('td', { class: 'pid mono' }, w.pid ?? '—'),
              h('td', { class: 'version mono' }, w.version ?? '—'),
              h('td', { class: 'uptime' }, w.startedAt ? time(w.startedAt, 'since') : '—'),
            ]
          : []),
        h('td', { class: 'last-seen' }, time(w.lastSeen)),
        w.running
          ? h(
              'td',
              { class: 'busy', title: 'tasks it runs now / how many it runs at once' },
              `${w.running.length} / ${w.concurrency ?? '—'}`,
            )
          : null,
        w.running
          ? h(
              'td',
              { class: 'running-now' },
              ...w.running.map((t) =>
                h('div', null, h('strong', null, t.taskName), ' ', keyLink(t.key)),
              ),
            )
          : null,
        h('td', null, w.tasks.join(', ')),
      ),
    // a heartbeat alone changes the time in place: the row (and the links in it) stays
    {
      fields: ['lastSeen'],
      update: (row, w) => row.querySelector('td.last-seen')?.replaceChildren(time(w.lastSeen)),
    },
  );
}

export function renderHistory(data: PageView<FinishedRowView>): void {
  fill(
    table('#history'),
    data.items,
    (f) => `${f.key}@${f.completedAt}`,
    (f) =>
      h(
        'tr',
        null,
        h('td', null, time(f.completedAt)),
        h('td', null, h('strong', null, f.taskName || '?')),
        keyCell(f.key),
        argsCell(f.args),
        h('td', null, h('span', { class: `pill ${f.state}` }, f.state)),
        h('td', null, String(f.attempt)),
        h(
          'td',
          null,
          f.startedAt && f.completedAt
            ? span(Date.parse(f.completedAt) - Date.parse(f.startedAt))
            : '—',
        ),
        mono(f.worker),
        h('td', { class: 'error' }, f.error ?? ''),
      ),
  );
}
