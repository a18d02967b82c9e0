// nestjs-docket vs BullMQ, side by side (issue 4). `npm run bench`, or after a build:
//   node .out/bench/run.js [--rounds N] [--quick] [--only id,id] [--cpu-prof DIR] [--out DIR]
// It starts a redis-server of its own on a free loopback port and talks to nothing else.
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { bullmqSide } from './bullmq-side.js';
import { docketSide } from './docket-side.js';
import { cpuModel, revision } from './machine.js';
import { killChildrenOnExit, killWorkers, quiet } from './processes.js';
import { flush, startRedis, type BenchRedis } from './redis.js';
import { median, table, targets, writeReport, type Machine } from './report.js';
import { SCENARIOS, metricList, sizes, type Context } from './scenarios.js';
import type { Lib } from './side.js';

interface Options {
  rounds: number;
  quick: boolean;
  only: string[];
  cpuProf?: string;
  out: string;
}

/**
 * A run waits (at most QUIET_WAIT_MS, and QUIET_BUDGET_MS over the whole benchmark) for the
 * machine to be quiet before it starts.
 */
const QUIET_BUSY = 0.2;
const QUIET_WAIT_MS = 5_000;
const QUIET_BUDGET_MS = 90_000;

function parseOptions(argv: string[]): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const rounds = Number(value('--rounds') ?? (quick ? 1 : 3));
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) {
    throw new Error('--rounds takes a whole number from 1 to 20');
  }
  const only = (value('--only') ?? '').split(',').filter(Boolean);
  const unknown = only.filter((id) => !SCENARIOS.some((s) => s.id === id));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scenario ${unknown.join(', ')}; scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}`,
    );
  }
  const root = fileURLToPath(new URL('../../', import.meta.url));
  return {
    rounds,
    quick,
    only,
    cpuProf: value('--cpu-prof'),
    // A quick run is a smoke test: it does not overwrite the committed results.
    out: value('--out') ?? (quick ? `${root}.out/bench/results-quick` : `${root}bench/results`),
  };
}

function machine(options: Options, redis: BenchRedis, busy: number[], budget: number): Machine {
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  return {
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    node: process.version,
    redis: redis.version,
    bullmq: bullmqSide.version,
    docket: `${docketSide.version} (${revision()})`,
    date: new Date().toISOString(),
    rounds: options.rounds,
    quick: options.quick,
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    load:
      `load average at the end ${loadavg()
        .map((x) => x.toFixed(2))
        .join(
          ' / ',
        )}; CPU busy with other work just before each run: median ${pct(median(busy))}, ` +
      `max ${pct(Math.max(...busy))} (a run waits up to ${QUIET_WAIT_MS / 1000} s, ${budget / 1000} s in all, for < ${pct(QUIET_BUSY)})`,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  killChildrenOnExit();
  const redis = await startRedis();
  try {
    const ctx: Context = {
      redis,
      sizes: sizes(options.quick),
      execArgv: (lib: Lib) =>
        options.cpuProf ? ['--cpu-prof', '--cpu-prof-interval', '100', '--cpu-prof-dir', `${options.cpuProf}/${lib}`] : [],
    };
    const metrics = metricList(ctx.sizes);
    const byId = new Map(metrics.map((m) => [m.id, m]));
    const scenarios = SCENARIOS.filter(
      (s) => options.only.length === 0 || options.only.includes(s.id),
    );
    const busy: number[] = [];
    const budget = options.quick ? QUIET_BUDGET_MS / 6 : QUIET_BUDGET_MS;
    let quietBudget = budget;
    const began = performance.now();
    let runId = 0;
    for (let round = 0; round < options.rounds; round++) {
      // Alternate which library goes first, so that neither always runs on a warmer machine.
      const sides = round % 2 === 0 ? [docketSide, bullmqSide] : [bullmqSide, docketSide];
      for (const scenario of scenarios) {
        for (const side of sides) {
          await flush(redis.stats);
          const waitFrom = performance.now();
          busy.push(await quiet(QUIET_BUSY, Math.min(QUIET_WAIT_MS, quietBudget)));
          quietBudget = Math.max(0, quietBudget - (performance.now() - waitFrom));
          const t = performance.now();
          const values = await scenario.run(ctx, { side, queue: `bench-${side.lib}-${++runId}` });
          for (const [id, value] of Object.entries(values)) {
            byId.get(id)?.values[side.lib].push(value);
          }
          const shown = Object.entries(values)
            .map(([id, v]) => `${id}=${Number.isFinite(v) ? v.toFixed(2) : 'n/a'}`)
            .join(' ');
          const seconds = ((performance.now() - t) / 1000).toFixed(1);
          console.log(
            `round ${round + 1}/${options.rounds} ${scenario.id.padEnd(11)} ${side.lib.padEnd(6)} ${shown} (${seconds} s, busy before ${Math.round(busy.at(-1)! * 100)}%)`,
          );
        }
      }
    }
    const measured = metrics.filter((m) => m.values.docket.length + m.values.bullmq.length > 0);
    const goals = targets(measured);
    await writeReport(options.out, measured, machine(options, redis, busy, budget), goals);
    console.log(`\n${table(measured)}\n`);
    for (const goal of goals) {
      const mark = goal.met === null ? 'n/a ' : goal.met ? 'met ' : 'MISS';
      console.log(`${mark}  ${goal.text} (${goal.detail})`);
    }
    const seconds = ((performance.now() - began) / 1000).toFixed(0);
    console.log(`\n${seconds} s; wrote ${options.out}/latest.md and processing.svg`);
  } finally {
    killWorkers();
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
