import { BadRequestException } from '@nestjs/common';
import type { Execution, ExecutionProgress } from '../lib/index.js';

/** Body of `POST /tasks/welcome`. */
export interface WelcomeRequest {
  userId: string;
  locale?: string;
  delayMs?: number;
  key?: string;
}

/** Body of `POST /tasks/report`. */
export interface ReportRequest {
  customerId: number;
  sections?: number;
  delayMs?: number;
  key?: string;
}

/** Scheduling options shared by both bodies. */
export interface ScheduleRequest {
  delayMs?: number;
  key?: string;
}

/** What a POST answers. */
export interface ScheduledView {
  key: string;
  state: string;
  disposition: string;
  when: Date;
}

/** What `GET /tasks/:key` answers. */
export interface ExecutionView {
  key: string;
  taskName: string;
  state: string;
  worker: string | null;
  startedAt: Date | null;
  completedAt: Date | null;
  error: string | null;
  progress: ExecutionProgress;
  result?: unknown;
}

/** Largest report the sample accepts. */
export const MAX_SECTIONS = 50;
/** Longest `?wait=` a GET may ask for, in ms. */
export const MAX_WAIT_MS = 60_000;

function fail(message: string): never {
  throw new BadRequestException(message);
}

function body(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail('the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function schedule(b: Record<string, unknown>): ScheduleRequest {
  const { delayMs, key } = b;
  if (delayMs !== undefined && (typeof delayMs !== 'number' || !(delayMs >= 0))) {
    fail('delayMs must be a number of milliseconds ≥ 0');
  }
  if (key !== undefined && (typeof key !== 'string' || key.length === 0)) {
    fail('key must be a non-empty string');
  }
  return { delayMs, key };
}

export function parseWelcome(value: unknown): WelcomeRequest {
  const b = body(value);
  if (typeof b.userId !== 'string' || b.userId.length === 0) fail('userId must be a string');
  if (b.locale !== undefined && typeof b.locale !== 'string') fail('locale must be a string');
  return { userId: b.userId, locale: b.locale, ...schedule(b) };
}

export function parseReport(value: unknown): ReportRequest {
  const b = body(value);
  if (!Number.isInteger(b.customerId)) fail('customerId must be a whole number');
  const { sections } = b;
  if (sections !== undefined && !(Number.isInteger(sections) && Number(sections) >= 1)) {
    fail('sections must be a whole number ≥ 1');
  }
  if (Number(sections) > MAX_SECTIONS) fail(`a report has at most ${MAX_SECTIONS} sections`);
  return { customerId: b.customerId as number, sections: sections as number, ...schedule(b) };
}

/** The `?wait=` of a GET: 0 (do not wait) unless given. */
export function parseWait(value: string | undefined): number {
  if (value === undefined || value === '') return 0;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_WAIT_MS) {
    fail(`wait must be a whole number of milliseconds from 0 to ${MAX_WAIT_MS}`);
  }
  return ms;
}

export function scheduledView(execution: Execution): ScheduledView {
  const { key, state, disposition, when } = execution;
  return { key, state, disposition, when };
}

export function executionView(execution: Execution, result?: { value: unknown }): ExecutionView {
  return {
    key: execution.key,
    taskName: execution.taskName,
    state: execution.state,
    worker: execution.worker ?? null,
    startedAt: execution.startedAt ?? null,
    completedAt: execution.completedAt ?? null,
    error: execution.error ?? null,
    progress: execution.progress,
    ...(result ? { result: result.value } : {}),
  };
}
