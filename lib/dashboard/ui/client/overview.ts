import type { DashboardCounts, OverviewView, PausedView } from '../../dashboard-views.interface.js';
import { get } from './api.js';
import { addSamples, chart, label, rates, recent, series } from './chart.js';
import { syncClock } from './clock.js';
import { $, h } from './dom.js';
import { renderTasks, renderWorkers } from './lists.js';

/** What is paused, as the last overview said. */
export let paused: PausedView = { docket: false, tasks: [] };

function stat(name: string, value: string | number): void {
  const node = document.querySelector(`[data-stat="${name}"]`);
  if (node) node.textContent = String(value);
}

function count(name: string, value: number): void {
  const node = document.querySelector(`[data-count="${name}"]`);
  if (node) node.textContent = value ? String(value) : '';
}

/** The header's pause badge and toggle, and the banner (from the overview or a live sample). */
export function renderPaused(data: { paused: PausedView; counts: { held: number } }): void {
  paused = data.paused;
  $('#docket-paused').hidden = !paused.docket;
  const toggle = $('#pause-docket');
  toggle.hidden = false; // hidden until its state is known (read-only pages hide it by CSS)
  toggle.textContent = paused.docket ? 'Resume docket' : 'Pause docket';
  toggle.dataset.action = paused.docket ? 'resume-docket' : 'pause-docket';
  toggle.className = `action${paused.docket ? '' : ' danger'}`;
  const lines: string[] = [];
  if (paused.docket) {
    lines.push('The docket is paused: nothing starts on any worker until it is resumed.');
  }
  if (paused.tasks.length) lines.push(`Paused: task ${paused.tasks.join(', ')}.`);
  if (data.counts.held) lines.push(`${data.counts.held} due task(s) held.`);
  const banner = $('#paused-banner');
  banner.hidden = lines.length === 0;
  banner.textContent = lines.join(' ');
}

/** The counts in the cards and in the badges of the views. */
export function renderCounts(c: DashboardCounts): void {
  for (const name of [
    'queued',
    'scheduled',
    'running',
    'workers',
    'deadLetters',
    'strikes',
  ] as const) {
    stat(name, c[name]);
  }
  stat('held', c.held ? `${c.held} held (paused)` : '');
  count('running', c.running);
  count('waiting', c.queued + c.scheduled);
  count('deadLetters', c.deadLetters);
  count('strikes', c.strikes);
  count('workers', c.workers);
}

function renderOverview(data: OverviewView, view: string): void {
  $('#docket-name').textContent = data.docket;
  document.title = `Docket · ${data.docket}`;
  renderCounts(data.counts);
  const done = recent('completed', 60_000);
  stat('throughput', done ? label((done.sum * 60_000) / done.covered) : '–');
  const ok = recent('completed', 300_000);
  const bad = recent('failed', 300_000);
  const total = ok && bad ? ok.sum + bad.sum : 0;
  stat('failureRate', total && bad ? `${((bad.sum / total) * 100).toFixed(1)}%` : '–');
  if (view === 'overview') {
    const { samples } = series;
    chart(
      $('#chart-throughput'),
      [
        { cls: 'ok', points: rates('completed'), area: true },
        { cls: 'bad', points: rates('failed') },
      ],
      series.throughput ? (samples.length ? null : 'collecting…') : 'throughput counting is off',
    );
    chart(
      $('#chart-depth'),
      [
        { cls: 'scheduled', points: samples.map((s) => [s.at, s.scheduled]) },
        { cls: 'queued', points: samples.map((s) => [s.at, s.queued]) },
        { cls: 'running', points: samples.map((s) => [s.at, s.running]) },
      ],
      samples.length ? null : 'collecting…',
    );
    renderTasks(data.tasks, data.paused.docket);
    renderWorkers($('#overview-workers'), data.workers);
  }
  renderPaused(data);
  $('#task-names').replaceChildren(...data.tasks.map((t) => h('option', { value: t.name })));
}

/** Read the overview (new samples only) and render the header, the cards and the charts. */
export async function loadOverview(view: string): Promise<OverviewView> {
  const data = await get<OverviewView>(`overview?since=${series.lastAt}`);
  syncClock(data.takenAt);
  series.history = data.history;
  series.sampleInterval = data.sampleInterval;
  series.throughput = data.throughput;
  addSamples(data.samples);
  renderOverview(data, view);
  return data;
}
