import type { DocketConnection } from './connection.js';
import type { DeliveryReader, StreamEntry } from './docket-store.js';
import type { DocketKeys } from './keys.js';
import { CONSUMER_GROUP } from './keys.js';
import type { RedisCommands } from './redis-commands.js';
import { classifyRedisError } from './redis-errors.js';

/**
 * Blocking reads of new messages for one consumer, on a connection of its own. A read in
 * flight is ended by CLIENT UNBLOCK from the command connection (not on a Cluster, where the
 * read then ends by its own timeout).
 */
export class RedisDeliveryReader implements DeliveryReader {
  private readonly client: RedisCommands;
  private clientId?: number;
  private reading = false;
  private interrupted = false;

  constructor(
    private readonly connection: DocketConnection,
    private readonly keys: DocketKeys,
    private readonly consumer: string,
    /** Makes the group again when it is gone (the stream was deleted: a FLUSHDB, a clear by hand). */
    private readonly ensureGroup: () => Promise<void>,
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
  }

  async read(count: number, blockMs: number): Promise<StreamEntry[]> {
    await this.connection.ready(this.client);
    if (this.interrupted) {
      this.interrupted = false;
      return [];
    }
    this.reading = true;
    try {
      const reply = (await this.client.call(
        'xreadgroup',
        ...['GROUP', CONSUMER_GROUP, this.consumer, 'COUNT', count, 'BLOCK', blockMs],
        ...['STREAMS', this.keys.stream, '>'],
      )) as [string, StreamEntry[]][] | null;
      return reply?.[0]?.[1] ?? [];
    } catch (error) {
      if (classifyRedisError(error) !== 'nogroup') throw this.connection.error(error, this.client);
      await this.ensureGroup();
      return [];
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
    this.connection.release(this.client);
  }
}
