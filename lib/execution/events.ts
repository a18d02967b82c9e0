import type { ExecutionProgress, ExecutionState } from '../interfaces/execution.interface.js';
import { DependencyFailedError } from '../errors/dependency-failed.error.js';
import { ExecutionCancelledError } from '../errors/execution-cancelled.error.js';
import { PoisonMessageError } from '../errors/poison-message.error.js';
import { TimeoutError } from '../errors/timeout.error.js';
import type { ProgressRecord } from '../store/docket-store.js';

export const TERMINAL_STATES: ReadonlySet<ExecutionState> = new Set([
  'completed',
  'failed',
  'cancelled',
]);

/** Stored progress in its public form. */
export function progressOf(record: ProgressRecord): ExecutionProgress {
  return {
    current: record.current,
    total: record.total,
    message: record.message,
    updatedAt: record.updatedAt === null ? null : new Date(record.updatedAt),
  };
}

/** The errors an execution can end with that have a class of the package. */
const KNOWN: Record<string, new (message: string) => Error> = {
  ExecutionCancelledError,
  TimeoutError,
  PoisonMessageError,
  DependencyFailedError,
};

/**
 * Rebuild a stored error text `"<Name>: <message>"`: an instance of the package's class of
 * that name when there is one, else an `Error` with that name and message.
 */
export function rebuildError(text: string | undefined): Error {
  const raw = text ?? 'Error: task failed';
  const colon = raw.indexOf(': ');
  const name = colon > 0 && /^[\w$.]+$/.test(raw.slice(0, colon)) ? raw.slice(0, colon) : 'Error';
  const message = name === 'Error' && colon <= 0 ? raw : raw.slice(colon + 2);
  const Known = Object.hasOwn(KNOWN, name) ? KNOWN[name] : undefined;
  if (Known) return new Known(message);
  const error = new Error(message);
  error.name = name;
  return error;
}

/** Most characters of an error's stack kept with a failed attempt. */
export const STACK_MAX_CHARS = 8_192;

/** The stack kept of an error (cut to STACK_MAX_CHARS), or undefined when it has none. */
export function stackOf(error: unknown): string | undefined {
  const stack = error instanceof Error ? error.stack : undefined;
  if (typeof stack !== 'string' || stack === '') return undefined;
  return stack.length > STACK_MAX_CHARS ? `${stack.slice(0, STACK_MAX_CHARS - 1)}…` : stack;
}

/** The stored form of an error: `"<Name>: <message>"`. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name || 'Error'}: ${error.message}`;
  return `Error: ${String(error)}`;
}
