import type { ExplanationView } from '../../dashboard-views.interface.js';
import { get } from './api.js';
import { $, h, time } from './dom.js';

/**
 * Why a waiting task waits: shown above the queued & scheduled list, read again when the
 * task's row changes, and after the task leaves the list until it has finished.
 */
let explaining: string | null = null;
let explainedFinished = false;

function rows(): HTMLTableRowElement[] {
  return Array.from($<HTMLTableElement>('#scheduled').tBodies[0].rows);
}

function markExplained(): void {
  for (const row of rows()) row.classList.toggle('selected', row.dataset.key === explaining);
}

/** The row of the task explained, if it is listed. */
export function explainedRow(): HTMLTableRowElement | null {
  if (explaining === null) return null;
  return rows().find((row) => row.dataset.key === explaining) ?? null;
}

/** Render an explanation (or why there is none) into `target`'s reason, detail and times. */
export function renderExplanation(
  target: { panel: HTMLElement; reason: HTMLElement; detail: HTMLElement; times: HTMLElement },
  data: ExplanationView | null,
  error?: Error,
): void {
  target.panel.dataset.reason = data ? data.reason : '';
  target.reason.className = `pill${data ? ` ${data.reason}` : ''}`;
  target.reason.textContent = data ? data.reason.replace('_', ' ') : 'unknown';
  target.detail.textContent = data ? data.detail : (error?.message ?? '');
  const times: HTMLElement[] = [];
  if (data?.until) times.push(h('span', null, 'may start: ', time(data.until, 'until')));
  if (data?.since) times.push(h('span', null, 'since: ', time(data.since)));
  target.times.replaceChildren(...times);
}

async function load(): Promise<void> {
  const key = explaining;
  if (key === null) return;
  let data: ExplanationView | null = null;
  let error: Error | undefined;
  try {
    data = await get<ExplanationView>(`explain?key=${encodeURIComponent(key)}`);
  } catch (e) {
    error = e as Error;
  }
  if (explaining !== key) return;
  explainedFinished = data !== null && data.reason === 'finished';
  renderExplanation(
    {
      panel: $('#explain'),
      reason: $('#explain-reason'),
      detail: $('#explain-detail'),
      times: $('#explain-times'),
    },
    data,
    error,
  );
}

export function explain(key: string): Promise<void> {
  explaining = key;
  explainedFinished = false;
  $('#explain').hidden = false;
  $('#explain-key').textContent = key;
  $('#explain-reason').textContent = '…';
  $('#explain-detail').textContent = '';
  $('#explain-times').replaceChildren();
  markExplained();
  return load();
}

/**
 * After the list was drawn: mark the row explained, and read the explanation again when its
 * row changed (`before` is the row before the list was drawn; kept rows keep their data).
 */
export function afterListDrawn(before: HTMLTableRowElement | null): Promise<void> | null {
  markExplained();
  const row = explainedRow();
  const stale = row ? row !== before : !explainedFinished;
  return explaining !== null && stale ? load() : null;
}

export function closeExplain(): void {
  explaining = null;
  $('#explain').hidden = true;
  markExplained();
}
