import type { DashboardSample } from '../../dashboard-views.interface.js';
import { now } from './clock.js';
import { span } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';

/** The samples the charts draw, kept for `history` ms, and how they were taken. */
export const series = {
  history: 900_000,
  sampleInterval: 2_000,
  throughput: true,
  samples: [] as DashboardSample[],
  /** The time of the newest sample seen, 0 before any. */
  lastAt: 0,
};

export interface Line {
  cls: string;
  points: [number, number][];
  area?: boolean;
}

function svg(tag: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, tag) as SVGElement;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(value)));
  for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
  return 10 * power;
}

/** A number for a label: whole from 100 up, else one decimal unless whole. */
export function label(value: number): string {
  return value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
}

/** An SVG line chart of `lines` over the history, with a `note` in the middle when given. */
export function chart(container: HTMLElement, lines: Line[], note: string | null): void {
  const W = Math.max(container.clientWidth, 240);
  const H = 140;
  const [L, R, T, B] = [36, 8, 8, 18];
  const t1 = now();
  const t0 = t1 - series.history;
  let max = 0;
  for (const line of lines) for (const point of line.points) max = Math.max(max, point[1]);
  max = niceMax(max);
  const x = (t: number) => L + ((t - t0) / series.history) * (W - L - R);
  const y = (v: number) => T + (1 - v / max) * (H - T - B);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img' });
  const text = (attrs: Record<string, string | number>, content: string) => {
    const node = svg('text', attrs);
    node.textContent = content;
    return node;
  };
  for (const v of [0, max / 2, max]) {
    root.append(svg('line', { class: 'axis', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    root.append(text({ x: L - 4, y: y(v) + 3, 'text-anchor': 'end' }, label(v)));
  }
  root.append(
    text({ x: L, y: H - 4 }, `-${span(series.history).replace(/ 0s$/, '')}`),
    text({ x: W - R, y: H - 4, 'text-anchor': 'end' }, 'now'),
  );
  for (const line of lines) {
    const points = line.points.filter((p) => p[0] >= t0);
    if (points.length === 0) continue;
    const coords = points.map((p) => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`);
    if (line.area) {
      const base = y(0).toFixed(1);
      const first = x(points[0][0]).toFixed(1);
      const last = x(points[points.length - 1][0]).toFixed(1);
      root.append(
        svg('polygon', {
          class: `area ${line.cls}`,
          points: `${first},${base} ${coords.join(' ')} ${last},${base}`,
        }),
      );
    }
    root.append(
      svg('polyline', { class: line.cls, points: coords.join(' '), 'data-series': line.cls }),
    );
  }
  if (note) root.append(text({ x: (L + W - R) / 2, y: H / 2, 'text-anchor': 'middle' }, note));
  container.replaceChildren(root);
}

type Counted = 'completed' | 'failed';

/** Executions per minute in buckets of about a sixtieth of the history. */
export function rates(key: Counted): [number, number][] {
  const bucket = Math.max(series.sampleInterval, Math.round(series.history / 60));
  const sums = new Map<number, number>();
  for (const s of series.samples) {
    const value = s[key];
    if (value === null) continue;
    const b = Math.floor(s.at / bucket) * bucket;
    sums.set(b, (sums.get(b) ?? 0) + value);
  }
  return Array.from(sums, ([at, sum]): [number, number] => [
    at + bucket / 2,
    (sum * 60_000) / bucket,
  ]).sort((a, b) => a[0] - b[0]);
}

/** How many of `key` the samples of the last `ms` counted, and the time they cover. */
export function recent(key: Counted, ms: number): { sum: number; covered: number } | null {
  const since = now() - ms;
  let sum = 0;
  let covered = 0;
  for (const s of series.samples) {
    const value = s[key];
    if (s.at <= since || value === null) continue;
    sum += value;
    covered += series.sampleInterval;
  }
  return covered ? { sum, covered } : null;
}

/** Add new samples and drop those older than the history. */
export function addSamples(samples: DashboardSample[]): void {
  if (samples.length) series.lastAt = samples[samples.length - 1].at;
  const oldest = now() - series.history;
  series.samples = series.samples.concat(samples).filter((s) => s.at > oldest);
}
