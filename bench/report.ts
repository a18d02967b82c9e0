import { mkdirSync, writeFileSync } from 'node:fs';
import type { Lib } from './side.js';

/** One row of the results: a number per round for each library (NaN = not applicable). */
export interface Metric {
  id: string;
  label: string;
  unit: string;
  better: 'higher' | 'lower';
  values: Record<Lib, number[]>;
  /** Drawn in the processing chart. */
  chart?: boolean;
  note?: string;
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  redis: string;
  bullmq: string;
  docket: string;
  date: string;
  rounds: number;
  quick: boolean;
  command: string;
  /** How busy the machine was with other work. */
  load: string;
}

/** A goal stated in the project's issue, checked against the medians. */
export interface Target {
  text: string;
  /** null when the run did not measure it. */
  met: boolean | null;
  detail: string;
}

export function median(values: number[]): number {
  const xs = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const mid = xs.length >> 1;
  return xs.length % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** The value at quantile q (0..1) of unsorted samples, nearest rank. */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return NaN;
  const xs = [...samples].sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))];
}

export function fmt(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs === 0) return '0';
  return value.toFixed(2);
}

export function ratio(m: Metric): number {
  const d = median(m.values.docket);
  const b = median(m.values.bullmq);
  return Number.isFinite(d) && Number.isFinite(b) && b !== 0 ? d / b : NaN;
}

/** The results table in markdown (also what is printed). */
export function table(metrics: Metric[]): string {
  const rows = [
    '| scenario | docket (median) | BullMQ (median) | ratio docket/BullMQ | unit | better |',
    '|---|---:|---:|---:|---|---|',
  ];
  for (const m of metrics) {
    const r = ratio(m);
    rows.push(
      `| ${m.label} | ${fmt(median(m.values.docket))} | ${fmt(median(m.values.bullmq))} | ${
        Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a'
      } | ${m.unit} | ${m.better} |`,
    );
  }
  return rows.join('\n');
}

