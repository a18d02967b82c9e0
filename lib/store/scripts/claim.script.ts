import type { ClaimOptions, ClaimRequest, ClaimResult, ClaimStatus } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { packRows, unpackStatusesAndRead } from './packed.js';
import { defineScript, type ScriptArg } from './script.js';

/** claim-2.lua: decide for each delivered message whether it runs now; read the next along. */
export const CLAIM = defineScript<
  { consumer: string; requests: readonly ClaimRequest[] } & ClaimOptions,
  ClaimResult
>({
  file: 'claim-2',
  keys: (k) => [k.stream, k.dead],
  args: (k, { consumer, now, executionTtl, deadLetterTtl, maxStarts, requests, readAlong }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, consumer, now, executionTtl];
    args.push(
      deadLetterTtl,
      maxStarts,
      packRows(
        requests.map((r) =>
          r.admission.length > 0
            ? [r.key, r.generation, r.id, r.admission]
            : [r.key, r.generation, r.id],
        ),
      ),
      readAlong ?? 0,
    );
    return args;
  },
  decode: (reply) => unpackStatusesAndRead<ClaimStatus>(reply),
});
