import { encodeAdmission } from '../admission.js';
import type { LeaseRenewal, StartedTask } from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { encodeWorkerAbout, type WorkerAbout } from '../worker-about.js';
import { defineScript, type ScriptArg } from './script.js';

/** The earliest due time a beat answers (Infinity: the queue is empty). */
const nextDue = (reply: unknown): number => (Number(reply) < 0 ? Infinity : Number(reply));

/** heartbeat-3.lua: a worker is alive, and (re)writes the tasks it runs. */
export const HEARTBEAT = defineScript<
  {
    worker: string;
    now: number;
    window: number;
    lifetime: number;
    tasks: readonly string[];
    about?: WorkerAbout;
  },
  number
>({
  file: 'heartbeat-3',
  keys: (k, { worker }) => [k.workers, k.workerTasks(worker), k.queue],
  args: (k, { worker, now, window, lifetime, tasks, about }) => [
    ...[worker, now, window, k.prefix, lifetime],
    about ? encodeWorkerAbout(about) : '',
    ...tasks,
  ],
  decode: nextDue,
});

/** beat-2.lua: a worker is alive (the beats between heartbeats). */
export const BEAT = defineScript<{ worker: string; now: number }, number>({
  file: 'beat-2',
  keys: (k) => [k.workers, k.queue],
  args: (_k, { worker, now }) => [worker, now],
  decode: nextDue,
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
  args: (k, { worker }) => [CONSUMER_GROUP, worker, k.prefix],
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

/** release-1.lua: an orderly shutdown hands back what its worker holds. */
export const RELEASE = defineScript<
  { consumer: string; now: number; held: readonly string[]; started: readonly StartedTask[] },
  number
>({
  file: 'release-1',
  keys: (k) => [k.stream],
  args: (k, { consumer, now, held, started }) => {
    const args: ScriptArg[] = [k.prefix, CONSUMER_GROUP, consumer, now, held.length, ...held];
    for (const task of started) args.push(task.key, task.generation, task.id);
    return args;
  },
  decode: (reply) => Number(reply),
});

/** ensure-group-1.lua: the consumer group exists (made on a full Redis too). */
export const ENSURE_GROUP = defineScript<Record<string, never>, void>({
  file: 'ensure-group-1',
  keys: (k) => [k.stream],
  args: (k) => [k.prefix],
  decode: () => undefined,
});
