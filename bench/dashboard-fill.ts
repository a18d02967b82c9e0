import type { DocketClient, DocketInspector } from '../lib/index.js';
import type { Order } from './dashboard-app.js';
import { pool, until } from './processes.js';

/** How many of each kind the docket holds once filled. */
export interface FillPlan {
  /** Live tasks in all: scheduled + queued + running. */
  tasks: number;
  queued: number;
  running: number;
  /** Scheduled tasks added one by one with a readable key (`invoice-000042`), for the key search. */
  keyed: number;
  /** Executions that fail their only attempt (dead letters). */
  dead: number;
}

export function fillPlan(tasks: number): FillPlan {
  const scale = tasks / 100_000;
  return {
    tasks,
    queued: Math.round(5_000 * scale),
    running: 4,
    keyed: Math.round(2_000 * scale),
    dead: Math.round(3_000 * scale),
  };
}

/** Made-up customers, named in turn by the tasks that take one (`Acme Corp` among them). */
export const CUSTOMERS = [
  'Acme Corp',
  'Globex',
  'Initech',
  'Umbrella Foods',
  'Hooli',
  'Vandelay Industries',
  'Stark Freight',
  'Wayne Textiles',
  'Soylent Farms',
  'Tyrell Optics',
  'Cyberdyne Parts',
  'Wonka Sweets',
  'Oceanic Air',
  'Monarch Paper',
  'Gringotts Savings',
  'Duff Brewing',
  'Krusty Meals',
  'Nakatomi Trading',
  'Massive Dynamic',
  'Aperture Labs',
];

const LOCALES = ['en', 'de', 'fr', 'nl', 'es'];

/**
 * The task name and arguments of the i-th scheduled task: four tasks in turn, three of which
 * name a customer (each task every customer in turn).
 */
function scheduledTask(i: number): [string, unknown[]] {
  const n = Math.floor(i / 4);
  const customer = CUSTOMERS[n % CUSTOMERS.length];
  switch (i % 4) {
    case 0:
      return ['emails.welcome', [`user-${100_000 + i}`, LOCALES[i % LOCALES.length]]];
    case 1:
      return ['emails.digest', [{ id: i, name: customer }]];
    case 2:
      return ['reports.monthly', [customer, `2027-${String((i % 12) + 1).padStart(2, '0')}`]];
    default:
      return ['billing.invoice', [{ ...order(i), customer }]];
  }
}

function order(i: number): Order {
  return { id: i, amount: BigInt(1_000 + (i % 9_000)), customer: CUSTOMERS[i % CUSTOMERS.length] };
}

/** Group items by task name, in chunks of at most `size` (one addMany each). */
function chunks(from: number, to: number, size: number): [string, unknown[][]][] {
  const out: [string, unknown[][]][] = [];
  const open = new Map<string, unknown[][]>();
  for (let i = from; i < to; i++) {
    const [task, args] = scheduledTask(i);
    const list = open.get(task) ?? [];
    list.push(args);
    open.set(task, list);
    if (list.length === size) {
      out.push([task, list]);
      open.delete(task);
    }
  }
  for (const [task, list] of open) out.push([task, list]);
  return out;
}

const HOUR = 3_600_000;

/**
 * Fill the docket through the public client: the dead letters first (the worker fails them),
 * then the running tasks (which fill the worker's slots, so the queued ones stay queued), the
 * scheduled ones (due between one hour and thirty days from now, most by addMany, some by add
 * with a key of their own), then the queued ones (due now). Returns the seconds each step took.
 */
export async function fill(
  client: DocketClient,
  inspector: DocketInspector,
  plan: FillPlan,
  log: (line: string) => void,
): Promise<Record<string, number>> {
  const took: Record<string, number> = {};
  const step = async (name: string, work: () => Promise<void>) => {
    const t = performance.now();
    await work();
    took[name] = (performance.now() - t) / 1000;
    log(`  ${name}: ${took[name].toFixed(1)} s`);
  };

  await step(`${plan.dead} dead letters (billing.charge fails)`, async () => {
    for (let from = 0; from < plan.dead; from += 1_000) {
      const list = Array.from({ length: Math.min(1_000, plan.dead - from) }, (_, n) => [
        order(from + n),
      ]);
      await client.addMany('billing.charge', list);
    }
    await until(
      async () => (await inspector.depths()).deadLetters >= plan.dead,
      120_000,
      `${plan.dead} dead letters`,
    );
  });

  await step(`${plan.running} running (exports.hold)`, async () => {
    for (let n = 0; n < plan.running; n++) await client.add('exports.hold')(`export-${n}`);
    await until(
      async () => (await inspector.counts()).running >= plan.running,
      30_000,
      `${plan.running} running tasks`,
    );
  });

  const scheduled = plan.tasks - plan.queued - plan.running;
  const bulk = scheduled - plan.keyed;
  await step(`${bulk} scheduled by addMany`, async () => {
    const now = Date.now();
    const list = chunks(0, bulk, 1_000);
    // each chunk due at a time of its own, from one hour to thirty days ahead
    await pool(list.length, 4, async (c) => {
      const [task, args] = list[c];
      const when = new Date(now + HOUR + Math.floor((c / list.length) * 30 * 24 * HOUR));
      await client.addMany(task, args, { when });
    });
  });

  await step(`${plan.keyed} scheduled by add with a key`, async () => {
    const now = Date.now();
    await pool(plan.keyed, 64, async (n) => {
      const key = `invoice-${String(n).padStart(6, '0')}`;
      await client.add('billing.invoice', { key, when: new Date(now + 2 * HOUR + n * 60_000) })(
        order(bulk + n),
      );
    });
  });

  await step(`${plan.queued} queued (due now)`, async () => {
    for (let from = 0; from < plan.queued; from += 1_000) {
      const size = Math.min(1_000, plan.queued - from);
      const list = chunks(bulk + plan.keyed + from, bulk + plan.keyed + from + size, size);
      for (const [task, args] of list) await client.addMany(task, args);
    }
  });
  return took;
}
