import { encodeAdmission } from '../admission.js';
import type { FinishOptions, FinishResult, StreamEntry, TaskEnd } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript, type ScriptArg } from './script.js';

/**
 * finish-2.lua: record how delivered messages ended, claim the messages the worker asks for,
 * and read the next ones along.
 */
export const FINISH = defineScript<{ ends: readonly TaskEnd[] } & FinishOptions, FinishResult>({
  file: 'finish-2',
  keys: (k) => [k.stream, k.dead],
  args: (k, { ends, now, executionTtl, deadLetterTtl, readAlong, claims }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, now, executionTtl, deadLetterTtl];
    args.push(readAlong?.consumer ?? claims?.consumer ?? '', readAlong?.count ?? 0);
    const requests = claims?.requests ?? [];
    args.push(claims?.maxStarts ?? 0, requests.length);
    for (const r of requests) args.push(r.key, r.generation, r.id, encodeAdmission(r.admission));
    for (const e of ends) {
      args.push(e.key, e.generation, e.id, e.outcome, e.result ?? '', e.error ?? '');
      args.push(e.retryWhen ?? 0, e.attempt, e.taskName, e.args, encodeAdmission(e.admission));
      args.push(e.nextWhen ?? '', e.nextArgs ?? '');
    }
    return args;
  },
  decode: (reply) => {
    const [statuses, read, claims] = reply as [
      FinishResult['statuses'],
      StreamEntry[],
      FinishResult['claims'] | undefined,
    ];
    return { statuses, read, claims: claims ?? [] };
  },
});
