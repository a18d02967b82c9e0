import { Logger } from '@nestjs/common';
import type { StrikeSync } from '../behaviours/strike-sync.js';
import type { TaskRegistry } from '../explorer/task-registry.js';
import type { DocketStore } from '../store/docket-store.js';

/** How often the chains of automatic tasks are checked and re-seeded when severed. */
export const RESEED_INTERVAL = 60_000;
const LOCK_MS = 10_000;

/** What seeding needs from the worker. */
export interface AutomaticTasksEnv {
  store: Pick<DocketStore, 'lockSeeding' | 'unlockSeeding' | 'schedule'>;
  registry: TaskRegistry;
  strikes: StrikeSync;
  disrupted(error: unknown): void;
}

/**
 * Starts the chain of every automatic perpetual and cron task (key = task name) unless it is
 * live or struck, now and every minute (a severed chain heals). One worker of the docket seeds
 * at a time (a lock); an add refuses a live key, so a chain is never doubled.
 */
export class AutomaticTasks {
  private readonly logger = new Logger('Docket');
  private timer?: NodeJS.Timeout;

  constructor(private readonly env: AutomaticTasksEnv) {}

  start(): void {
    if (this.timer) return;
    const seed = () =>
      void this.seed().catch((error: unknown) => {
        this.env.disrupted(error);
        this.logger.warn(`seeding automatic tasks failed: ${(error as Error).message}`);
      });
    seed();
    this.timer = setInterval(seed, RESEED_INTERVAL);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Seed now; returns the keys seeded. */
  async seed(): Promise<string[]> {
    const { store, registry, strikes } = this.env;
    const automatic = registry.names
      .map((name) => registry.get(name)!)
      .filter((d) => d.plan.perpetual?.automatic || d.plan.cron?.automatic);
    if (automatic.length === 0) return [];
    await strikes.ready();
    if (!(await store.lockSeeding(LOCK_MS))) return [];
    const seeded: string[] = [];
    try {
      for (const definition of automatic) {
        if (strikes.list.matches(definition.name, definition.parameters, [])) continue;
        const now = Date.now();
        const when = definition.plan.cron ? definition.plan.cron.schedule.next(now) : now;
        const [result] = await store.schedule(
          [
            {
              key: definition.name,
              taskName: definition.name,
              args: '[]',
              when,
              attempt: 1,
              mode: 'add',
            },
          ],
          now,
        );
        if (result.disposition === 'scheduled') seeded.push(definition.name);
        if (result.disposition === 'error') {
          this.logger.error(`automatic task ${definition.name} cannot be seeded: ${result.error}`);
        }
      }
    } finally {
      await store.unlockSeeding().catch(() => undefined);
    }
    if (seeded.length) this.logger.log(`seeded automatic task(s): ${seeded.join(', ')}`);
    return seeded;
  }
}
