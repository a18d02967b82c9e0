import type { DeadLetterRecord, StreamEntry } from '../docket-store.js';
import { deadLetterEntry } from '../redis-replies.js';
import { defineScript } from './script.js';

/** Which dead letters a page lists (see read-dead-letters-1.lua). */
export interface DeadLetterFilter {
  /** Only the letters of this task (exact name). */
  task?: string;
  /** A key prefix, or text in the task name, the error or (with `inArguments`) the arguments. */
  search?: string;
  /** Whether the search looks into the arguments' stored text. */
  inArguments: boolean;
  offset: number;
  limit: number;
  /** The most letters one call reads for a filtered page (DEAD_LETTER_PIECE unless given). */
  piece?: number;
}

/**
 * The most letters one call of read-dead-letters-1.lua reads for a filtered page: more are
 * read in several calls, so that one holds Redis briefly whatever the number of letters.
 */
export const DEAD_LETTER_PIECE = 5_000;

/** One call: the filter, and for a filtered page where the piece begins. */
interface DeadLetterPiece extends DeadLetterFilter {
  /** '' at the newest letter, else the cursor the previous piece returned. */
  cursor: string;
  budget: number;
}

/** read-dead-letters-1.lua: a page of the dead letters, newest first, that pass a filter. */
export const DEAD_LETTER_PAGE = defineScript<
  DeadLetterPiece,
  { total: number; letters: DeadLetterRecord[]; cursor: string }
>({
  file: 'read-dead-letters-1',
  keys: (k) => [k.dead],
  args: (_k, f) => [
    f.task ?? '',
    (f.search ?? '').toLowerCase(),
    f.inArguments ? '1' : '0',
    f.offset,
    f.limit,
    f.cursor,
    f.budget,
  ],
  decode: (reply) => {
    const [total, entries, cursor] = reply as [number, StreamEntry[], string];
    return {
      total: Number(total),
      letters: entries.map(deadLetterEntry),
      cursor: String(cursor ?? ''),
    };
  },
});
