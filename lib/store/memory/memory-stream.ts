/** A stream entry id as [milliseconds, sequence]. */
export type StreamId = readonly [number, number];

export const ZERO_ID: StreamId = [0, 0];

export function formatId(id: StreamId): string {
  return `${id[0]}-${id[1]}`;
}

/** Parse `ms-seq` or `ms` (then the sequence is `missing`). */
export function parseId(text: string, missing = 0): StreamId {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) throw new Error('ERR Invalid stream ID specified as stream command argument');
  return [Number(match[1]), match[2] === undefined ? missing : Number(match[2])];
}

export function compareIds(a: StreamId, b: StreamId): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/** A range bound of XRANGE: `-`, `+`, `(id` (exclusive) or `id`. */
export function rangeStart(text: string): { id: StreamId; exclusive: boolean } {
  if (text === '-') return { id: ZERO_ID, exclusive: false };
  if (text.startsWith('(')) return { id: parseId(text.slice(1)), exclusive: true };
  return { id: parseId(text), exclusive: false };
}

export function rangeEnd(text: string): { id: StreamId; exclusive: boolean } {
  if (text === '+') return { id: [Infinity, Infinity], exclusive: false };
  if (text.startsWith('(')) {
    return { id: parseId(text.slice(1), Number.MAX_SAFE_INTEGER), exclusive: true };
  }
  return { id: parseId(text, Number.MAX_SAFE_INTEGER), exclusive: false };
}

export interface PendingEntry {
  consumer: string;
  deliveredAt: number;
  deliveries: number;
}

export interface ConsumerGroup {
  lastDelivered: StreamId;
  /** Delivered, not acknowledged: id → who holds it. Kept in id order. */
  pending: Map<string, PendingEntry>;
  consumers: Map<string, { seenAt: number }>;
}

/** A Redis stream: entries in id order, with consumer groups. */
export class MemoryStream {
  /** id → flat field list; a Map keeps insertion order, which is id order. */
  readonly entries = new Map<string, string[]>();
  readonly ids = new Map<string, StreamId>();
  lastId: StreamId = ZERO_ID;
  readonly groups = new Map<string, ConsumerGroup>();

  /** The next automatic id at `now`. */
  nextId(now: number): StreamId {
    return now > this.lastId[0] ? [now, 0] : [this.lastId[0], this.lastId[1] + 1];
  }

  append(id: StreamId, fields: string[]): string {
    if (compareIds(id, this.lastId) <= 0) {
      throw new Error(
        'ERR The ID specified in XADD is equal or smaller than the target stream top item',
      );
    }
    const text = formatId(id);
    this.entries.set(text, fields);
    this.ids.set(text, id);
    this.lastId = id;
    return text;
  }

  delete(id: string): boolean {
    this.ids.delete(id);
    return this.entries.delete(id);
  }

  /** Entries between the bounds, in id order (reversed when `reverse`). */
  range(
    start: { id: StreamId; exclusive: boolean },
    end: { id: StreamId; exclusive: boolean },
    count = Infinity,
  ): [string, string[]][] {
    const out: [string, string[]][] = [];
    for (const [text, fields] of this.entries) {
      if (out.length >= count) break;
      const id = this.ids.get(text)!;
      const fromStart = compareIds(id, start.id);
      if (fromStart < 0 || (fromStart === 0 && start.exclusive)) continue;
      const toEnd = compareIds(id, end.id);
      if (toEnd > 0 || (toEnd === 0 && end.exclusive)) break;
      out.push([text, [...fields]]);
    }
    return out;
  }

  /** Remove entries with an id below `min`; returns how many. */
  trimBelow(min: StreamId): number {
    let removed = 0;
    for (const [text, id] of this.ids) {
      if (compareIds(id, min) >= 0) break;
      this.delete(text);
      removed++;
    }
    return removed;
  }

  group(name: string, command: string, key: string): ConsumerGroup {
    const group = this.groups.get(name);
    if (!group) {
      throw new Error(
        `NOGROUP No such key '${key}' or consumer group '${name}' in ${command} with GROUP option`,
      );
    }
    return group;
  }
}
