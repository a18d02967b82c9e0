import type { ExecutionState } from '../../interfaces/execution.interface.js';
import type {
  ScheduleAllResult,
  ScheduleOutcome,
  ScheduleRequest,
  ScheduleResult,
} from '../docket-store.js';
import { CONSUMER_GROUP } from '../keys.js';
import { defineScript, type ScriptArg } from './script.js';

/** The 7 values of one schedule reply (schedule-4.lua). */
const REPLY_SIZE = 7;

function result(reply: unknown[]): ScheduleResult {
  const [disposition, state, when, generation, taskName, args, attempt] = reply as string[];
  // a key whose records cannot be read, or a replace that would wait for itself: `state`
  // carries the reason
  if (disposition === 'cycle') return { disposition: 'error', error: state, cycle: true };
  if (disposition === 'error') return { disposition, error: state };
  return {
    disposition: disposition as ScheduleOutcome['disposition'],
    state: state as ExecutionState,
    when: Number(when),
    generation: Number(generation),
    taskName,
    args,
    attempt: Number(attempt),
  };
}

/** The replies of several schedules, REPLY_SIZE values each. */
function results(values: unknown[]): ScheduleResult[] {
  const out: ScheduleResult[] = [];
  for (let i = 0; i < values.length; i += REPLY_SIZE) {
    out.push(result(values.slice(i, i + REPLY_SIZE)));
  }
  return out;
}

/**
 * The ARGV of several schedules after the script's own (`after`: with each request's keys and
 * onDependencyFailure, for the scripts that know dependencies).
 */
function requestArgs(requests: readonly ScheduleRequest[], after: boolean): ScriptArg[] {
  const args: ScriptArg[] = [];
  for (const q of requests) {
    args.push(q.key, q.taskName, q.args, q.when, q.attempt, q.mode);
    args.push(q.traceparent ?? '', q.tracestate ?? '', q.priority ?? 5);
    if (after) args.push(q.after ? JSON.stringify(q.after.keys) : '', q.after?.onFailure ?? 'fail');
  }
  return args;
}

/** schedule-4.lua: add or replace one execution. */
export const SCHEDULE = defineScript<{ now: number; request: ScheduleRequest }, ScheduleResult>({
  file: 'schedule-4',
  keys: (k, { request }) => [k.stream, k.queue, k.parked(request.key), k.runs(request.key)],
  args: (k, { now, request: q }) => [
    ...[q.key, q.taskName, q.args, q.when, q.attempt, now, q.mode],
    ...[CONSUMER_GROUP, k.prefix, q.traceparent ?? '', q.tracestate ?? '', q.priority ?? 5],
  ],
  decode: (reply) => result(reply as unknown[]),
});

/** schedule-many-2.lua: several schedules in order, in one call. */
export const SCHEDULE_MANY = defineScript<
  { now: number; requests: readonly ScheduleRequest[] },
  ScheduleResult[]
>({
  file: 'schedule-many-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, { now, requests }) => [now, CONSUMER_GROUP, k.prefix, ...requestArgs(requests, false)],
  decode: (reply) => results(reply as unknown[]),
});

/** The reply of an all-or-none schedule (schedule-all-2.lua, schedule-all-after-2.lua). */
function allResult(reply: unknown): ScheduleAllResult {
  const [status, ...values] = reply as unknown[];
  if (status === 'refused') {
    const [group, error] = values as string[];
    return { written: false, index: Number(group) > 0 ? Number(group) - 1 : undefined, error };
  }
  // all or none: a written call has no failed request
  return { written: true, results: results(values) as ScheduleOutcome[] };
}

/** schedule-all-2.lua: several schedules in order, in one call, all or none. */
export const SCHEDULE_ALL = defineScript<
  { now: number; requests: readonly ScheduleRequest[] },
  ScheduleAllResult
>({
  file: 'schedule-all-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, input) => SCHEDULE_MANY.args(k, input),
  decode: (reply) => allResult(reply),
});

/**
 * schedule-after-2.lua: several schedules in order, in one call, some of them waiting for
 * other keys (requests without `after` are scheduled as by schedule-4.lua).
 */
export const SCHEDULE_AFTER = defineScript<
  { now: number; requests: readonly ScheduleRequest[]; executionTtl: number },
  ScheduleResult[]
>({
  file: 'schedule-after-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, { now, requests, executionTtl }) => [
    now,
    CONSUMER_GROUP,
    k.prefix,
    executionTtl,
    ...requestArgs(requests, true),
  ],
  decode: (reply) => results(reply as unknown[]),
});

/** schedule-all-after-2.lua: schedule-all-2.lua for requests some of which wait for other keys. */
export const SCHEDULE_ALL_AFTER = defineScript<
  { now: number; requests: readonly ScheduleRequest[]; executionTtl: number },
  ScheduleAllResult
>({
  file: 'schedule-all-after-2',
  keys: (k) => [k.stream, k.queue],
  args: (k, input) => SCHEDULE_AFTER.args(k, input),
  decode: (reply) => allResult(reply),
});
