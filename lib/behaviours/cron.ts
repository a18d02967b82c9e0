import { Cron } from 'croner';
import type { CronOptions } from '../interfaces/docket-task-options.interface.js';

/** A task's cron option in its long form. */
export function cronOptions(cron: string | CronOptions): Required<CronOptions> {
  const options = typeof cron === 'string' ? { expression: cron } : cron;
  return { tz: 'UTC', automatic: true, ...options };
}

/**
 * A parsed cron schedule: standard 5-field expressions and `@yearly`, `@monthly`, `@weekly`,
 * `@daily`, `@midnight`, `@hourly`, in an IANA time zone. Throws on anything else.
 */
export class CronSchedule {
  private readonly cron: Cron;

  constructor(options: Required<CronOptions>) {
    const expression = options.expression.trim();
    if (!expression.startsWith('@') && expression.split(/\s+/).length !== 5) {
      throw new Error(
        `"${expression}" is not a 5-field cron expression (minute hour day month weekday)`,
      );
    }
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: options.tz });
    } catch {
      throw new Error(`"${options.tz}" is not an IANA time zone`);
    }
    this.cron = new Cron(expression, { timezone: options.tz, paused: true });
  }

  /** The first match strictly after `from` (epoch ms). */
  next(from: number): number {
    const next = this.cron.nextRun(new Date(from));
    if (!next) throw new Error('the cron expression never matches again');
    return next.getTime();
  }
}
