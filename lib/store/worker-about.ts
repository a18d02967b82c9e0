/**
 * What a worker tells about itself when it registers (`{name}:worker-info:<worker>`, JSON,
 * rewritten with its task registry and expiring with it). Every field may be null: a worker
 * of an older version writes nothing, and a field that does not read is dropped alone.
 */
export interface WorkerAbout {
  /** Host name of its machine (`os.hostname()`). */
  host: string | null;
  /** Process id. */
  pid: number | null;
  /** When its worker started, epoch ms. */
  startedAt: number | null;
  /** The nestjs-docket version it runs. */
  version: string | null;
  /** How many tasks it runs at once, at most. */
  concurrency: number | null;
}

export function encodeWorkerAbout(about: WorkerAbout): string {
  return JSON.stringify(about);
}

const NOTHING: WorkerAbout = {
  host: null,
  pid: null,
  startedAt: null,
  version: null,
  concurrency: null,
};

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function whole(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/** The stored text read back, field by field; all null for none ('') or for text not JSON. */
export function decodeWorkerAbout(stored: unknown): WorkerAbout {
  if (typeof stored !== 'string' || stored === '') return { ...NOTHING };
  let data: unknown;
  try {
    data = JSON.parse(stored);
  } catch {
    return { ...NOTHING };
  }
  if (typeof data !== 'object' || data === null) return { ...NOTHING };
  const given = data as Record<string, unknown>;
  return {
    host: text(given.host),
    pid: whole(given.pid),
    // (a time a Date can hold)
    startedAt: (whole(given.startedAt) ?? Infinity) <= 8.64e15 ? whole(given.startedAt) : null,
    version: text(given.version),
    concurrency: whole(given.concurrency),
  };
}
