import { encodeAdmission } from '../admission.js';
import type { LeaseRenewal } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript, type ScriptArg } from './script.js';

/** heartbeat-2.lua: a worker is alive, and (re)writes the tasks it runs. */
export const HEARTBEAT = defineScript<
  { worker: string; now: number; window: number; lifetime: number; tasks: readonly string[] },
  void
>({
  file: 'heartbeat-2',
  keys: (k, { worker }) => [k.workers, k.workerTasks(worker)],
  args: (k, { worker, now, window, lifetime, tasks }) => [
    ...[worker, now, window, k.prefix, lifetime],
    ...tasks,
  ],
  decode: () => undefined,
});

/** unregister-2.lua: a stopping worker leaves the registry. */
export const UNREGISTER = defineScript<{ worker: string }, void>({
  file: 'unregister-2',
  keys: (k, { worker }) => [k.workers, k.workerTasks(worker)],
  args: (k, { worker }) => [worker, k.prefix],
  decode: () => undefined,
});

/** forget-consumer-1.lua: a stopping worker's consumer leaves the group when nothing is pending. */
export const FORGET_CONSUMER = defineScript<{ worker: string }, boolean>({
  file: 'forget-consumer-1',
  keys: (k) => [k.stream],
  args: (_k, { worker }) => [CONSUMER_GROUP, worker],
  decode: (reply) => reply === 1,
});

/** renew-leases-1.lua: messages held and concurrency slots stay this worker's. */
export const RENEW_LEASES = defineScript<LeaseRenewal, string[]>({
  file: 'renew-leases-1',
  keys: (k) => [k.stream],
  args: (k, { consumer, ids, running, now }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, consumer, now, ids.length, ...ids];
    for (const task of running) args.push(task.key, encodeAdmission(task.admission));
    return args;
  },
  decode: (reply) => reply as string[],
});