/** The goals of the performance issue, checked against the medians. */
export function targets(metrics: Metric[]): Target[] {
  const byId = new Map(metrics.map((m) => [m.id, m]));
  const med = (id: string, lib: Lib) => median(byId.get(id)?.values[lib] ?? []);
  const r = (id: string) => {
    const m = byId.get(id);
    return m ? ratio(m) : NaN;
  };
  const check = (ok: boolean, measured: boolean): boolean | null => (measured ? ok : null);
  const fin = (...xs: number[]) => xs.every(Number.isFinite);
  const x = (v: number) => `${v.toFixed(2)}×`;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const atMost = (id: string, limit: number, text: string): Target => ({
    text,
    met: check(r(id) <= limit, fin(r(id))),
    detail: `${x(r(id))} (${fmt(med(id, 'docket'))} vs ${fmt(med(id, 'bullmq'))})`,
  });
  const atLeast = (id: string, limit: number, text: string): Target => ({
    text,
    met: check(r(id) >= limit, fin(r(id))),
    detail: x(r(id)),
  });
  return [
    atLeast('proc_c10', 1.5, 'processing at concurrency 10 ≥ 1.5× BullMQ'),
    atLeast('proc_c50', 1.5, 'processing at concurrency 50 ≥ 1.5× BullMQ'),
    atMost('proc_c10_cmds', 0.5, "Redis commands per task at concurrency 10 ≤ half BullMQ's"),
    atMost('proc_c50_cmds', 0.5, "Redis commands per task at concurrency 50 ≤ half BullMQ's"),
    atLeast('enq_64', 1.5, 'enqueue with 64 in flight ≥ 1.5× BullMQ'),
    atLeast('enq_seq', 1, 'sequential adds ≥ BullMQ'),
    atMost('mem_100k', 1, "Redis memory per 100 000 future tasks ≤ BullMQ's"),
    atMost('rss_c50', 1, "worker RSS under load ≤ BullMQ's"),
    {
      text: 'enqueue→start p50 and p99 no worse than BullMQ',
      met: check(
        med('lat_p50', 'docket') <= med('lat_p50', 'bullmq') &&
          med('lat_p99', 'docket') <= med('lat_p99', 'bullmq'),
        fin(r('lat_p50'), r('lat_p99')),
      ),
      detail: `p50 ${ms(med('lat_p50', 'docket'))} vs ${ms(med('lat_p50', 'bullmq'))}, p99 ${ms(med('lat_p99', 'docket'))} vs ${ms(med('lat_p99', 'bullmq'))}`,
    },
    {
      text: 'punctuality p99 ≤ 20 ms and never early',
      met: check(
        med('punct_p99', 'docket') <= 20 &&
          Math.max(...(byId.get('punct_early')?.values.docket ?? [NaN])) === 0,
        fin(med('punct_p99', 'docket')),
      ),
      detail: `p99 ${ms(med('punct_p99', 'docket'))}, early in any round: ${Math.max(...(byId.get('punct_early')?.values.docket ?? [NaN]))}`,
    },
    {
      text: "idle worker commands/s ≤ BullMQ's",
      met: check(
        med('idle_cmds', 'docket') <= med('idle_cmds', 'bullmq'),
        fin(med('idle_cmds', 'docket'), med('idle_cmds', 'bullmq')),
      ),
      detail: `${med('idle_cmds', 'docket').toFixed(2)} vs ${med('idle_cmds', 'bullmq').toFixed(2)}`,
    },
    (() => {
      const cpu = (id: string) => med(`${id}_wcpu`, 'docket') + med(`${id}_rcpu`, 'docket');
      const [ff, def] = [cpu('proc_c50_ff'), cpu('proc_c50')];
      return {
        text: 'docket executionTtl 0 cheaper than the default (worker + Redis CPU per task)',
        met: check(ff < def, fin(ff, def)),
        detail:
          `${ff.toFixed(0)} vs ${def.toFixed(0)} µs per task; ` +
          `${Math.round(med('proc_c50_ff', 'docket'))} vs ${Math.round(med('proc_c50', 'docket'))} tasks/s at concurrency 50`,
      };
    })(),
  ];
}

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Grouped bars of the chart metrics: docket and BullMQ side by side, medians. */
export function processingSvg(metrics: Metric[], machine: Machine): string {
  const groups = metrics.filter((m) => m.chart);
  const width = 820;
  const height = 420;
  const left = 70;
  const right = 20;
  const top = 60;
  const bottom = 90;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const max = Math.max(
    1,
    ...groups
      .flatMap((m) => [median(m.values.docket), median(m.values.bullmq)])
      .filter(Number.isFinite),
  );
  const step = 10 ** Math.floor(Math.log10(max));
  const tick = max / step > 5 ? step * 2 : max / step > 2 ? step : step / 2;
  const yMax = Math.ceil(max / tick) * tick;
  const y = (v: number): number => top + plotH - (v / yMax) * plotH;
  const colours: Record<Lib, string> = { docket: '#2b6cb0', bullmq: '#c05621' };
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="16" font-weight="bold">Processing ${/^processing ([\d ]+)/.exec(groups[0]?.label ?? '')?.[1] ?? ''} no-op tasks: tasks/s (median of ${machine.rounds} round${machine.rounds > 1 ? 's' : ''}, higher is better)</text>`,
    `<text x="${width / 2}" y="42" text-anchor="middle" fill="#555">${escape(`${machine.cpu}, ${machine.cores} cores · Node ${machine.node} · Redis ${machine.redis} · BullMQ ${machine.bullmq} · ${machine.date.slice(0, 10)}`)}</text>`,
  ];
  for (let v = 0; v <= yMax + 1e-9; v += tick) {
    parts.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e2e2e2"/>`,
      `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end" fill="#555">${fmt(v)}</text>`,
    );
  }
  const groupW = plotW / Math.max(1, groups.length);
  const barW = Math.min(60, groupW / 3);
  groups.forEach((m, g) => {
    const cx = left + groupW * (g + 0.5);
    (['docket', 'bullmq'] as const).forEach((lib, k) => {
      const v = median(m.values[lib]);
      if (!Number.isFinite(v)) return;
      const x = cx + (k === 0 ? -barW - 2 : 2);
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y(v).toFixed(1)}" width="${barW.toFixed(1)}" height="${(top + plotH - y(v)).toFixed(1)}" fill="${colours[lib]}"/>`,
        `<text x="${(x + barW / 2).toFixed(1)}" y="${(y(v) - 4).toFixed(1)}" text-anchor="middle">${fmt(v)}</text>`,
      );
    });
    const r = ratio(m);
    const lines = m.label.replace(/^processing [\d ]+, /, '').split(/, /);
    lines.forEach((line, i) =>
      parts.push(
        `<text x="${cx.toFixed(1)}" y="${top + plotH + 18 + i * 14}" text-anchor="middle">${escape(line)}</text>`,
      ),
    );
    if (Number.isFinite(r)) {
      parts.push(
        `<text x="${cx.toFixed(1)}" y="${top + plotH + 18 + lines.length * 14}" text-anchor="middle" fill="#555">${r.toFixed(2)}×</text>`,
      );
    }
  });
  parts.push(
    `<line x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}" stroke="#333"/>`,
    `<rect x="${width - right - 180}" y="52" width="12" height="12" fill="${colours.docket}"/>`,
    `<text x="${width - right - 164}" y="62">nestjs-docket</text>`,
    `<rect x="${width - right - 80}" y="52" width="12" height="12" fill="${colours.bullmq}"/>`,
    `<text x="${width - right - 64}" y="62">BullMQ</text>`,
    '</svg>',
    '',
  );
  return parts.join('\n');
}

