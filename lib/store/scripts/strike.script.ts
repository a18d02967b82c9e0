import type { StrikeLogEntry } from '../docket-store.js';
import { defineScript } from './script.js';

/** strike-1.lua: append to the strike log and tell every process. */
export const STRIKE = defineScript<Omit<StrikeLogEntry, 'id'>, string>({
  file: 'strike-1',
  keys: (k) => [k.strikes],
  args: (k, e) => [e.op, e.task, e.parameter, e.operator, e.value, k.strikesChannel],
  decode: (reply) => String(reply),
});
