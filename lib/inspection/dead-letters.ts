import { Inject, Injectable } from '@nestjs/common';
import { DOCKET_STORE } from '../docket.tokens.js';
import { decodeArgs } from '../execution/codec.js';
import type { DeadLetter } from '../interfaces/snapshot.interface.js';
import type { DeadLetterRecord, DocketStore } from '../store/docket-store.js';
import { decodeOrRaw } from './docket-inspector.js';

/** A dead letter with its id in the dead-letter stream, which names it for retry and delete. */
export interface DeadLetterEntry extends DeadLetter {
  id: string;
}

/**
 * A piece of the dead letters read in order, and the id the next read goes on after (null:
 * nothing is left up to the bound).
 */
export interface DeadLetterScan {
  letters: DeadLetterEntry[];
  next: string | null;
}

/**
 * What `retryIds` did: the ids retried, and each other id with why it was not: `gone` (no such
 * dead letter any more), `unreadable` (no key or task, or arguments that do not decode), `live`
 * (its key is scheduled, queued or running again).
 */
export interface DeadLetterRetry {
  retried: string[];
  skipped: { id: string; reason: 'gone' | 'unreadable' | 'live' }[];
}

/**
 * Which dead letters `DeadLetters.newest()` lists: those of one task, and those a search finds.
 */
export interface DeadLetterSearch {
  /** Only the letters of this task (its exact name). */
  task?: string;
  /**
   * Only the letters whose key starts with this text, or whose task name, error or arguments
   * (as stored: their JSON text, as `DocketInspector.tasks()` searches them) contain it; case
   * aside.
   */
  search?: string;
  /** Whether the search looks into the arguments. @default true */
  arguments?: boolean;
}

/** How many dead letters a filtered page reads at a time. */
const PIECE = 1_000;

/** A stream id, `<ms>-<seq>`. */
const STREAM_ID = /^\d+-\d+$/;

function checkIds(ids: readonly string[], method: string): void {
  for (const id of ids) {
    if (typeof id !== 'string' || !STREAM_ID.test(id)) {
      throw new TypeError(`${method}: ${JSON.stringify(id)} is not a dead letter id (<ms>-<seq>)`);
    }
  }
}

/**
 * The dead letters of a docket: list, read in pieces, retry, delete, purge. Applications get
 * it from Nest, like `DocketInspector`.
 */
@Injectable()
export class DeadLetters {
  /** @internal Nest injects the store. */
  constructor(@Inject(DOCKET_STORE) private readonly store: DocketStore) {}

  /** Messages that could not run and executions that failed their last attempt. */
  async list(): Promise<DeadLetter[]> {
    return (await this.entries()).map(({ id: _id, ...letter }) => letter);
  }

  /** Every dead letter with its id, oldest first (one read of the whole list). */
  async entries(): Promise<DeadLetterEntry[]> {
    return (await this.store.deadLetters()).map(entryOf);
  }

  /**
   * At most `count` dead letters after the id `after` (null: from the oldest) up to the id
   * `until` (included), oldest first, and the id to go on after (null once `until` is
   * reached): a read in bounded pieces. A sweep takes `until` from `newestId()` when it
   * starts, so that letters added meanwhile (a retried task that failed again) are not met.
   */
  async scan(after: string | null, until: string, count: number): Promise<DeadLetterScan> {
    checkIds(after === null ? [until] : [after, until], 'scan');
    if (!Number.isSafeInteger(count) || count < 1) {
      throw new TypeError(`scan: count must be a whole number ≥ 1, got ${String(count)}`);
    }
    const records = await this.store.readDeadLetters(after ?? '0-0', until, count);
    const last = records.at(-1)?.id;
    return {
      letters: records.map(entryOf),
      next: records.length < count || last === until ? null : last!,
    };
  }

  /**
   * A page of the dead letters, newest first: `limit` of them from `offset`, and how many there
   * are in all, or with a `filter` how many pass it. Unfiltered, it reads only the letters
   * between the page and the nearer end of the list. Filtered, it reads every letter, newest
   * first, in pieces of 1 000 (a short command each, so that Redis is never held for all of
   * them), and decodes only the page; a letter added or removed between two pieces may be
   * missed or met twice in that read.
   */
  async newest(
    offset: number,
    limit: number,
    filter: DeadLetterSearch = {},
  ): Promise<{ total: number; letters: DeadLetterEntry[] }> {
    for (const [name, n] of [
      ['offset', offset],
      ['limit', limit],
    ] as const) {
      if (!Number.isSafeInteger(n) || n < (name === 'limit' ? 1 : 0)) {
        throw new TypeError(`newest: ${name} must be a whole number, got ${String(n)}`);
      }
    }
    for (const name of ['task', 'search'] as const) {
      if (filter[name] !== undefined && typeof filter[name] !== 'string') {
        throw new TypeError(`newest: filter.${name} must be text, got ${typeof filter[name]}`);
      }
    }
    const task = filter.task || undefined;
    const search = filter.search?.toLowerCase() || undefined;
    if (task === undefined && search === undefined) {
      const { total, letters } = await this.store.newestDeadLetters(offset, limit);
      return { total, letters: letters.map(entryOf) };
    }
    const passes = searchOf(task, search, filter.arguments ?? true);
    const page: DeadLetterRecord[] = [];
    let total = 0;
    for await (const piece of this.newestFirst()) {
      for (const letter of piece) {
        if (!passes(letter)) continue;
        total++;
        if (total > offset && page.length < limit) page.push(letter);
      }
    }
    return { total, letters: page.map(entryOf) };
  }

