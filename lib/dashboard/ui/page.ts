import { actionsAllowed } from '../dashboard-action.guard.js';
import type { ResolvedDashboardOptions } from '../dashboard-options.interface.js';

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * The prefix of the page's relative URLs: the page may be asked for as `/x/docket` or
 * `/x/docket/`, behind a global prefix or a proxy that rewrites the path, so the assets and
 * the API are addressed relative to the last segment the browser sees. (Not a `<base>`
 * element: that would turn the `#view` links into other documents.)
 */
export function pageBase(url: string): string {
  const path = url.split(/[?#]/)[0];
  return path.endsWith('/') ? './' : `./${path.slice(path.lastIndexOf('/') + 1)}/`;
}

/**
 * The relative links of the detail page `<mount>/tasks/<key>`: `base` addresses the assets and
 * the API (the mount, with a slash), `home` the mount's own page.
 */
export function detailLinks(url: string): { base: string; home: string } {
  const segments = url.split(/[?#]/)[0].split('/');
  let up = '../';
  if (segments[segments.length - 1] === '') {
    segments.pop();
    up = '../../';
  }
  const mount = segments[segments.length - 3] ?? '';
  return { base: up, home: `${up}../${mount}` };
}

/** A blue dot, inline, so that the browser asks the application for no favicon. */
const ICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E" +
  "%3Ccircle cx='8' cy='8' r='6' fill='%233b6cf6'/%3E%3C/svg%3E";

const OPERATORS = ['==', '!=', '>', '>=', '<', '<=', 'between'];

/** The filter form of a list: a search field, a task choice and the given extra fields. */
function filterForm(name: string, search: string, extra = ''): string {
  return `<form class="toolbar" id="${name}-filter" role="search" autocomplete="off">
    <input type="search" name="q" placeholder="${search}" aria-label="Search">
    <select name="task" aria-label="Task"><option value="">any task</option></select>${extra}
  </form>`;
}

/** The header cell that picks every row of a list's page (hidden on a read-only page). */
const PICK_ALL =
  '<th class="pick action"><input type="checkbox" class="pick-all" aria-label="select every row of this page"></th>';

/**
 * The bulk actions of a list: over the picked rows, or over all its filter matches; `actions`
 * are [action, label of the picked rows' button, label of the filter's button].
 */
function bulkBar(name: string, actions: [string, string, string][]): string {
  const button = (action: string, scope: string, label: string) =>
    `<button type="button" class="danger" data-bulk="${action}" data-scope="${scope}" disabled>${label}</button>`;
  return `<div class="toolbar bulk action" id="${name}-bulk"><span class="picked">0 selected</span>${actions.map(([action, picked]) => button(action, 'picked', picked)).join('')}<span class="sep"></span>${actions.map(([action, , all]) => button(action, 'filter', all)).join('')}</div>`;
}

/** The pager of a list: which rows of how many, and buttons to move. */
function pager(name: string): string {
  const move = (page: string, label: string, title: string) =>
    `<button type="button" data-page="${page}" title="${title}">${label}</button>`;
  return `<div class="pager" id="${name}-pager" hidden>${move('first', '«', 'first page')}${move('prev', '‹', 'previous page')}<span class="range"></span>${move('next', '›', 'next page')}${move('last', '»', 'last page')}</div>`;
}

const FINISHED_CHOICE = `
    <select name="state" aria-label="State"><option value="all">every end</option><option value="completed">completed</option><option value="failed">failed</option><option value="cancelled">cancelled</option></select>`;

const STATE_CHOICE = `
    <select name="state" aria-label="State"><option value="waiting">queued &amp; scheduled</option><option value="queued">queued</option><option value="scheduled">scheduled</option><option value="running">running</option><option value="all">every live task</option></select>`;

/**
 * The dashboard's one HTML page; the script fills it in from the JSON API. With a `key`, it is
 * the detail page of that key's execution (served at `<mount>/tasks/<key>`).
 */
export function renderPage(options: ResolvedDashboardOptions, url: string, key?: string): string {
  const links = key === undefined ? { base: pageBase(url), home: '' } : detailLinks(url);
  const home = escapeHtml(links.home);
  const stat = (name: string, label: string, sub?: string) =>
    `<div class="card"><div class="label">${label}</div><div class="value" data-stat="${name}">–</div>${sub ? `<div class="sub" data-stat="${sub}"></div>` : ''}</div>`;
  const tab = (view: string, label: string, count?: string) =>
    `<a href="${home}#${view}" data-view="${view}">${label}${count ? ` <span class="badge" data-count="${count}"></span>` : ''}</a>`;
  const base = escapeHtml(links.base);
  const page = key === undefined ? '' : ` data-page="task" data-key="${escapeHtml(key)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Docket dashboard</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${base}assets/dashboard.css">
<script src="${base}assets/dashboard.js" defer></script>
</head>
<body data-base="${base}" data-refresh="${options.refreshInterval}" data-live="${options.live}" data-readonly="${!actionsAllowed(options)}" data-args="${options.showArguments}"${page}>
<header>
  <div class="brand"><a href="${home}#overview">docket</a> <span id="docket-name"></span> <strong id="docket-paused" class="paused-badge" title="nothing starts on any worker until the docket is resumed" hidden>PAUSED</strong></div>
  <nav>
    ${tab('overview', 'Overview')}
    ${tab('running', 'Running', 'running')}
    ${tab('scheduled', 'Queued &amp; scheduled', 'waiting')}
    ${tab('failures', 'Failures', 'deadLetters')}
    ${tab('history', 'History')}
    ${tab('strikes', 'Strikes', 'strikes')}
    ${tab('workers', 'Workers', 'workers')}
  </nav>
  <button type="button" class="action" id="pause-docket" data-action="pause-docket" hidden>Pause docket</button>
  <span id="updates" class="updates" data-mode="polling" title="reads every ${options.refreshInterval} ms">polling</span>
  <span id="status" class="status">connecting…</span>
</header>
<main>
<p id="paused-banner" class="banner" role="status" hidden></p>
<section data-section="overview">
  <div class="cards">
    ${stat('queued', 'Queued', 'held')}
    ${stat('scheduled', 'Scheduled')}
    ${stat('running', 'Running')}
    ${stat('workers', 'Workers')}
    ${stat('throughput', 'Completed/min')}
    ${stat('failureRate', 'Failure rate')}
    ${stat('deadLetters', 'Dead letters')}
    ${stat('strikes', 'Strikes')}
  </div>
  <div class="panels">
    <div class="panel"><h2>Throughput <small class="legend"><i class="ok"></i>completed <i class="bad"></i>failed, per minute</small></h2><div class="chart" id="chart-throughput"></div></div>
    <div class="panel"><h2>Depth <small class="legend"><i class="queued"></i>queued <i class="running"></i>running <i class="scheduled"></i>scheduled</small></h2><div class="chart" id="chart-depth"></div></div>
  </div>
  <div class="panel"><h2>Tasks <small>of the live workers, and any paused by name</small></h2>
    <table id="tasks"><thead><tr><th>Task</th><th>Live workers</th><th>State</th><th class="act"></th></tr></thead><tbody></tbody></table>
    <p class="empty">No task: no live worker, and none paused.</p>
  </div>
  <div class="panel"><h2>Live workers</h2>
    <table id="overview-workers"><thead><tr><th>Worker</th><th>Last heartbeat</th><th>Tasks</th></tr></thead><tbody></tbody></table>
    <p class="empty">No live worker.</p>
  </div>
</section>
<section data-section="running" hidden>
  <table id="running"><thead><tr><th>Task</th><th>Key</th><th class="args">Arguments</th><th>Worker</th><th>Started</th><th class="progress-col">Progress</th><th class="act"></th></tr></thead><tbody></tbody></table>
  <p class="empty">Nothing is running.</p>
</section>
<section data-section="scheduled" hidden>
  <div class="panel" id="explain" role="region" aria-label="Why the task is where it is" hidden>
    <h2>Why? <span class="mono" id="explain-key"></span> <button type="button" id="explain-close">Close</button></h2>
    <p><span class="pill" id="explain-reason"></span> <span id="explain-detail"></span></p>
    <p class="hint" id="explain-times"></p>
  </div>
  ${filterForm('scheduled', options.showArguments ? 'key prefix, task or argument text' : 'key prefix or task', STATE_CHOICE)}
  ${bulkBar('scheduled', [['cancel', 'Cancel selected', 'Cancel all matching']])}
  <table id="scheduled"><thead><tr>${PICK_ALL}<th>When</th><th>Task</th><th>Key</th><th class="args">Arguments</th><th>State</th><th class="act"></th></tr></thead><tbody></tbody></table>
  <p class="empty">No task here.</p>
  ${pager('scheduled')}
</section>
<section data-section="failures" hidden>
  <div class="panel"><h2>Dead letters <button type="button" class="action" id="retry-all" data-action="retry-all">Retry all</button></h2>
    ${filterForm('dead-letters', 'key prefix, task, error or argument text')}
    ${bulkBar('dead-letters', [
      ['retry', 'Retry selected', 'Retry all matching'],
      ['purge', 'Delete selected', 'Delete all matching'],
    ])}
    <table id="dead-letters"><thead><tr>${PICK_ALL}<th>Dead since</th><th>Task</th><th>Key</th><th class="args">Arguments</th><th>Attempts</th><th>Error</th><th class="act"></th></tr></thead><tbody></tbody></table>
    <p class="empty">No dead letters.</p>
    ${pager('dead-letters')}
  </div>
  <div class="panel"><h2>Recent failures <small>seen by this process</small></h2>
    <table id="recent-failures"><thead><tr><th>Failed</th><th>Task</th><th>Key</th><th class="args">Arguments</th><th>Error</th></tr></thead><tbody></tbody></table>
    <p class="empty">No failures seen.</p>
  </div>
</section>
<section data-section="history" hidden>
  ${
    options.keepFinished === 0
      ? '<p class="hint">No history: the dashboard is mounted with <code>keepFinished: 0</code>.</p>'
      : `<p class="hint">The last ${options.keepFinished} ends, newest first, while Redis keeps their records (<code>executionTtl</code>); kept while the dashboard is mounted.</p>`
  }
  ${filterForm('history', options.showArguments ? 'key prefix, task, error or argument text' : 'key prefix, task or error', FINISHED_CHOICE)}
  <table id="history"><thead><tr><th>Ended</th><th>Task</th><th>Key</th><th class="args">Arguments</th><th>State</th><th>Attempt</th><th>Took</th><th>Worker</th><th>Error</th></tr></thead><tbody></tbody></table>
  <p class="empty">No finished task kept.</p>
  ${pager('history')}
</section>
<section data-section="strikes" hidden>
  <div class="panel"><h2>Strikes in effect</h2>
    <table id="strikes"><thead><tr><th>Task</th><th>Parameter</th><th>Operator</th><th>Value</th><th class="act"></th></tr></thead><tbody></tbody></table>
    <p class="empty">No strikes: every task runs.</p>
  </div>
  <form class="panel action" id="strike-form" autocomplete="off">
    <h2>Strike</h2>
    <div class="fields">
      <label>Task <input name="task" list="task-names" placeholder="any task"></label>
      <label>Parameter <input name="parameter" placeholder="whole task"></label>
      <label>Operator <select name="operator">${OPERATORS.map((o) => `<option>${escapeHtml(o)}</option>`).join('')}</select></label>
      <label>Value <input name="value" placeholder="text, int:42, bool:true, json:[1,5]"></label>
      <button type="submit">Strike</button>
    </div>
    <p class="hint">Blocks matching adds and queued tasks in every process until restored. Values are typed as in the CLI: <code>int:42</code>, <code>float:1.5</code>, <code>bool:true</code>, <code>date:2026-01-01T00:00:00Z</code>, <code>json:[1,5]</code> (for <code>between</code>); anything else is a string.</p>
    <datalist id="task-names"></datalist>
  </form>
</section>
<section data-section="task" hidden>
  <div id="task-detail" aria-live="polite"></div>
</section>
<section data-section="workers" hidden>
  <table id="workers"><thead><tr><th>Worker</th><th>Host</th><th>PID</th><th>Version</th><th>Uptime</th><th>Last heartbeat</th><th title="tasks it runs now / how many it runs at once">Busy</th><th>Running now</th><th>Tasks</th></tr></thead><tbody></tbody></table>
  <p class="empty">No live worker.</p>
</section>
</main>
<div id="toast" role="status" aria-live="polite" hidden></div>
</body>
</html>
`;
}
