import type { ExplainRecord } from '../docket-store.js';
import { defineScript } from './script.js';

/** explain-1.lua: why an execution is where it is. */
export const EXPLAIN = defineScript<
  { key: string; now: number; liveSince: number; cap: number },
  ExplainRecord
>({
  file: 'explain-1',
  keys: (k, { key }) => [k.runs(key)],
  args: (k, { key, now, liveSince, cap }) => [k.prefix, key, now, liveSince, cap],
  decode: (reply) => {
    const [state, reason, detail, since, until, taskName, args] = (reply as unknown[]).map((v) =>
      v === null || v === undefined ? '' : String(v),
    );
    const time = (text: string) =>
      text === '' || !Number.isFinite(Number(text)) ? undefined : Number(text);
    return {
      state,
      reason,
      detail,
      since: time(since),
      until: time(until),
      taskName,
      args,
    } as ExplainRecord;
  },
});
