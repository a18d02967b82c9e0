import type { TaskCountsRecord } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript } from './script.js';

/** counts-2.lua: how many tasks are running, queued and scheduled, counted in full. */
export const COUNTS = defineScript<Record<string, never>, TaskCountsRecord>({
  file: 'counts-2',
  keys: (k) => [k.stream, k.queue],
  args: (k) => [k.prefix, CONSUMER_GROUP],
  decode: (reply) => {
    const [running, queued, scheduled, held] = (reply as number[]).map(Number);
    return { running, queued: Math.max(0, queued), scheduled, held };
  },
});
