import { describeValue } from '../util/typed-value.js';
import type { DocketRuntime } from '../docket.runtime.js';
import { decodeResult } from '../execution/codec.js';
import type { StrikeCondition, StrikeOperator } from '../interfaces/strike-condition.interface.js';
import type { StrikeView } from './dashboard-views.interface.js';

interface StrikeEntry {
  view: StrikeView;
  condition: StrikeCondition;
}

const PAGE = 1_000;

/**
 * The strikes in effect, replayed from the docket's strike log (the engine keeps its own list
 * private). Each read goes on from the last entry seen, so a poll costs one short XRANGE.
 */
export class StrikeLog {
  private readonly strikes = new Map<string, StrikeEntry>();
  private lastId = '0-0';
  private reading?: Promise<void>;

  constructor(private readonly runtime: DocketRuntime) {}

  /** The strikes in effect now, oldest first. */
  async list(): Promise<StrikeView[]> {
    await this.read();
    return [...this.strikes.values()].map((entry) => entry.view);
  }

  /** The condition a listed strike was given with, or undefined when it is not in effect. */
  async condition(id: string): Promise<StrikeCondition | undefined> {
    await this.read();
    return this.strikes.get(id)?.condition;
  }

  get size(): number {
    return this.strikes.size;
  }

  /** Read the entries after the last one seen; concurrent callers share one read. */
  read(): Promise<void> {
    this.reading ??= this.readNew().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readNew(): Promise<void> {
    const { connection, keys } = this.runtime;
    await connection.ready();
    for (;;) {
      const start = this.lastId === '0-0' ? '-' : `(${this.lastId}`;
      const entries = await connection.commands.xrange(keys.strikes, start, '+', 'COUNT', PAGE);
      for (const [id, fields] of entries) {
        this.lastId = id;
        const f: Record<string, string> = {};
        for (let i = 0; i < fields.length; i += 2) f[fields[i]] = fields[i + 1];
        this.apply(f);
      }
      if (entries.length < PAGE) return;
    }
  }

  private apply(f: Record<string, string>): void {
    // The same identity as the engine's StrikeList: task, parameter, operator, encoded value.
    const id = JSON.stringify([
      f.task || null,
      f.parameter || null,
      f.operator || '==',
      f.value ?? '',
    ]);
    if (f.op !== 'strike') {
      this.strikes.delete(id);
      return;
    }
    let value: unknown;
    try {
      value = f.value ? decodeResult(f.value) : undefined;
    } catch {
      return; // the engine ignores an entry it cannot decode; so do we
    }
    const operator = (f.operator || '==') as StrikeOperator;
    const condition: StrikeCondition = { operator };
    if (f.task) condition.task = f.task;
    if (f.parameter) {
      condition.parameter = f.parameter;
      condition.value = value;
    }
    this.strikes.set(id, {
      condition,
      view: {
        id,
        task: f.task || null,
        parameter: f.parameter || null,
        operator,
        value: f.parameter ? describeValue(value) : null,
      },
    });
  }
}
