import type { DeadLetterRecord, StreamEntry } from '../docket-store.js';
import { deadLetterEntry } from '../redis-replies.js';
import { defineScript } from './script.js';

/**
 * read-dead-letters-1.lua: `limit` dead letters from the `offset`-th newest on, newest first,
 * and how many there are (read from the nearer end of the list).
 */
export const DEAD_LETTER_PAGE = defineScript<
  { offset: number; limit: number },
  { total: number; letters: DeadLetterRecord[] }
>({
  file: 'read-dead-letters-1',
  keys: (k) => [k.dead],
  args: (_k, { offset, limit }) => [offset, limit],
  decode: (reply) => {
    const [total, entries] = reply as [number, StreamEntry[]];
    return { total: Number(total), letters: entries.map(deadLetterEntry) };
  },
});
