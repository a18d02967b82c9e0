import type { RedisClock, RedisTime } from './dashboard-redis-time.js';
import { median } from './report.js';

/**
 * One read of the dashboard's JSON API, as the page (or a script) makes it; or a read of the
 * read model in process (`direct`), named by `path`.
 */
export interface ApiCall {
  label: string;
  /** Under `<mount>/api/`, or the call `direct` makes. */
  path: string;
  direct?: () => Promise<unknown>;
}

/** How long the calls of one `ApiCall` took, and what Redis spent on them. */
export interface ApiTiming {
  label: string;
  path: string;
  /** Read in process, not over HTTP. */
  direct: boolean;
  calls: number;
  medianMs: number;
  maxMs: number;
  /** What the answer says it holds: `total` of a list, or the length of an array. */
  holds: string;
  redis: RedisTime;
}

async function call(
  url: string,
  direct?: () => Promise<unknown>,
): Promise<{ ms: number; body: unknown }> {
  if (direct) {
    const t = performance.now();
    const body = await direct();
    return { ms: performance.now() - t, body };
  }
  const t = performance.now();
  const response = await fetch(url);
  const body = (await response.json()) as unknown;
  const ms = performance.now() - t;
  if (!response.ok) {
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  }
  return { ms, body };
}

function holds(body: unknown): string {
  if (Array.isArray(body)) return `${body.length} items`;
  const page = body as {
    total?: number;
    items?: unknown[];
    letters?: unknown[];
    state?: string;
    counts?: object;
    recent?: unknown[];
  };
  if (typeof page.total === 'number') {
    const shown = page.items?.length ?? page.letters?.length ?? 0;
    return `${shown} of ${page.total.toLocaleString('en-US')}`;
  }
  if (typeof page.state === 'string') return `state ${page.state}`;
  if (page.counts) return 'counts, workers, samples';
  if (page.recent) return `${page.recent.length} recent`;
  return '';
}

/**
 * Time `calls` sequential calls of each API read (after one warm-up call), with Redis's time
 * for them from `clock`.
 */
export async function timeApi(
  mount: string,
  reads: ApiCall[],
  calls: number,
  clock: RedisClock,
  log: (line: string) => void,
): Promise<ApiTiming[]> {
  const out: ApiTiming[] = [];
  for (const read of reads) {
    const url = `${mount}/api/${read.path}`;
    const first = await call(url, read.direct);
    await clock.reset();
    const ms: number[] = [];
    for (let n = 0; n < calls; n++) ms.push((await call(url, read.direct)).ms);
    const timing: ApiTiming = {
      label: read.label,
      path: read.path,
      direct: read.direct !== undefined,
      calls,
      medianMs: median(ms),
      maxMs: Math.max(...ms),
      holds: holds(first.body),
      redis: await clock.read(),
    };
    out.push(timing);
    const longest = timing.redis.longest;
    log(
      `  ${read.label.padEnd(44)} median ${timing.medianMs.toFixed(1).padStart(7)} ms, max ${timing.maxMs
        .toFixed(1)
        .padStart(7)} ms; Redis ${(timing.redis.totalMs / calls).toFixed(1)} ms a call, longest ${
        longest ? `${longest.ms.toFixed(1)} ms (${longest.name})` : '-'
      }; ${timing.holds}`,
    );
  }
  return out;
}
