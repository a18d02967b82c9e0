import type {
  DeadLetterView,
  FailuresView,
  PageView,
  RunningView,
  StrikeView,
  TaskRowView,
  WorkerView,
} from '../../dashboard-views.interface.js';
import { act, get, onAction } from './api.js';
import { READ_ONLY, retry, setPaused } from './actions.js';
import { Selection } from './bulk.js';
import { $, refreshTimes, toast } from './dom.js';
import { loadDetail } from './detail.js';
import { closeExplain } from './explain.js';
import { ListControl } from './pager.js';
import {
  renderDeadLetters,
  renderRecentFailures,
  renderRunning,
  renderScheduled,
  renderStrikes,
  renderWorkers,
} from './lists.js';
import { loadOverview, paused } from './overview.js';

/**
 * The dashboard's page: it polls the JSON API every `refreshInterval` and renders in place.
 * The view is the URL's hash (`#running`, …).
 */

const REFRESH = Number(document.body.dataset.refresh) || 1500;
const waiting = new ListControl('scheduled', () => void refresh());
const dead = new ListControl('dead-letters', () => void refresh());
const waitingPicks = new Selection('scheduled', 'keys', ['task', 'tasks'], waiting);
const deadPicks = new Selection('dead-letters', 'ids', ['dead letter', 'dead letters'], dead);
const LOADERS: Record<string, (() => Promise<unknown>) | null> = {
  overview: null,
  running: () => get<RunningView[]>('running').then(renderRunning),
  scheduled: () =>
    get<PageView<TaskRowView>>(`tasks?${waiting.query()}`).then((page) => {
      waiting.render(page);
      return renderScheduled(page, waitingPicks);
    }),
  failures: () =>
    Promise.all([
      get<FailuresView>('failures').then((f) => renderRecentFailures(f.recent)),
      get<PageView<DeadLetterView>>(`dead-letters?${dead.query()}`).then((page) => {
        dead.render(page);
        renderDeadLetters(page, deadPicks);
      }),
    ]),
  strikes: () => get<StrikeView[]>('strikes').then(renderStrikes),
  workers: () => get<WorkerView[]>('workers').then((w) => renderWorkers($('#workers'), w)),
  task: loadDetail,
};
/** The detail page of one execution shows that view only; the main page one by its hash. */
const DETAIL = document.body.dataset.page === 'task';

let view = 'overview';
let timer: ReturnType<typeof setTimeout> | undefined;
let loading: Promise<void> | null = null;
let again = false;

function status(ok: boolean, error?: unknown): void {
  const node = $('#status');
  node.className = `status ${ok ? 'live' : 'down'}`;
  // fetch itself fails (a TypeError) when the application does not answer at all
  const reason =
    error instanceof TypeError ? 'cannot reach the application' : (error as Error)?.message;
  node.textContent = ok ? `live · ${new Date().toLocaleTimeString()}` : reason;
  node.title = ok ? '' : 'the page keeps trying';
}

async function load(): Promise<void> {
  try {
    const [overview] = await Promise.all([loadOverview(view), LOADERS[view]?.()]);
    const names = overview.tasks.map((t) => t.name);
    waiting.tasks(names);
    dead.tasks(names);
    refreshTimes();
    status(true);
  } catch (error) {
    status(false, error);
  }
}

/** One load at a time; a refresh asked for meanwhile runs right after. */
function refresh(): Promise<void> {
  clearTimeout(timer);
  if (loading) {
    again = true;
    return loading;
  }
  loading = load().finally(() => {
    loading = null;
    if (again) {
      again = false;
      void refresh();
      return;
    }
    timer = setTimeout(refresh, document.hidden ? Math.max(REFRESH, 10_000) : REFRESH);
  });
  return loading;
}

function show(): void {
  const wanted = DETAIL ? 'task' : location.hash.replace('#', '');
  view = wanted in LOADERS && (wanted !== 'task' || DETAIL) ? wanted : 'overview';
  for (const section of document.querySelectorAll<HTMLElement>('section[data-section]')) {
    section.hidden = section.dataset.section !== view;
  }
  for (const link of document.querySelectorAll<HTMLElement>('nav a')) {
    link.classList.toggle('active', link.dataset.view === view);
  }
  document.body.dataset.view = view;
  void refresh();
}

onAction(() => void refresh());
$('#retry-all').addEventListener('click', () => retry({ all: true }));
$('#pause-docket').addEventListener('click', () => setPaused(null, !paused.docket));
$('#explain-close').addEventListener('click', closeExplain);

$<HTMLFormElement>('#strike-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target as HTMLFormElement;
  const field = (name: string) =>
    (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;
  const payload = {
    task: field('task').trim(),
    parameter: field('parameter').trim(),
    operator: field('operator'),
    value: field('value'),
  };
  const what =
    (payload.task || 'every task') +
    (payload.parameter ? ` where ${payload.parameter} ${payload.operator} ${payload.value}` : '');
  if (!(await act('strike', payload, `Strike ${what}?`))) return;
  toast(`Struck ${what}`);
  form.reset();
});

if (READ_ONLY) {
  for (const node of document.querySelectorAll<HTMLElement>('.action')) node.hidden = true;
}
window.addEventListener('hashchange', show);
document.addEventListener('visibilitychange', () => !document.hidden && void refresh());
window.addEventListener('resize', () => view === 'overview' && void refresh());
show();
