import { encodeAdmission } from '../admission.js';
import type { FinishResult, ReadAlong, StreamEntry, TaskEnd } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript, type ScriptArg } from './script.js';

/** finish-2.lua: record how delivered messages ended, and read the next ones along. */
export const FINISH = defineScript<
  {
    ends: readonly TaskEnd[];
    now: number;
    executionTtl: number;
    deadLetterTtl: number;
    readAlong?: ReadAlong;
  },
  FinishResult
>({
  file: 'finish-2',
  keys: (k) => [k.stream, k.dead],
  args: (k, { ends, now, executionTtl, deadLetterTtl, readAlong }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, now, executionTtl, deadLetterTtl];
    args.push(readAlong?.consumer ?? '', readAlong?.count ?? 0);
    for (const e of ends) {
      args.push(e.key, e.generation, e.id, e.outcome, e.result ?? '', e.error ?? '');
      args.push(e.retryWhen ?? 0, e.attempt, e.taskName, e.args, encodeAdmission(e.admission));
      args.push(e.nextWhen ?? '', e.nextArgs ?? '', e.stack ?? '');
    }
    return args;
  },
  decode: (reply) => {
    const [statuses, read] = reply as [FinishResult['statuses'], StreamEntry[]];
    return { statuses, read };
  },
});
