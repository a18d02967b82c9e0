// The dashboard on a docket of 100 000 tasks (issue "Dashboard v2"): how long its JSON API and
// its page take, and how long Redis is held meanwhile. `npm run bench:dashboard`, or after a
// build:
//   node .out/bench/dashboard-scale.js [--tasks N] [--calls N] [--loads N] [--out FILE]
// It starts a redis-server of its own on a free loopback port and talks to nothing else; with
// --tasks other than 100 000 it writes under .out/ unless --out says where.
import type { INestApplicationContext } from '@nestjs/common';
import type { Browser } from 'playwright-core';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import { chromiumMissing, launchChromium } from '../test/e2e/dashboard/browser.js';
import { timeApi, type ApiCall } from './dashboard-api.js';
import {
  DASHBOARD_CONNECTION,
  startDashboardApp,
  startWorker,
  type DashboardApp,
} from './dashboard-app.js';
import { fill, fillPlan } from './dashboard-fill.js';
import { timePages } from './dashboard-page.js';
import { RedisClock } from './dashboard-redis-time.js';
import { writeDashboardReport, type DashboardRun } from './dashboard-report.js';
import { docketSide } from './docket-side.js';
import { cpuModel, revision } from './machine.js';
import { killChildrenOnExit, quiet, until } from './processes.js';
import { startRedis, usedMemory } from './redis.js';

interface Options {
  tasks: number;
  calls: number;
  loads: number;
  out: string;
}

/** The docket's name: what the dashboard's header shows. */
const NAME = 'shop';
/** How long a view stays open after its last load, while the page polls. */
const OPEN_MS = 6_000;
const PAGE = 50;
const QUIET_BUSY = 0.2;
const QUIET_WAIT_MS = 10_000;

function parseOptions(argv: string[]): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const whole = (flag: string, fallback: number, min: number, max: number): number => {
    const n = Number(value(flag) ?? fallback);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new Error(`${flag} takes a whole number from ${min} to ${max}`);
    }
    return n;
  };
  const tasks = whole('--tasks', 100_000, 1_000, 1_000_000);
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const out =
    value('--out') ??
    (tasks === 100_000
      ? `${root}bench/results/dashboard-100k.md`
      : `${root}.out/bench/results-quick/dashboard-${tasks}.md`);
  return { tasks, calls: whole('--calls', 7, 1, 100), loads: whole('--loads', 5, 1, 50), out };
}

