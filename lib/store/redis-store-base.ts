import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { DocketConnection } from './connection.js';
import { RedisDocketChannels, type StoreWarning } from './docket-channels.js';
import { DocketKeys } from './keys.js';
import { fieldsOfInfo } from './redis-replies.js';
import { ScriptRunner } from './scripts/script-runner.js';
import type { ScriptDefinition } from './scripts/script.js';

/**
 * What every part of the Redis store stands on: the docket's keys, its connection, the script
 * runner and the channels; one command or one script at a time, failures mapped alike.
 */
export abstract class RedisStoreBase {
  readonly keys: DocketKeys;
  protected readonly connection: DocketConnection;
  protected readonly scripts: ScriptRunner;
  protected readonly channels: RedisDocketChannels;

  constructor(
    name: string,
    url: string,
    connection: RedisOptions | Redis | Cluster | undefined,
    warn: StoreWarning,
  ) {
    this.keys = new DocketKeys(name);
    this.connection = new DocketConnection(url, connection);
    this.scripts = new ScriptRunner(this.connection.commands, this.keys, (error) =>
      this.connection.error(error),
    );
    this.channels = new RedisDocketChannels(this.connection, this.keys, warn);
  }

  // -- connection ------------------------------------------------------------------------

  get description(): string {
    return this.connection.description;
  }

  get connected(): boolean {
    return this.connection.commands.status === 'ready';
  }

  ready(wait?: number): Promise<void> {
    return this.connection.ready(this.connection.commands, wait);
  }

  close(): void {
    this.connection.close();
  }

  async refusesWrites(): Promise<boolean> {
    await this.ready();
    const info = fieldsOfInfo(String(await this.command('info', 'memory')));
    const max = Number(info.maxmemory ?? 0);
    return (
      max > 0 && info.maxmemory_policy === 'noeviction' && Number(info.used_memory ?? 0) >= max
    );
  }

  /** One command on the shared client, its failure mapped like a script's. */
  protected async command(name: string, ...args: (string | number)[]): Promise<unknown> {
    try {
      return await this.connection.commands.call(name, ...args);
    } catch (error) {
      throw this.connection.error(error);
    }
  }

  /** Run a script once the connection is up. */
  protected async run<I, R>(script: ScriptDefinition<I, R>, input: I): Promise<R> {
    await this.ready();
    return this.scripts.run(script, input);
  }
}
