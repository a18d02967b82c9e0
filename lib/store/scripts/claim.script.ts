import { encodeAdmission } from '../admission.js';
import type { ClaimRequest, ClaimStatus } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript, type ScriptArg } from './script.js';

/** claim-1.lua: decide for each delivered message whether it runs now. */
export const CLAIM = defineScript<
  { consumer: string; now: number; executionTtl: number; requests: readonly ClaimRequest[] },
  ClaimStatus[]
>({
  file: 'claim-1',
  keys: (k) => [k.stream],
  args: (k, { consumer, now, executionTtl, requests }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, consumer, now, executionTtl];
    for (const r of requests) args.push(r.key, r.generation, r.id, encodeAdmission(r.admission));
    return args;
  },
  decode: (reply) => reply as ClaimStatus[],
});
