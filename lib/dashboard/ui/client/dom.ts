import { now } from './clock.js';

/**
 * Rendering helpers: elements, relative times, keyed table rows, progress bars. Data goes in as
 * text (`textContent`, attributes), never as HTML, so arguments and errors cannot inject markup.
 */

export type Child = Node | string | number | null | undefined | false;
export type Props = Record<string, unknown> | null;

/** The element of `selector`, which the page always has. */
export function $<T extends Element = HTMLElement>(selector: string): T {
  const node = document.querySelector<T>(selector);
  if (!node) throw new Error(`the page has no ${selector}`);
  return node;
}

/** An element with attributes (`class`, `on<event>` listeners, the rest as text) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = String(value);
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value as EventListener);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** A duration in words: `42s`, `3m 5s`, `2h 10m`, `3d 4h`. */
export function span(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const hours = Math.floor(m / 60);
  if (hours < 48) return `${hours}h ${m % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

function relative(node: HTMLTimeElement): void {
  const d = now() - Date.parse(node.dateTime);
  if (node.dataset.mode === 'until') node.textContent = d >= 0 ? 'due' : `in ${span(-d)}`;
  else if (node.dataset.mode === 'since') node.textContent = span(Math.max(0, d));
  else node.textContent = d < 1000 ? 'just now' : `${span(d)} ago`;
}

/**
 * A time, shown relative to now (`3m ago`; `in 5s` with mode `until`; how long since, `3m 5s`,
 * with mode `since`), exact on hover.
 */
export function time(
  iso: string | null | undefined,
  mode: 'ago' | 'until' | 'since' = 'ago',
): HTMLElement {
  if (!iso) return h('span', { title: 'not a valid date' }, '—');
  const node = h('time', {
    datetime: iso,
    title: new Date(iso).toLocaleString(),
    'data-mode': mode,
  });
  relative(node);
  return node;
}

/** Bring every relative time of the page up to date. */
export function refreshTimes(): void {
  for (const node of document.querySelectorAll<HTMLTimeElement>('time[data-mode]')) {
    relative(node);
  }
}

export function mono(text: string | null): HTMLTableCellElement {
  return h('td', { class: 'mono' }, text);
}

export function argsCell(text: string | null): HTMLTableCellElement {
  return h('td', { class: 'args mono', title: text ?? '' }, text === null ? '—' : text);
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

/** A short message in the corner, for four seconds. */
export function toast(message: string, error = false): void {
  const node = $('#toast');
  node.textContent = message;
  node.className = error ? 'error' : '';
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (node.hidden = true), 4000);
}

/**
 * The rows of `table`, one per item, keyed by `keyOf`: a row whose data is unchanged is kept
 * as it is, so buttons, links and bars stay put. `live` names fields that change at every
 * refresh (a heartbeat's time): they do not make a row new, `update` writes them into the
 * row kept. The `.empty` note after the table shows when there is no item.
 */
export function fill<T>(
  table: HTMLTableElement,
  items: readonly T[],
  keyOf: (item: T) => string,
  build: (item: T, previous: HTMLTableRowElement | undefined) => HTMLTableRowElement,
  live?: { fields: readonly (keyof T)[]; update: (row: HTMLTableRowElement, item: T) => void },
): void {
  const tbody = table.tBodies[0];
  const old = new Map(Array.from(tbody.rows, (row) => [row.dataset.key, row]));
  const steady = (item: T): unknown =>
    live ? { ...item, ...Object.fromEntries(live.fields.map((f) => [f, undefined])) } : item;
  const rows = items.map((item) => {
    const key = keyOf(item);
    const signature = JSON.stringify(steady(item));
    const previous = old.get(key);
    if (previous && previous.dataset.signature === signature) {
      live?.update(previous, item);
      return previous;
    }
    const row = build(item, previous);
    row.dataset.key = key;
    row.dataset.signature = signature;
    return row;
  });
  tbody.replaceChildren(...rows);
  const empty = table.nextElementSibling;
  if (empty instanceof HTMLElement && empty.classList.contains('empty')) {
    empty.hidden = items.length > 0;
  }
}

export interface Progress {
  current: number | null;
  total: number | null;
  message: string | null;
}

/** A progress bar (indeterminate until the task reports progress), reusing `previous`. */
export function bar(progress: Progress, previous?: Element | null): HTMLElement {
  const wrap =
    (previous as HTMLElement | null | undefined) ??
    h(
      'div',
      { class: 'progress' },
      h('div', { class: 'bar', role: 'progressbar' }, h('span')),
      h('div', { class: 'bar-label' }),
    );
  const track = wrap.querySelector<HTMLElement>('.bar')!;
  const fillNode = track.firstElementChild as HTMLElement;
  const label = wrap.querySelector<HTMLElement>('.bar-label')!;
  const total = progress.total !== null && progress.total > 0 ? progress.total : 100;
  if (progress.current === null) {
    track.classList.add('indeterminate');
    track.removeAttribute('aria-valuenow');
    label.textContent = progress.message || 'no progress reported';
  } else {
    const pct = Math.max(0, Math.min(100, (progress.current / total) * 100));
    track.classList.remove('indeterminate');
    track.setAttribute('aria-valuenow', String(progress.current));
    track.setAttribute('aria-valuemax', String(total));
    fillNode.style.width = `${pct.toFixed(1)}%`;
    label.textContent =
      `${progress.current} / ${total} · ${Math.round(pct)}%` +
      (progress.message ? ` · ${progress.message}` : '');
  }
  return wrap;
}

/** The URL of the detail page of `key` (none for `.` and `..`, which a path cannot carry). */
export function taskHref(key: string): string | null {
  if (key === '.' || key === '..') return null;
  return `${document.body.dataset.base ?? './'}tasks/${encodeURIComponent(key)}`;
}

/** A key, linked to its detail page. */
export function keyLink(key: string): HTMLElement {
  const href = taskHref(key);
  return href ? h('a', { href, class: 'key mono' }, key) : h('span', { class: 'mono' }, key);
}

export function keyCell(key: string): HTMLTableCellElement {
  return h('td', { class: 'mono' }, keyLink(key));
}
