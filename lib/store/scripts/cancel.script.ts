import type { ExecutionState } from '../../interfaces/execution.interface.js';
import type { CancelResult } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript } from './script.js';

/** cancel-4.lua: stop one task key from running. */
export const CANCEL = defineScript<
  { key: string; now: number; executionTtl: number },
  CancelResult
>({
  file: 'cancel-4',
  keys: (k, { key }) => [k.stream, k.queue, k.parked(key), k.runs(key)],
  args: (k, { key, now, executionTtl }) => [key, CONSUMER_GROUP, now, executionTtl, k.prefix],
  decode: (reply) => {
    const [found, taskName] = reply as [string, string];
    return { found: found as ExecutionState | 'missing', taskName };
  },
});

/** clear-2.lua: remove every scheduled and queued task. */
export const CLEAR = defineScript<{ now: number; executionTtl: number }, number>({
  file: 'clear-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, { now, executionTtl }) => [k.prefix, CONSUMER_GROUP, now, executionTtl],
  decode: (reply) => Number(reply),
});
