import type {
  DeadLetterView,
  FailuresView,
  FinishedRowView,
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
  renderHistory,
  renderRecentFailures,
  renderRunning,
  renderScheduled,
  renderStrikes,
  renderWorkers,
} from './lists.js';
import { LiveStream } from './live.js';
import { loadOverview, paused, renderCounts, renderPaused } from './overview.js';
import type { LiveChanges, LiveView } from '../../dashboard-live.interface.js';

/**
 * The dashboard's page: it reads the JSON API and renders in place. With the live stream
 * open it reads the view shown when the stream says that something in it changed, and when a
 * sample is taken for the overview and the workers (their heartbeats are no event); without
 * it, every `refreshInterval`. The view is the URL's hash (`#running`, …).
 */

const REFRESH = Number(document.body.dataset.refresh) || 1500;
/**
 * With the stream open, the view is still read this often: for what changes without an event
 * (a due task becomes queued, a strike or a pause from elsewhere) and what was missed while
 * the stream reconnected.
 */
const SAFETY = Math.max(REFRESH, 20_000);
/** After a change, the page waits this long for more before it reads, ms… */
const SETTLE = 150;
/** …and reads for changes at most once in this time, ms… */
const GAP = 1_000;
/**
 * …or this one while a search or a task filter is set: such a read goes through every live
 * execution in Redis (about 0.3 s of Redis on 100 000 tasks), so it is not made every second.
 */
const FILTERED_GAP = 5_000;
const waiting = new ListControl('scheduled', () => void refresh());
const dead = new ListControl('dead-letters', () => void refresh());
const finished = new ListControl('history', () => void refresh());
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
  history: () =>
    get<PageView<FinishedRowView>>(`history?${finished.query()}`).then((page) => {
      finished.render(page);
      renderHistory(page);
    }),
  strikes: () => get<StrikeView[]>('strikes').then(renderStrikes),
  workers: () => get<WorkerView[]>('workers').then((w) => renderWorkers($('#workers'), w)),
  task: loadDetail,
};
/** The detail page of one execution shows that view only; the main page one by its hash. */
const DETAIL = document.body.dataset.page === 'task';

let view = 'overview';
let timer: ReturnType<typeof setTimeout> | undefined;
let changed: ReturnType<typeof setTimeout> | undefined;
let loading: Promise<void> | null = null;
let again = false;
let lastLoad = 0;

function status(ok: boolean, error?: unknown): void {
  const node = $('#status');
  node.className = `status ${ok ? 'live' : 'down'}`;
  // fetch itself fails (a TypeError) when the application does not answer at all
  const reason =
    error instanceof TypeError ? 'cannot reach the application' : (error as Error)?.message;
  node.textContent = ok ? `updated ${new Date().toLocaleTimeString()}` : reason;
  node.title = ok ? '' : 'the page keeps trying';
}

/** Say whether changes arrive as they happen, or the page reads on a timer. */
function showMode(live: boolean): void {
  const node = $('#updates');
  node.dataset.mode = live ? 'live' : 'polling';
  node.textContent = live ? 'live' : 'polling';
  node.title = live
    ? 'changes arrive as they happen'
    : `no live stream: the page reads every ${REFRESH / 1000} s`;
}

/** The state of the execution the detail page shows, as last rendered. */
function detailState(): string | null | undefined {
  return document.querySelector('#task-state')?.textContent;
}

/** Whether the view shows progress, which is no event: it is read every `refreshInterval`. */
function showsProgress(): boolean {
  if (view === 'running') return document.querySelector('#running tbody tr') !== null;
  return view === 'task' && detailState() === 'running';
}

/** Whether the list shown has a search or a task filter (see FILTERED_GAP). */
function filtered(): boolean {
  const list = { scheduled: waiting, failures: dead, history: finished }[view];
  if (!list) return false;
  const { q, task } = list.filter();
  return Boolean(q || task);
}

/** How long until the next read on the page's own timer. */
function interval(): number {
  if (document.hidden) return Math.max(REFRESH, 10_000);
  if (stream.live && !showsProgress()) return SAFETY;
  return filtered() ? Math.max(REFRESH, FILTERED_GAP) : REFRESH;
}

/**
 * Whether changes concern the view shown. The page of a waiting execution reads on every
 * change: why it waits depends on the others.
 */
function concerns(changes: LiveChanges): boolean {
  if (!changes.views.includes(view as LiveView)) return false;
  if (view !== 'task') return true;
  const state = detailState();
  return (
    changes.more > 0 ||
    state === 'scheduled' ||
    state === 'queued' ||
    changes.events.some((event) => event.key === document.body.dataset.key)
  );
}

/** Read soon: after `SETTLE`, and no sooner than `GAP` after the last read. */
function soon(): void {
  if (changed || document.hidden) return;
  const wait = Math.max(SETTLE, lastLoad + (filtered() ? FILTERED_GAP : GAP) - Date.now());
  changed = setTimeout(() => {
    changed = undefined;
    void refresh();
  }, wait);
}

const stream = new LiveStream({
  mode(live) {
    showMode(live);
    // opened: read what changed while it was away; lost: read on the timer meanwhile
    if (live) soon();
    else if (!loading) {
      clearTimeout(timer);
      timer = setTimeout(refresh, REFRESH);
    }
  },
  changes(message) {
    if (concerns(message)) soon();
  },
  sample({ counts, paused }) {
    renderCounts(counts);
    renderPaused({ counts, paused });
    if (view === 'overview' || view === 'workers') soon();
  },
  unavailable({ reason }) {
    status(false, new Error(reason));
  },
});

async function load(): Promise<void> {
  try {
    const [overview] = await Promise.all([loadOverview(view), LOADERS[view]?.()]);
    const names = overview.tasks.map((t) => t.name);
    waiting.tasks(names);
    dead.tasks(names);
    finished.tasks(names);
    refreshTimes();
    status(true);
  } catch (error) {
    status(false, error);
  }
}

/** One load at a time; a refresh asked for meanwhile runs right after. */
function refresh(): Promise<void> {
  clearTimeout(timer);
  clearTimeout(changed);
  changed = undefined;
  if (loading) {
    again = true;
    return loading;
  }
  lastLoad = Date.now();
  loading = load().finally(() => {
    loading = null;
    if (again) {
      again = false;
      void refresh();
      return;
    }
    timer = setTimeout(refresh, interval());
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
// a hidden page holds no stream (browsers allow few connections per host) and reads slowly
document.addEventListener('visibilitychange', () => {
  if (document.hidden) return stream.disconnect();
  stream.connect();
  void refresh();
});
window.addEventListener('resize', () => view === 'overview' && void refresh());
showMode(false);
stream.connect();
show();
