import { BadRequestException } from '@nestjs/common';
import type { LiveState } from '../public-api.js';
import { STATES, text } from './dashboard-lists.service.js';

/** The most keys or ids one request names, and the most items one request over a filter takes. */
export const BULK_MAX = 500;

export const BULK_ACTIONS = ['cancel', 'retry', 'purge'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

/** What `api/bulk` is asked to do, checked. */
export type BulkRequest =
  | { action: 'cancel'; keys: string[] }
  | {
      action: 'cancel';
      filter: { states: LiveState[]; task?: string; search?: string };
      /** Running tasks this sweep cancelled already (they stay listed until they end). */
      skip: string[];
      limit: number;
    }
  | { action: 'retry' | 'purge'; ids: string[] }
  | {
      action: 'retry' | 'purge';
      filter: { task?: string; q?: string };
      /** Where the sweep goes on (null: from the oldest), and its end (null: not known yet). */
      after: string | null;
      until: string | null;
      limit: number;
    };

const STREAM_ID = /^\d+-\d+$/;

function bad(message: string): never {
  throw new BadRequestException(message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list of 1 to BULK_MAX distinct non-empty strings (each checked by `valid`). */
function names(value: unknown, field: string, what: string, valid = (_: string) => true): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > BULK_MAX) {
    bad(`"${field}" must be a list of 1 to ${BULK_MAX} ${what}`);
  }
  for (const item of value) {
    if (typeof item !== 'string' || item === '' || !valid(item)) {
      bad(`"${field}" holds ${JSON.stringify(item)}, which is not one of the ${what}`);
    }
  }
  return [...new Set(value as string[])];
}

function limitOf(value: unknown): number {
  if (value === undefined || value === null) return BULK_MAX;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > BULK_MAX) {
    bad(`"limit" must be a whole number from 1 to ${BULK_MAX}`);
  }
  return value as number;
}

/** The fields of `filter`, each text or absent; a field it does not take is refused. */
function filterOf(value: unknown, allowed: readonly string[]): Record<string, string | undefined> {
  if (!isObject(value)) bad('"filter" must be an object, as { "task": …, "q": … }');
  const out: Record<string, string | undefined> = {};
  for (const [field, given] of Object.entries(value)) {
    if (!allowed.includes(field)) {
      bad(`"filter" has no field "${field}" here (it takes ${allowed.join(', ')})`);
    }
    if (given !== null && given !== undefined && typeof given !== 'string') {
      bad(`"filter.${field}" must be text`);
    }
    out[field] = text(given ?? undefined, `filter.${field}`);
  }
  return out;
}

/**
 * The request of `api/bulk`, checked: an action, and either a selection (`keys` of live tasks
 * to cancel, `ids` of dead letters to retry or purge) or a `filter` as the lists take it, with
 * the `cursor` of the previous answer and an optional `limit`. 400 naming what is wrong.
 */
export function parseBulkRequest(body: unknown, searchArguments: boolean): BulkRequest {
  if (!isObject(body)) {
    bad('give a JSON object: { "action": …, and "keys", "ids" or "filter" }');
  }
  const action = body.action as BulkAction;
  if (action === undefined) bad('give "action": "cancel", "retry" or "purge"');
  if (!BULK_ACTIONS.includes(action)) {
    bad(
      `unknown action ${JSON.stringify(action ?? null)}: give "cancel", "retry" or "purge" as "action"`,
    );
  }
  const given = (['keys', 'ids', 'filter'] as const).filter((field) => body[field] !== undefined);
  if (given.length !== 1) bad('give one of "keys", "ids" or "filter"');
  const [selection] = given;
  if (selection !== 'filter' && (body.cursor !== undefined || body.limit !== undefined)) {
    bad('"cursor" and "limit" go with "filter"');
  }
  const cursor = body.cursor ?? null;
  if (cursor !== null && typeof cursor !== 'string') bad('"cursor" must be text');

  if (action === 'cancel') {
    if (selection === 'ids') bad('"cancel" takes "keys" (of live tasks) or "filter"');
    if (selection === 'keys') return { action, keys: names(body.keys, 'keys', 'task keys') };
    const filter = filterOf(body.filter, ['state', 'task', 'q']);
    const states = STATES[filter.state ?? 'waiting'];
    if (!states) bad(`"filter.state" is one of ${Object.keys(STATES).join(', ')}`);
    if (filter.q !== undefined && !searchArguments) {
      bad('"filter.q" is not offered: the dashboard shows no arguments (showArguments: false)');
    }
    let skip: string[] = [];
    if (cursor !== null) {
      const keys = skippedKeys(cursor);
      if (!keys) bad('"cursor" is not one an answer of "cancel" gave');
      skip = keys!;
    }
    return {
      action,
      filter: { states, task: filter.task, search: filter.q },
      skip,
      limit: limitOf(body.limit),
    };
  }

  if (selection === 'keys') bad(`"${action}" takes "ids" (of dead letters) or "filter"`);
  if (selection === 'ids') {
    const ids = names(body.ids, 'ids', 'dead letter ids', (id) => STREAM_ID.test(id));
    return { action, ids };
  }
  const filter = filterOf(body.filter, ['task', 'q']);
  let after: string | null = null;
  let until: string | null = null;
  if (cursor !== null) {
    const parts = cursor.split('..');
    if (parts.length !== 2 || !parts.every((part) => STREAM_ID.test(part))) {
      bad(`"cursor" is not one an answer of "${action}" gave`);
    }
    [after, until] = parts;
  }
  return {
    action,
    filter: { task: filter.task, q: filter.q },
    after,
    until,
    limit: limitOf(body.limit),
  };
}

/** The most running tasks a cancel sweep carries in its cursor. */
export const MOST_SKIPPED = 1_000;

/** The cursor of a cancel sweep: the running tasks it cancelled already (base64url JSON). */
export function cancelCursor(skip: readonly string[]): string {
  return Buffer.from(JSON.stringify(skip)).toString('base64url');
}

/** The keys of a cancel sweep's cursor; undefined when it is not one. */
function skippedKeys(cursor: string): string[] | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  try {
    const keys: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(keys) &&
      keys.length <= MOST_SKIPPED &&
      keys.every((key) => typeof key === 'string' && key.length > 0 && key.length <= 1024)
    ) {
      return keys as string[];
    }
  } catch {
    // not JSON
  }
  return undefined;
}
