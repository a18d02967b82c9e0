// What the chaos run enqueues, derived from a seed so that the driver and the producer processes
// agree on every key without talking to each other.

/** A small seeded PRNG (mulberry32): the same seed gives the same run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type TaskKind = 'plain' | 'future' | 'retry' | 'long';

export interface PlannedTask {
  key: string;
  kind: TaskKind;
  /** How long the handler works, ms. */
  work: number;
  /** How many first attempts fail (retry kind). */
  failures: number;
  /** Delay of `when` from the moment it is added, ms (negative: in the past). */
  delay: number;
}

/** Docket of the chaos run, and the Redis keys where handlers record their runs. */
export const CHAOS_DOCKET = 'chaos';
/** A list of `key|run id|pid|started|ended|generation` entries, one per finished handler run. */
export const RUN_LOG = 'chaos:log';
/** A hash: toxic task key → how many times a handler began it. */
export const TOXIC_STARTS = 'chaos:toxic';
/** A hash: poison task key → how many times a handler began it. */
export const POISON_STARTS = 'chaos:poison';

export const TASK = {
  work: 'chaos.work',
  perpetual: 'chaos.perpetual',
  toxic: 'chaos.toxic',
  poison: 'chaos.poison',
} as const;

/**
 * The workers' maxRedeliveries. A long task (up to 2.5 s) is in flight at one of the run's
 * random kills with a chance of about 1 in 7; nine starts all ended by kills (1 in 40 million)
 * must not happen in any run, while a poison task, which ends every start, is quarantined.
 */
export const MAX_REDELIVERIES = 8;

/** How often a perpetual key runs, ms. */
export const PERPETUAL_EVERY = 1_000;

export function perpetualKeys(count = 4): string[] {
  return Array.from({ length: count }, (_, i) => `perp-${i}`);
}

/** The tasks of a run: most plain, some future (±5 s), some failing first, some long. */
export function planTasks(total: number, seed: number): PlannedTask[] {
  const random = prng(seed);
  const tasks: PlannedTask[] = [];
  for (let i = 0; i < total; i++) {
    const r = random();
    const key = `task-${String(i).padStart(5, '0')}`;
    if (r < 0.12) {
      tasks.push({
        key,
        kind: 'future',
        work: 5 + random() * 40,
        failures: 0,
        delay: (random() * 2 - 1) * 5_000,
      });
    } else if (r < 0.22) {
      tasks.push({
        key,
        kind: 'retry',
        work: 5 + random() * 40,
        failures: 1 + Math.floor(random() * 3),
        delay: 0,
      });
    } else if (r < 0.27) {
      tasks.push({ key, kind: 'long', work: 500 + random() * 2_000, failures: 0, delay: 0 });
    } else {
      tasks.push({ key, kind: 'plain', work: 5 + random() * 60, failures: 0, delay: 0 });
    }
  }
  return tasks;
}
