import { fieldsToRecord, numberField } from './fields.js';
import { docketOfMarker, MARKER_PATTERN } from './keys.js';
import type { DeadLetterRecord } from './read-records.js';
import type { StreamEntry, StrikeLogEntry } from './docket-store.js';

// How the store reads the replies of plain Redis commands (scripts decode their own, in
// scripts/): pure functions, kept out of RedisDocketStore.

/** `field:value` lines of an INFO reply. */
export function fieldsOfInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** An entry of the strike log. */
export function strikeEntry([id, fields]: StreamEntry): StrikeLogEntry {
  const f = fieldsToRecord(fields);
  return {
    id,
    op: f.op === 'strike' ? 'strike' : 'restore',
    task: f.task ?? '',
    parameter: f.parameter ?? '',
    operator: f.operator || '==',
    value: f.value ?? '',
  };
}

/** An entry of the dead-letter stream. */
export function deadLetterEntry([id, fields]: StreamEntry): DeadLetterRecord {
  const f = fieldsToRecord(fields);
  return {
    id,
    key: f.key ?? '',
    taskName: f.task ?? '',
    args: f.args ?? '',
    error: f.error ?? '',
    stack: f.stack ?? '',
    attempt: numberField(f.attempt) ?? 1,
    deadAt: numberField(f.deadAt) ?? NaN,
  };
}

/**
 * The lanes in rank order from `ZRANGE lanes 0 -1 WITHSCORES` ('stream', rank 11, is not
 * listed; see lua/includes/lanes.lua).
 */
export function laneOrder(listed: readonly string[]): string[] {
  const names: string[] = [];
  let placed = false;
  for (let i = 0; i < listed.length; i += 2) {
    if (!placed && Number(listed[i + 1]) > 11) {
      names.push('stream');
      placed = true;
    }
    names.push(listed[i]);
  }
  if (!placed) names.push('stream');
  return names;
}

/**
 * The autoclaim cursor `<lane>|<stream cursor>` (a bare cursor is the default lane's) read
 * against the lanes there are: an unknown lane starts over at the first one.
 */
export function laneCursor(cursor: string, lanes: readonly string[]): [string, string] {
  const bar = cursor.indexOf('|');
  const lane = bar < 0 ? 'stream' : cursor.slice(0, bar);
  const from = bar < 0 ? cursor : cursor.slice(bar + 1);
  return lanes.includes(lane) ? [lane, from] : [lanes[0], '0-0'];
}

/** The cursor after XAUTOCLAIM answered `next` on `lane`: a lane scanned to its end hands over. */
export function nextLaneCursor(lane: string, next: string, lanes: readonly string[]): string {
  if (next !== '0-0') return `${lane}|${next}`;
  // after the last lane: the first again
  const following = lanes[(lanes.indexOf(lane) + 1) % lanes.length];
  return following === lanes[0] ? '0-0' : `${following}|0-0`;
}

/** The names of the dockets whose marker keys the nodes hold, sorted (a SCAN of each). */
export async function scanDocketNames(
  nodes: readonly { call(...args: (string | number)[]): Promise<unknown> }[],
): Promise<string[]> {
  const names = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = (await node.call(
        'scan',
        cursor,
        'MATCH',
        MARKER_PATTERN,
        'COUNT',
        1_000,
      )) as [string, string[]];
      for (const key of keys) {
        const name = docketOfMarker(key);
        if (name !== undefined) names.add(name);
      }
      cursor = next;
    } while (cursor !== '0');
  }
  return [...names].sort();
}
