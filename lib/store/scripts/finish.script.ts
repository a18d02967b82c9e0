import type { AdmissionRule } from '../admission.js';
import type { EndStatus, FinishResult, ReadAlong, TaskEnd } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { packRows, trimmed, unpackStatusesAndRead } from './packed.js';
import { defineScript, type ScriptArg } from './script.js';

/** The values of one end, in the order finish-2.lua reads them (the rules as they are). */
function endRow(e: TaskEnd): (string | readonly AdmissionRule[])[] {
  return trimmed([
    e.key,
    e.generation,
    e.id,
    e.outcome,
    e.result ?? '',
    e.error ?? '',
    e.retryWhen === undefined ? '' : String(e.retryWhen),
    String(e.attempt),
    e.taskName,
    e.args,
    e.admission.length > 0 ? e.admission : '',
    e.nextWhen === undefined ? '' : String(e.nextWhen),
    e.nextArgs ?? '',
    e.stack ?? '',
  ]);
}

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
    args.push(readAlong?.consumer ?? '', readAlong?.count ?? 0, packRows(ends.map(endRow)));
    return args;
  },
  decode: (reply) => unpackStatusesAndRead<EndStatus>(reply),
});
