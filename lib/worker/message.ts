import { decodeArgs } from '../execution/codec.js';
import type { StreamEntry, TaskEnd } from '../store/docket-store.js';
import { fieldsToRecord } from '../store/fields.js';

/** A task message decoded from a stream entry. */
export interface TaskMessage {
  id: string;
  key: string;
  taskName: string;
  rawArgs: string;
  args: unknown[];
  when: number;
  attempt: number;
  generation: string;
  traceparent?: string;
  tracestate?: string;
  redelivered: boolean;
}

/** A stream entry that is not a task message; it goes to the dead letters with `reason`. */
export interface BadMessage {
  id: string;
  key: string;
  taskName: string;
  rawArgs: string;
  generation: string;
  attempt: number;
  reason: string;
}

const MAX_FIELD = 64 * 1024 * 1024;

/** Decode one entry; never throws. */
export function decodeMessage(entry: StreamEntry, redelivered: boolean): TaskMessage | BadMessage {
  const [id, list] = entry;
  const f = fieldsToRecord(list);
  const bad = (reason: string): BadMessage => ({
    id,
    key: typeof f.key === 'string' && f.key.length < 1024 ? f.key : '',
    taskName: typeof f.task === 'string' ? f.task.slice(0, 1024) : '',
    rawArgs: typeof f.args === 'string' ? f.args.slice(0, MAX_FIELD) : '',
    generation: /^\d+$/.test(f.generation ?? '') ? f.generation : '',
    attempt: Number.isInteger(Number(f.attempt)) ? Number(f.attempt) : 1,
    reason,
  });
  if (!Array.isArray(list) || list.length % 2 !== 0)
    return bad('malformed message: odd field list');
  for (const field of ['key', 'task', 'args', 'when', 'attempt', 'generation']) {
    if (typeof f[field] !== 'string' || f[field] === '') {
      return bad(`malformed message: field "${field}" is missing`);
    }
  }
  // a decimal number, as Redis' scripts read it too (not ' ', '0x10' or '0b1')
  const when = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(f.when) ? Number(f.when) : NaN;
  const attempt = Number(f.attempt);
  if (!Number.isFinite(when))
    return bad(`malformed message: "when" is not epoch ms: ${f.when.slice(0, 64)}`);
  if (!Number.isInteger(attempt) || attempt < 1) {
    return bad(`malformed message: "attempt" is not a whole number ≥ 1: ${f.attempt.slice(0, 64)}`);
  }
  if (!/^\d+$/.test(f.generation)) {
    return bad(
      `malformed message: "generation" is not a whole number: ${f.generation.slice(0, 64)}`,
    );
  }
  let args: unknown[];
  try {
    args = decodeArgs(f.args);
  } catch (error) {
    return bad(`malformed message: args cannot be decoded: ${(error as Error).message}`);
  }
  return {
    id,
    key: f.key,
    taskName: f.task,
    rawArgs: f.args,
    args,
    when,
    attempt,
    generation: f.generation,
    traceparent: f.traceparent,
    tracestate: f.tracestate,
    redelivered,
  };
}

export function isBadMessage(message: TaskMessage | BadMessage): message is BadMessage {
  return 'reason' in message;
}

/**
 * The end of a message, with `outcome` and `admission`; the caller adds what the outcome
 * carries (result, error, retry). One object literal: copying a record with `...` into a new
 * one costs V8 several times as much, and this is built for every execution.
 */
export function endOf(
  message: TaskMessage | BadMessage,
  outcome: TaskEnd['outcome'],
  admission: TaskEnd['admission'],
): TaskEnd {
  return {
    key: message.key,
    generation: message.generation,
    id: message.id,
    outcome,
    attempt: message.attempt,
    taskName: message.taskName,
    args: message.rawArgs,
    admission,
  };
}