  /**
   * The newest dead letter of `key`, or null when it has none: read newest first, in pieces of
   * 1 000 (a short command each), stopping at the first letter of the key, so that the letter
   * of a recent failure is found in the first piece.
   */
  async newestOf(key: string): Promise<DeadLetterEntry | null> {
    if (typeof key !== 'string') {
      throw new TypeError(`newestOf: the key must be text, got ${typeof key}`);
    }
    for await (const piece of this.newestFirst()) {
      const letter = piece.find((record) => record.key === key);
      if (letter) return entryOf(letter);
    }
    return null;
  }

  /** Every dead letter, newest first, in pieces of PIECE (a short command each). */
  private async *newestFirst(): AsyncGenerator<DeadLetterRecord[]> {
    for (let before: string | null = null; ;) {
      const piece = await this.store.deadLettersBefore(before, PIECE);
      yield piece;
      if (piece.length < PIECE) return;
      before = piece[piece.length - 1].id;
    }
  }

  /** The id of the newest dead letter, or null when there is none. */
  newestId(): Promise<string | null> {
    return this.store.newestDeadLetterId();
  }

  /** The dead letter of each id, or null where there is none any more. */
  async byIds(ids: readonly string[]): Promise<(DeadLetterEntry | null)[]> {
    checkIds(ids, 'byIds');
    return (await this.store.deadLettersById(ids)).map((record) => record && entryOf(record));
  }

  /**
   * Schedule dead letters again, now, with their key and arguments; returns how many were
   * scheduled. A letter whose arguments cannot be decoded stays, and so does one whose key is
   * live again.
   */
  async retry(target: string | { all: true }): Promise<number> {
    const letters = await this.store.deadLetters();
    const ids = letters
      .filter((letter) => typeof target !== 'string' || letter.key === target)
      .filter(retryable)
      .map((letter) => letter.id);
    return (await this.store.retryDeadLetters(ids, Date.now())).length;
  }

  /** Retry the dead letters `ids` as `retry` does; says which were retried and why not. */
  async retryIds(ids: readonly string[]): Promise<DeadLetterRetry> {
    checkIds(ids, 'retryIds');
    const unique = [...new Set(ids)];
    const records = await this.store.deadLettersById(unique);
    const skipped: DeadLetterRetry['skipped'] = [];
    const wanted: string[] = [];
    records.forEach((record, i) => {
      if (record === null) skipped.push({ id: unique[i], reason: 'gone' });
      else if (!retryable(record)) skipped.push({ id: unique[i], reason: 'unreadable' });
      else wanted.push(record.id);
    });
    const retried = await this.store.retryDeadLetters(wanted, Date.now());
    const done = new Set(retried);
    for (const id of wanted) if (!done.has(id)) skipped.push({ id, reason: 'live' });
    return { retried, skipped };
  }

  /** Delete the dead letters `ids`; returns how many of them there were. */
  async delete(ids: readonly string[]): Promise<number> {
    checkIds(ids, 'delete');
    return this.store.deleteDeadLetters(ids);
  }

  /** Delete every dead letter; returns how many there were. */
  purge(): Promise<number> {
    return this.store.purgeDeadLetters();
  }
}

function entryOf(letter: DeadLetterRecord): DeadLetterEntry {
  return {
    id: letter.id,
    key: letter.key,
    taskName: letter.taskName,
    args: decodeOrRaw(letter.args),
    error: letter.error,
    ...(letter.stack ? { errorStack: letter.stack } : {}),
    attempt: letter.attempt,
    deadAt: new Date(letter.deadAt),
  };
}

/** The test of a search on a letter as stored (its arguments as their JSON text). */
function searchOf(
  task: string | undefined,
  search: string | undefined,
  inArguments: boolean,
): (letter: DeadLetterRecord) => boolean {
  return (letter) => {
    if (task !== undefined && letter.taskName !== task) return false;
    if (search === undefined) return true;
    return (
      letter.key.toLowerCase().startsWith(search) ||
      letter.taskName.toLowerCase().includes(search) ||
      letter.error.toLowerCase().includes(search) ||
      (inArguments && letter.args.toLowerCase().includes(search))
    );
  };
}

/** Whether a dead letter can be scheduled again: it names its key and task, and decodes. */
function retryable(letter: DeadLetterRecord): boolean {
  return Boolean(letter.key && letter.taskName && decodable(letter.args));
}

function decodable(text: string): boolean {
  try {
    decodeArgs(text);
    return true;
  } catch {
    return false;
  }
}