/** The reads the page makes (and a script could), with the keys and offsets of this docket. */
async function reads(dash: DashboardApp): Promise<ApiCall[]> {
  const counts = await dash.inspector.counts();
  const last = (total: number) => Math.max(0, Math.floor((total - 1) / PAGE) * PAGE);
  const page = (offset = 0) => `offset=${offset}&limit=${PAGE}`;
  const queued = await dash.inspector.tasks({ states: ['queued'], limit: 1 });
  const dead = await dash.deadLetters.newest(0, 1);
  const deadTotal = dead.total;
  const queuedKey = queued.tasks[0]?.key ?? 'none';
  const failedKey = dead.letters[0]?.key ?? 'none';
  return [
    { label: 'overview', path: 'overview' },
    { label: 'queued & scheduled, first page', path: `tasks?${page()}` },
    {
      label: 'queued & scheduled, last page',
      path: `tasks?${page(last(counts.queued + counts.scheduled))}`,
    },
    { label: 'scheduled, first page', path: `tasks?state=scheduled&${page()}` },
    {
      label: 'scheduled, last page',
      path: `tasks?state=scheduled&${page(last(counts.scheduled))}`,
    },
    { label: 'state filter: queued', path: `tasks?state=queued&${page()}` },
    { label: 'state filter: running', path: `tasks?state=running&${page()}` },
    { label: 'state filter: all', path: `tasks?state=all&${page()}` },
    { label: 'search, key prefix', path: `tasks?q=invoice-00123&${page()}` },
    { label: 'search, task name', path: `tasks?q=digest&${page()}` },
    { label: 'search, argument text', path: `tasks?q=acme&${page()}` },
    { label: 'task filter', path: `tasks?task=reports.monthly&${page()}` },
    { label: 'task filter and search', path: `tasks?task=billing.invoice&q=globex&${page()}` },
    { label: 'running (with progress)', path: 'running' },
    { label: 'dead letters, first page', path: `dead-letters?${page()}` },
    { label: 'dead letters, last page', path: `dead-letters?${page(last(deadTotal))}` },
    { label: 'dead letters, search', path: `dead-letters?q=acme&${page()}` },
    { label: 'dead letters, task filter', path: `dead-letters?task=billing.charge&${page()}` },
    // what the Failures view could read instead of every letter (in process, no HTTP)
    {
      label: 'dead letters, search, DeadLetters.newest',
      path: "DeadLetters.newest(0, 50, { search: 'acme' })",
      direct: () => dash.deadLetters.newest(0, PAGE, { search: 'acme' }),
    },
    {
      label: 'dead letters, task filter, DeadLetters.newest',
      path: "DeadLetters.newest(0, 50, { task: 'billing.charge' })",
      direct: () => dash.deadLetters.newest(0, PAGE, { task: 'billing.charge' }),
    },
    { label: 'recent failures', path: 'failures' },
    { label: 'workers', path: 'workers' },
    { label: 'task detail, scheduled', path: 'task?key=invoice-000123' },
    { label: 'task detail, failed', path: `task?key=${encodeURIComponent(failedKey)}` },
    { label: 'why? of a queued task', path: `explain?key=${encodeURIComponent(queuedKey)}` },
  ];
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const log = (line: string) => console.log(line);
  killChildrenOnExit();
  const began = performance.now();
  const redis = await startRedis();
  let worker: INestApplicationContext | undefined;
  let dash: DashboardApp | undefined;
  let browser: Browser | undefined;
  try {
    const plan = fillPlan(options.tasks);
    worker = await startWorker(redis.url, NAME, plan.running);
    dash = await startDashboardApp(redis.url, NAME);
    // the dashboard counts failures from the state events once it listens (it says so in Redis)
    await until(
      async () => (await redis.stats.exists(`{${NAME}}:states:on`)) === 1,
      10_000,
      'the dashboard to listen to state events',
    );
    log(`filling docket "${NAME}" with ${plan.tasks.toLocaleString('en-US')} tasks`);
    const fillSeconds = await fill(dash.client, dash.inspector, plan, log);
    const [counts, depths] = await Promise.all([dash.inspector.counts(), dash.inspector.depths()]);
    const held = { ...counts, deadLetters: depths.deadLetters };
    log(`holds ${JSON.stringify(held)}`);

    // other work on the machine skews the timings: wait (a little) for it to be quiet
    const busy = await quiet(QUIET_BUSY, QUIET_WAIT_MS);
    const clock = new RedisClock(redis.stats, DASHBOARD_CONNECTION);
    await clock.start();
    log(`JSON API, ${options.calls} calls each`);
    const api = await timeApi(dash.url, await reads(dash), options.calls, clock, log);
    const scripts = clock.summary();

    let pages: DashboardRun['pages'];
    const missing = chromiumMissing();
    if (missing) {
      pages = missing;
      log(`page not measured: ${missing}`);
    } else {
      log(`page, ${options.loads} loads each`);
      browser = await launchChromium();
      pages = await timePages(browser, dash.url, options.loads, OPEN_MS, clock, log);
    }
    await clock.stop();

    const run: DashboardRun = {
      command: `npm run bench:dashboard${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      date: new Date().toISOString(),
      machine: {
        cpu: cpuModel(),
        cores: cpus().length,
        memoryGiB: totalmem() / 2 ** 30,
        node: process.version,
        redis: redis.version,
        busy: `CPU busy with other work just before the timings: ${Math.round(busy * 100)}% (it waits up to ${QUIET_WAIT_MS / 1000} s for < ${QUIET_BUSY * 100}%)`,
      },
      docket: `${docketSide.version} (${revision()})`,
      plan,
      held,
      fillSeconds,
      redisMemoryMiB: (await usedMemory(redis.stats)) / 2 ** 20,
      api,
      calls: options.calls,
      pages,
      scripts,
    };
    await writeDashboardReport(options.out, run);
    const seconds = ((performance.now() - began) / 1000).toFixed(0);
    log(`\n${seconds} s; wrote ${options.out}`);
  } finally {
    await browser?.close().catch(() => undefined);
    await dash?.app.close().catch(() => undefined);
    await worker?.close().catch(() => undefined);
    await redis.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
