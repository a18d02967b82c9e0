import type { DocketConnection } from './connection.js';
import type { DeliveryReader, StreamEntry, Unsubscribe } from './docket-store.js';
import type { DocketKeys } from './keys.js';
import { CONSUMER_GROUP } from './keys.js';
import type { RedisCommands } from './redis-commands.js';
import { classifyRedisError } from './redis-errors.js';

/** The lane every producer writes to (priority 5); see lua/includes/lanes.lua. */
const DEFAULT_LANE = 'stream';

/** What the reader needs of the store besides its connection. */
export interface ReaderEnv {
  /** Makes the groups again when one is gone (a FLUSHDB, a clear by hand). */
  ensureGroup(): Promise<void>;
  /**
   * read-lanes-1.lua: every lane, new messages in rank order, and (when none was read) the last
   * id of each lane.
   */
  readLanes(
    consumer: string,
    count: number,
  ): Promise<{ lanes: string[]; lastIds: string[]; entries: StreamEntry[] }>;
  /** Subscribe to the announcement of a new lane. */
  onLane(handler: () => void): Promise<Unsubscribe>;
}

/**
 * Blocking reads of new messages for one consumer, on a connection of its own. A read in
 * flight is ended by CLIENT UNBLOCK from the command connection (not on a Cluster, where the
 * read then ends by its own timeout).
 *
 * While every task has the default priority the docket has one lane and a read is one
 * XREADGROUP, as it always was. Once it has more, a read takes what is there from the lanes in
 * rank order (a script) and, when they are all empty, waits (XREAD, which reads nothing for
 * the group) until one of them grows, then takes what is there in rank order again: work that
 * arrives together in several lanes is read by priority. A new lane is announced, which ends a
 * wait so that the next read sees it.
 */
export class RedisDeliveryReader implements DeliveryReader {
  private readonly client: RedisCommands;
  private clientId?: number;
  private reading = false;
  private interrupted = false;
  /** Every lane in rank order, as last seen. */
  private laneNames: string[] = [DEFAULT_LANE];
  private lanesKnown = false;
  private readonly unsubscribe: Promise<Unsubscribe | undefined>;

  constructor(
    private readonly connection: DocketConnection,
    private readonly keys: DocketKeys,
    private readonly consumer: string,
    private readonly env: ReaderEnv,
  ) {
    this.client = connection.duplicate();
    if (!connection.cluster) {
      const fetchId = () =>
        void this.client.call('client', 'ID').then(
          (id) => (this.clientId = Number(id)),
          () => undefined,
        );
      this.client.on('ready', fetchId);
      if (this.client.status === 'ready') fetchId();
    }
    this.unsubscribe = env
      .onLane(() => {
        this.lanesKnown = false;
        this.interrupt();
      })
      .catch(() => undefined);
  }

  get lanes(): number {
    return this.laneNames.length;
  }

  async read(count: number, blockMs: number): Promise<StreamEntry[]> {
    await this.connection.ready(this.client);
    if (this.interrupted) {
      this.interrupted = false;
      return [];
    }
    try {
      if (this.lanesKnown && this.laneNames.length === 1) return await this.block(count, blockMs);
      // what the lanes hold, in rank order (and which lanes there are)
      const first = await this.env.readLanes(this.consumer, count);
      this.laneNames = first.lanes;
      this.lanesKnown = true;
      if (first.entries.length > 0 || this.interrupted) {
        this.interrupted = false;
        return first.entries;
      }
      if (first.lanes.length === 1) return await this.block(count, blockMs);
      if (!(await this.wait(first.lanes, first.lastIds, blockMs))) return [];
      const next = await this.env.readLanes(this.consumer, count);
      this.laneNames = next.lanes;
      return next.entries;
    } catch (error) {
      if (classifyRedisError(error) !== 'nogroup') throw this.connection.error(error, this.client);
      await this.env.ensureGroup();
      return [];
    }
  }

  /** Wait up to `blockMs` for new messages of the one lane, and read up to `count`. */
  private async block(count: number, blockMs: number): Promise<StreamEntry[]> {
    this.reading = true;
    try {
      const reply = (await this.client.call(
        'xreadgroup',
        ...['GROUP', CONSUMER_GROUP, this.consumer, 'COUNT', count, 'BLOCK', blockMs],
        ...['STREAMS', this.keys.lane(DEFAULT_LANE), '>'],
      )) as [string, StreamEntry[]][] | null;
      return reply?.[0]?.[1] ?? [];
    } finally {
      this.reading = false;
    }
  }

  /**
   * Wait up to `blockMs` for an entry after `lastIds` in any of `lanes`, reading nothing for
   * the group; whether one came.
   */
  private async wait(lanes: string[], lastIds: string[], blockMs: number): Promise<boolean> {
    this.reading = true;
    try {
      const reply = await this.client.call(
        'xread',
        ...['COUNT', 1, 'BLOCK', blockMs, 'STREAMS'],
        ...lanes.map((lane) => this.keys.lane(lane)),
        ...lastIds,
      );
      return reply !== null;
    } finally {
      this.reading = false;
    }
  }

  interrupt(): void {
    if (!this.reading) {
      this.interrupted = true;
      return;
    }
    const commands = this.connection.commands;
    if (this.clientId === undefined || commands.status !== 'ready') return;
    void commands.call('client', 'UNBLOCK', this.clientId).catch(() => undefined);
  }

  close(): void {
    void this.unsubscribe.then((stop) => stop?.());
    this.connection.release(this.client);
  }
}
