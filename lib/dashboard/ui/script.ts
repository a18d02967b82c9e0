import { DOM_HELPERS } from './script-dom.js';

/**
 * The dashboard's script: plain browser JavaScript, no build step, no dependencies. It polls
 * the JSON API every `refreshInterval` and renders with DOM calls only (`textContent`, never
 * HTML from data), so task arguments and errors cannot inject markup.
 * (Kept free of backticks and dollar-braces: it lives in a template string.)
 */
export const DASHBOARD_SCRIPT =
  String.raw`(() => {
  'use strict';
  const body = document.body;
  const API = (body.dataset.base || './') + 'api/';
  const REFRESH = Number(body.dataset.refresh) || 1500;
  const READ_ONLY = body.dataset.readonly === 'true';
  const VIEWS = ['overview', 'running', 'scheduled', 'failures', 'strikes', 'workers'];
  const SVG = 'http://www.w3.org/2000/svg';
  let view = 'overview';
  let skew = 0;
  let samples = [];
  let lastAt = 0;
  let meta = { history: 900000, sampleInterval: 2000, throughput: true };
  let timer;
  let loading = null;
  let again = false;
  let paused = { docket: false, tasks: [] };
  let explaining = null;
  let explainedFinished = false;

  const $ = (selector) => document.querySelector(selector);
  const now = () => Date.now() + skew;

` +
  DOM_HELPERS +
  String.raw`
  function actionCell(...buttons) {
    return h('td', { class: 'act' }, ...(READ_ONLY ? [] : buttons));
  }

  function button(label, action, key, handler, danger) {
    return h('button', { type: 'button', class: danger ? 'danger' : null, 'data-action': action, 'data-key': key, onclick: handler }, label);
  }

  async function get(path) {
    const response = await fetch(API + path, { headers: { accept: 'application/json' }, cache: 'no-store' });
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new Error(messageOf(data, response));
    }
    return response.json();
  }

  function messageOf(data, response) {
    const message = data && data.message;
    if (Array.isArray(message)) return message.join('; ');
    return message || response.status + ' ' + response.statusText;
  }

  async function act(path, payload, question) {
    if (question && !window.confirm(question)) return null;
    try {
      const response = await fetch(API + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(payload),
      });
      const data = await response.json().catch(() => null);
      if (!response.ok) {
        const denied = response.status === 401 || response.status === 403;
        toast((denied ? 'Not allowed: ' : 'Failed: ') + messageOf(data, response), true);
        return null;
      }
      return data || {};
    } catch (error) {
      toast('Failed: ' + error.message, true);
      return null;
    } finally {
      refresh();
    }
  }

  function cancel(key) {
    return act('cancel', { key }, 'Cancel task ' + key + '?').then((data) => {
      if (data) toast('Task ' + key + ' is ' + (data.state || 'gone'));
    });
  }

  // Pause (on) or resume the docket (no task) or one task; only a pause asks first.
  function setPaused(task, on) {
    const what = task ? 'task ' + task : 'the docket';
    const question = on
      ? 'Pause ' + what + '? ' + (task ? 'None of its tasks starts' : 'No task starts') +
        ' on any worker until it is resumed; running ones finish, the others wait.'
      : null;
    return act(on ? 'pause' : 'resume', task ? { task } : {}, question)
      .then((r) => r && toast((on ? 'Paused ' : 'Resumed ') + what));
  }

  // Why a waiting task waits: shown above the list, read again when its row changes, and after
  // its task leaves the list until it has finished.
  function explain(key) {
    explaining = key;
    explainedFinished = false;
    $('#explain').hidden = false;
    $('#explain-key').textContent = key;
    $('#explain-reason').textContent = '…';
    $('#explain-detail').textContent = '';
    $('#explain-times').replaceChildren();
    markExplained();
    return loadExplain();
  }

  async function loadExplain() {
    const key = explaining;
    if (key === null) return;
    let data = null;
    let error = null;
    try {
      data = await get('explain?key=' + encodeURIComponent(key));
    } catch (e) {
      error = e;
    }
    if (explaining !== key) return;
    explainedFinished = data !== null && data.reason === 'finished';
    renderExplain(data, error);
  }

  function renderExplain(data, error) {
    const panel = $('#explain');
    const reason = $('#explain-reason');
    panel.dataset.reason = data ? data.reason : '';
    reason.className = 'pill' + (data ? ' ' + data.reason : '');
    reason.textContent = data ? data.reason.replace('_', ' ') : 'unknown';
    $('#explain-detail').textContent = data ? data.detail : error.message;
    const times = [];
    if (data && data.until) times.push(h('span', null, 'may start: ', time(data.until, 'until')));
    if (data && data.since) times.push(h('span', null, 'since: ', time(data.since)));
    $('#explain-times').replaceChildren(...times);
  }

  function markExplained() {
    for (const row of $('#scheduled').tBodies[0].rows) row.classList.toggle('selected', row.dataset.key === explaining);
  }

  function explainedRow() {
    if (explaining === null) return null;
    for (const row of $('#scheduled').tBodies[0].rows) if (row.dataset.key === explaining) return row;
    return null;
  }

  function renderRunning(items) {
    fill($('#running'), items, (t) => t.key, (t, previous) => {
      const progress = bar(t.progress, previous && previous.querySelector('.progress'));
      return h('tr', null,
        h('td', null, h('strong', null, t.taskName), t.attempt > 1 ? h('div', { class: 'bar-label' }, 'attempt ' + t.attempt) : null),
        mono(t.key),
        argsCell(t.args),
        mono(t.worker),
        h('td', null, time(t.startedAt)),
        h('td', null, progress),
        actionCell(button('Cancel', 'cancel', t.key, () => cancel(t.key), true)));
    });
  }

  function renderScheduled(data) {
    const before = explainedRow();
    fill($('#scheduled'), data.tasks, (t) => t.key, (t) =>
      h('tr', null,
        h('td', null, time(t.when, 'until')),
        h('td', null, h('strong', null, t.taskName)),
        mono(t.key),
        argsCell(t.args),
        h('td', null,
          h('span', { class: 'pill ' + t.state }, t.state),
          t.paused ? h('span', { class: 'pill paused', title: 'its task or the docket is paused' }, 'paused') : null,
          h('button', { type: 'button', class: 'why', 'data-action': 'explain', 'data-key': t.key, title: 'why it waits', onclick: () => explain(t.key) }, 'Why?')),
        actionCell(button('Cancel', 'cancel', t.key, () => cancel(t.key), true))));
    markExplained();
    const more = $('#scheduled-more');
    more.hidden = data.total <= data.tasks.length;
    more.textContent = 'showing ' + data.tasks.length + ' of ' + data.total;
    // rows are kept while their data is unchanged (see fill): a kept row keeps its explanation
    const row = explainedRow();
    const stale = row ? row !== before : !explainedFinished;
    return explaining !== null && stale ? loadExplain() : null;
  }

  function renderFailures(data) {
    fill($('#dead-letters'), data.deadLetters, (d) => d.key + '@' + d.deadAt, (d) =>
      h('tr', null,
        h('td', null, time(d.deadAt)),
        h('td', null, h('strong', null, d.taskName || '?')),
        mono(d.key),
        argsCell(d.args),
        h('td', null, String(d.attempt)),
        h('td', { class: 'error' }, d.error),
        actionCell(button('Retry', 'retry', d.key, () =>
          act('retry', { key: d.key }).then((r) => r && toast('Retried ' + r.retried + ' task(s)'))))));
    $('#retry-all').hidden = READ_ONLY || data.deadLetters.length === 0;
    fill($('#recent-failures'), data.recent, (f) => f.key + '@' + f.failedAt, (f) =>
      h('tr', null,
        h('td', null, time(f.failedAt)),
        h('td', null, h('strong', null, f.taskName || '?')),
        mono(f.key),
        argsCell(f.args),
        h('td', { class: 'error' }, f.error)));
  }

  function renderStrikes(items) {
    fill($('#strikes'), items, (s) => s.id, (s) =>
      h('tr', null,
        h('td', null, s.task || 'any task'),
        mono(s.parameter || '—'),
        mono(s.parameter ? s.operator : ''),
        mono(s.value === null ? '' : s.value),
        actionCell(button('Restore', 'restore', s.id, () => act('restore', { id: s.id }).then((r) => r && toast('Restored'))))));
  }

  function renderTasks(tasks, docketPaused) {
    const items = tasks.map((t) => Object.assign({ docketPaused }, t));
    fill($('#tasks'), items, (t) => t.name, (t) =>
      h('tr', null,
        h('td', null, h('strong', null, t.name)),
        h('td', null, String(t.workers)),
        h('td', null, t.paused
          ? h('span', { class: 'pill paused', title: 'nothing of it starts until it is resumed' }, 'PAUSED')
          : h('span', { class: 'hint' }, t.docketPaused ? 'paused with the docket' : 'runs')),
        actionCell(t.paused
          ? button('Resume', 'resume', t.name, () => setPaused(t.name, false))
          : button('Pause', 'pause', t.name, () => setPaused(t.name, true), true))));
  }

  function renderPaused(data) {
    paused = data.paused;
    $('#docket-paused').hidden = !paused.docket;
    const toggle = $('#pause-docket');
    toggle.hidden = false; // hidden until its state is known (read-only pages hide it by CSS)
    toggle.textContent = paused.docket ? 'Resume docket' : 'Pause docket';
    toggle.dataset.action = paused.docket ? 'resume-docket' : 'pause-docket';
    toggle.className = 'action' + (paused.docket ? '' : ' danger');
    const lines = [];
    if (paused.docket) lines.push('The docket is paused: nothing starts on any worker until it is resumed.');
    if (paused.tasks.length) lines.push('Paused: task ' + paused.tasks.join(', ') + '.');
    if (data.counts.held) lines.push(data.counts.held + ' due task(s) held.');
    const banner = $('#paused-banner');
    banner.hidden = lines.length === 0;
    banner.textContent = lines.join(' ');
    stat('held', data.counts.held ? data.counts.held + ' held (paused)' : '');
  }

  function renderWorkers(table, workers) {
    fill(table, workers, (w) => w.name, (w) =>
      h('tr', null, mono(w.name), h('td', null, time(w.lastSeen)), h('td', null, w.tasks.join(', '))));
  }

  function stat(name, value) {
    const node = document.querySelector('[data-stat="' + name + '"]');
    if (node) node.textContent = value;
  }

  function count(name, value) {
    const node = document.querySelector('[data-count="' + name + '"]');
    if (node) node.textContent = value ? String(value) : '';
  }

  function renderOverview(data) {
    const c = data.counts;
    $('#docket-name').textContent = data.docket;
    document.title = 'Docket · ' + data.docket;
    stat('queued', c.queued);
    stat('scheduled', c.scheduled);
    stat('running', c.running);
    stat('workers', c.workers);
    stat('deadLetters', c.deadLetters);
    stat('strikes', c.strikes);
    count('running', c.running);
    count('waiting', c.queued + c.scheduled);
    count('deadLetters', c.deadLetters);
    count('strikes', c.strikes);
    count('workers', c.workers);
    const done = recent('completed', 60000);
    stat('throughput', done ? label((done.sum * 60000) / done.covered) : '–');
    const ok = recent('completed', 300000);
    const bad = recent('failed', 300000);
    const total = ok && bad ? ok.sum + bad.sum : 0;
    stat('failureRate', total ? ((bad.sum / total) * 100).toFixed(1) + '%' : '–');
    if (view === 'overview') {
      chart($('#chart-throughput'), [
        { cls: 'ok', points: rates('completed'), area: true },
        { cls: 'bad', points: rates('failed') },
      ], meta.throughput ? (samples.length ? null : 'collecting…') : 'throughput counting is off');
      chart($('#chart-depth'), [
        { cls: 'scheduled', points: samples.map((s) => [s.at, s.scheduled]) },
        { cls: 'queued', points: samples.map((s) => [s.at, s.queued]) },
        { cls: 'running', points: samples.map((s) => [s.at, s.running]) },
      ], samples.length ? null : 'collecting…');
      renderTasks(data.tasks, data.paused.docket);
      renderWorkers($('#overview-workers'), data.workers);
    }
    renderPaused(data);
    $('#task-names').replaceChildren(...data.tasks.map((t) => h('option', { value: t.name })));
  }

  async function loadOverview() {
    const data = await get('overview?since=' + lastAt);
    skew = Date.parse(data.takenAt) - Date.now();
    meta = { history: data.history, sampleInterval: data.sampleInterval, throughput: data.throughput };
    samples = samples.concat(data.samples);
    if (samples.length) lastAt = samples[samples.length - 1].at;
    const oldest = now() - meta.history;
    samples = samples.filter((s) => s.at > oldest);
    renderOverview(data);
  }

  const LOADERS = {
    overview: null,
    running: () => get('running').then(renderRunning),
    scheduled: () => get('scheduled').then(renderScheduled),
    failures: () => get('failures').then(renderFailures),
    strikes: () => get('strikes').then(renderStrikes),
    workers: () => get('workers').then((w) => renderWorkers($('#workers'), w)),
  };

  function status(ok, error) {
    const node = $('#status');
    node.className = 'status ' + (ok ? 'live' : 'down');
    // fetch itself fails (a TypeError) when the application does not answer at all
    const reason = error instanceof TypeError ? 'cannot reach the application' : error && error.message;
    node.textContent = ok ? 'live · ' + new Date().toLocaleTimeString() : reason;
    node.title = ok ? '' : 'the page keeps trying';
  }

  async function load() {
    try {
      await Promise.all([loadOverview(), LOADERS[view] ? LOADERS[view]() : null]);
      refreshTimes();
      status(true);
    } catch (error) {
      status(false, error);
    }
  }

  // One load at a time; a refresh asked for meanwhile runs right after.
  function refresh() {
    clearTimeout(timer);
    if (loading) {
      again = true;
      return loading;
    }
    loading = load().finally(() => {
      loading = null;
      if (again) {
        again = false;
        refresh();
        return;
      }
      timer = setTimeout(refresh, document.hidden ? Math.max(REFRESH, 10000) : REFRESH);
    });
    return loading;
  }

  function show() {
    const wanted = location.hash.replace('#', '');
    view = VIEWS.includes(wanted) ? wanted : 'overview';
    for (const section of document.querySelectorAll('section[data-section]')) section.hidden = section.dataset.section !== view;
    for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.view === view);
    body.dataset.view = view;
    refresh();
  }

  $('#retry-all').addEventListener('click', () =>
    act('retry', { all: true }, 'Retry every dead letter?').then((r) => r && toast('Retried ' + r.retried + ' task(s)')));

  $('#pause-docket').addEventListener('click', () => setPaused(null, !paused.docket));

  $('#explain-close').addEventListener('click', () => {
    explaining = null;
    $('#explain').hidden = true;
    markExplained();
  });

  $('#strike-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.target;
    const field = (name) => form.elements.namedItem(name).value;
    const payload = {
      task: field('task').trim(),
      parameter: field('parameter').trim(),
      operator: field('operator'),
      value: field('value'),
    };
    const what = (payload.task || 'every task') + (payload.parameter ? ' where ' + payload.parameter + ' ' + payload.operator + ' ' + payload.value : '');
    act('strike', payload, 'Strike ' + what + '?').then((r) => {
      if (!r) return;
      toast('Struck ' + what);
      form.reset();
    });
  });

  if (READ_ONLY) for (const node of document.querySelectorAll('.action')) node.hidden = true;
  window.addEventListener('hashchange', show);
  document.addEventListener('visibilitychange', () => !document.hidden && refresh());
  window.addEventListener('resize', () => view === 'overview' && refresh());
  show();
})();
`;
