import { encodeResult } from '../execution/codec.js';
import { Execution, type ExecutionSource } from '../execution/execution.js';
import { decodeOrRaw } from '../inspection/docket-inspector.js';
import type { StrikeCondition } from '../interfaces/strike-condition.interface.js';
import type { ScheduleOutcome, ScheduleRequest, StrikeLogEntry } from '../store/docket-store.js';
import { checkKey, checkStrikeCondition } from './request-checks.js';

// Pieces of DocketClient that need none of its state: how an answer of the store becomes an
// Execution, and how strike and pause requests are checked.

/** The execution a schedule request became (or the live one it found). */
export function executionOf(
  source: ExecutionSource,
  request: ScheduleRequest,
  args: readonly unknown[],
  result: ScheduleOutcome,
): Execution {
  const live = result.disposition === 'already_scheduled';
  const execution = new Execution(source, {
    key: request.key,
    taskName: live ? result.taskName : request.taskName,
    args: live ? [decodeOrRaw(result.args)].flat() : [...args],
    when: new Date(result.when),
    attempt: live ? result.attempt : request.attempt,
    disposition: result.disposition,
    state: result.state,
    generation: result.generation,
  });
  if (request.after && !live) execution.after = [...request.after.keys];
  return execution;
}

/** The execution of a call that a strike refused: never written, already cancelled. */
export function struckExecution(
  source: ExecutionSource,
  request: ScheduleRequest,
  args: readonly unknown[],
): Execution {
  return new Execution(source, {
    key: request.key,
    taskName: request.taskName,
    args: [...args],
    when: new Date(request.when),
    attempt: 1,
    disposition: 'struck',
    state: 'cancelled',
  });
}

/** The strike log entry of a strike or restore of `condition` (task name resolved). */
export function strikeLogEntry(
  op: 'strike' | 'restore',
  condition: StrikeCondition,
  task: string,
): Omit<StrikeLogEntry, 'id'> {
  const operator = checkStrikeCondition(condition, task);
  const value = condition.parameter ? encodeResult(condition.value) : '';
  return { op, task, parameter: condition.parameter ?? '', operator, value };
}

/** What `pause` and `resume` act on: '*' for the docket, else the task's name, checked. */
export function pauseTarget(name: string | undefined, maxKeyBytes: number, what: string): string {
  if (name === undefined) return '*';
  if (name === '*') {
    throw new TypeError(`${what}: "*" is not a task name; call ${what}() for the whole docket`);
  }
  return checkKey(name, maxKeyBytes, what);
}
