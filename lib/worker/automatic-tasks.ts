import { Logger } from '@nestjs/common';
import type { DocketClient } from '../producer/docket.client.js';
import type { DocketRuntime } from '../docket.runtime.js';

/** How often the chains of automatic tasks are checked and re-seeded when severed. */
export const RESEED_INTERVAL = 60_000;
const LOCK_MS = 10_000;

/**
 * Start the chain of every automatic perpetual and cron task (key = task name) unless it is
 * live or struck. One worker of the docket seeds at a time (a lock); `add` refuses a live key,
 * so a chain is never doubled. Returns the keys seeded.
 */
export async function seedAutomaticTasks(
  runtime: DocketRuntime,
  client: DocketClient,
): Promise<string[]> {
  const { connection, keys, registry, strikes } = runtime;
  const automatic = registry.names
    .map((name) => registry.get(name)!)
    .filter((d) => d.plan.perpetual?.automatic || d.plan.cron?.automatic);
  if (automatic.length === 0) return [];
  await connection.ready();
  await strikes.ready();
  const locked = await connection.commands.set(keys.seedLock, '1', 'PX', LOCK_MS, 'NX');
  if (locked !== 'OK') return [];
  const seeded: string[] = [];
  try {
    for (const definition of automatic) {
      if (strikes.list.matches(definition.name, definition.parameters, [])) continue;
      const now = Date.now();
      const when = definition.plan.cron ? definition.plan.cron.schedule.next(now) : now;
      const execution = await client.schedule({
        key: definition.name,
        taskName: definition.name,
        args: [],
        encoded: '[]',
        when,
        attempt: 1,
        mode: 'add',
      });
      if (execution.disposition === 'scheduled') seeded.push(definition.name);
    }
  } finally {
    await connection.commands.del(keys.seedLock).catch(() => undefined);
  }
  if (seeded.length) new Logger('Docket').log(`seeded automatic task(s): ${seeded.join(', ')}`);
  return seeded;
}
