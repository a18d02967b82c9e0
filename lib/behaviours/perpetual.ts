import type { TaskPlan } from '../explorer/task-definition.js';

/** What a handler asked for its chain (perpetual and cron tasks), through `ctx.perpetual`. */
export interface PerpetualIntent {
  cancelled: boolean;
  args?: unknown[];
  at?: number;
  after?: number;
}

/**
 * When a perpetual or cron task runs next: at the time the handler asked for, else at the
 * next cron match, else `every` after this run started (never before now). Undefined when the
 * task has no chain.
 */
export function nextRun(
  plan: TaskPlan,
  intent: PerpetualIntent,
  startedAt: number,
  now: number,
): number | undefined {
  const { perpetual, cron } = plan;
  if (!perpetual && !cron) return undefined;
  if (intent.at !== undefined) return intent.at;
  if (intent.after !== undefined) return now + intent.after;
  if (cron) return cron.schedule.next(now);
  return Math.max(now, startedAt + perpetual!.every);
}
