import { CONSUMER_GROUP } from '../keys.js';
import { defineScript } from './script.js';

/** retry-dead-2.lua: schedule dead letters again and delete the ones scheduled. */
export const RETRY_DEAD = defineScript<{ ids: readonly string[]; now: number }, string[]>({
  file: 'retry-dead-2',
  keys: (k) => [k.dead, k.stream],
  args: (k, { ids, now }) => [now, CONSUMER_GROUP, k.prefix, ...ids],
  decode: (reply) => reply as string[],
});

/** purge-dead-1.lua: delete every dead letter. */
export const PURGE_DEAD = defineScript<Record<string, never>, number>({
  file: 'purge-dead-1',
  keys: (k) => [k.dead],
  args: () => [],
  decode: (reply) => Number(reply),
});
