import type { StreamEntry } from '../docket-store.js';
import { defineScript } from './script.js';

/**
 * read-lanes-1.lua: new messages for a consumer from every lane, in rank order; the last id of
 * each lane only when no message was read (lastIds is empty otherwise).
 */
export const READ_LANES = defineScript<
  { consumer: string; count: number },
  { lanes: string[]; lastIds: string[]; entries: StreamEntry[] }
>({
  file: 'read-lanes-1',
  keys: (k) => [k.stream],
  args: (k, { consumer, count }) => [k.prefix, consumer, count],
  decode: (reply) => {
    const [lanes, lastIds, entries] = reply as [string[], string[], StreamEntry[]];
    return { lanes, lastIds, entries };
  },
});