const MEASURES = `## What each scenario measures

- **enqueue, sequential**: one producer awaits each \`add\` before the next (round-trip bound);
  tasks/s. Docket: \`DocketClient.add('noop')(payload)\`; BullMQ: \`Queue.add('noop', payload)\`.
- **enqueue, 64 in flight**: the same with 64 adds outstanding at any time (client CPU and
  Redis bound); tasks/s.
- **enqueue, bulk**: chunks of 1 000; BullMQ \`addBulk\`, docket \`addMany\`.
- **processing**: the queue is pre-filled with no-op tasks while the worker processes boot; the
  clock runs from the moment they are told to start until every handler has run *and* the
  library has recorded every completion in Redis (docket: stream empty, since a finished
  message is acknowledged and deleted; BullMQ: no job waiting, active or delayed). A single
  worker process reports over IPC once, when its handler count reaches the total; with four,
  each reports every 500 tasks and the orchestrator polls Redis (every 2 ms) only for the
  last 2 000. The handlers themselves only count, and the measurement costs the workers
  nothing else. "4 processes" are four worker processes on this 2-core machine.
- **CPU per add / per task**: for the 64-in-flight adds, the CPU time of the producer (the
  orchestrator process, which does nothing else meanwhile) and of redis-server, per add. In the
  processing runs, the CPU time (user + system) the worker processes
  used between "start" and "stop" (\`process.cpuUsage\`), and the CPU time redis-server used
  (\`INFO cpu\`) between "start" and "all done", each divided by the number of tasks. Unlike
  tasks/s, this hardly moves when other processes compete for the two cores. "CPU per task
  (worker + Redis)" is their sum; the concurrency-50 runs also show the two parts.
- **Redis commands per task**: in the processing runs, the \`INFO commandstats\` delta
  (commands inside Lua scripts count, each \`EVALSHA\` counts too) from "start" to "all done",
  divided by the number of tasks. It includes the orchestrator's few polls for "all done".
- **fire-and-forget**: processing at concurrency 50 with docket \`executionTtl: 0\` (nothing kept
  after a task ends) and BullMQ \`removeOnComplete: true\`; the other rows use each library's
  default (docket keeps state 15 min; BullMQ keeps every completed job until removed).
- **enqueue→start latency**: a producer adds at a steady 500 tasks/s with the send time in the
  payload; the worker (concurrency 10) records handler start − send time; p50/p99 over the run.
- **punctuality**: future tasks due 1–3 s after they are added (1–2 s with \`--quick\`; due
  times spread evenly); the worker
  records handler start − due time; "early" counts tasks that started before they were due.
- **idle commands/s**: one started worker with nothing to do; Redis \`INFO commandstats\` delta
  (commands inside Lua scripts count too) over the window, minus the measuring INFO itself.
- **Redis memory per 100 000 scheduled tasks**: \`used_memory\` after adding future tasks (due in
  1 h) minus before, scaled to 100 000 tasks; FLUSHALL before each run. Then the same again
  with keys (docket) and job ids (BullMQ) "1", "2", … — BullMQ's own ids are such a counter,
  docket's default key is a UUIDv7 (36 characters, in the record's name and in the queue).
- **worker RSS**: the largest \`process.memoryUsage().rss\` sampled every 100 ms in the worker
  process during the one-process concurrency-50 run.
`;

export function markdown(metrics: Metric[], machine: Machine, targets: Target[]): string {
  const lines = [
    '# nestjs-docket vs BullMQ',
    '',
    `Generated by \`${machine.command}\` on ${machine.date}${machine.quick ? ' (**--quick**: smaller counts, not for comparison)' : ''}.`,
    '',
    '## Machine',
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores`,
    `- Memory: ${machine.memoryGiB.toFixed(1)} GiB`,
    `- Node.js ${machine.node}; redis-server ${machine.redis} (own server on loopback, no persistence)`,
    `- nestjs-docket ${machine.docket}; BullMQ ${machine.bullmq}`,
    `- ${machine.load}`,
    `- ${machine.rounds} round(s); in each round every scenario runs for both libraries, alternating which goes first`,
    '',
    '## Results',
    '',
    table(metrics),
    '',
    '![processing](processing.svg)',
    '',
    '## Targets',
    '',
    ...targets.map(
      (t) =>
        `- ${t.met === null ? '➖ not measured' : t.met ? '✅ met' : '❌ missed'}: ${t.text} (${t.detail})`,
    ),
    '',
    MEASURES,
  ];
  const notes = metrics.filter((m) => m.note).map((m) => `- ${m.label}: ${m.note}`);
  if (notes.length > 0) lines.push('## Notes', '', ...notes, '');
  lines.push(
    '## Per-round values',
    '',
    '| scenario | docket | BullMQ |',
    '|---|---|---|',
    ...metrics.map(
      (m) =>
        `| ${m.label} | ${m.values.docket.map(fmt).join(', ')} | ${m.values.bullmq.map(fmt).join(', ')} |`,
    ),
    '',
  );
  return lines.join('\n');
}

/** Format as the repository's Prettier would, so that `prettier --check bench` stays clean. */
export async function prettierMarkdown(text: string, file: string): Promise<string> {
  try {
    const prettier = await import('prettier');
    const config = (await prettier.resolveConfig(file)) ?? {};
    return await prettier.format(text, { ...config, parser: 'markdown' });
  } catch {
    return text;
  }
}

export async function writeReport(
  dir: string,
  metrics: Metric[],
  machine: Machine,
  targets: Target[],
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    `${dir}/latest.md`,
    await prettierMarkdown(markdown(metrics, machine, targets), `${dir}/latest.md`),
  );
  writeFileSync(`${dir}/processing.svg`, processingSvg(metrics, machine));
}
