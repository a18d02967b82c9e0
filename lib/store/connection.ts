import { Logger } from '@nestjs/common';
import { Cluster, Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { CONNECT_WAIT_MS } from '../docket.tokens.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { RedisUnavailableError } from '../errors/redis-unavailable.error.js';
import { MemoryRedis } from './memory/memory-redis.js';
import { defineScripts, runScript, type ScriptName } from './scripts.js';
import { parseRedisUrl, redactUrl } from './redis-url.js';

export type RedisClient = Redis | Cluster;

/**
 * Our own settings: a command issued while Redis is away fails at once instead of waiting in
 * an offline queue, and an in-flight command is not silently sent twice after a reconnect
 * (scripts are not idempotent).
 */
const ENGINE_OPTIONS: RedisOptions = {
  // connect on first use, so that an application whose boot fails leaves no socket open
  lazyConnect: true,
  enableOfflineQueue: false,
  autoResendUnfulfilledCommands: false,
  maxRetriesPerRequest: 0,
  retryStrategy: (times: number) => Math.min(50 * 2 ** Math.min(times, 10), 2_000),
};

function isClient(value: unknown): value is RedisClient {
  return value instanceof Redis || value instanceof Cluster;
}

/**
 * The connections of one docket: one shared client for commands, and on demand a subscriber
 * and one blocking client per worker. A client given in the options is used for commands and
 * never closed by us.
 */
export class DocketConnection {
  private readonly logger = new Logger('Docket');
  private readonly owned: RedisClient[] = [];
  readonly commands: RedisClient;
  readonly description: string;
  private subscriberClient?: RedisClient;
  private closed = false;
  private readonly lastErrors = new WeakMap<RedisClient, string>();

  constructor(url: string, connection?: RedisOptions | RedisClient) {
    this.description = redactUrl(url);
    if (isClient(connection)) {
      if (parseRedisUrl(url).kind === 'memory') {
        throw new DocketConfigurationError(
          `DocketModule: url "${this.description}" is an in-process memory:// docket; it cannot use the ioredis client given as "connection".`,
        );
      }
      this.commands = connection;
    } else {
      this.commands = this.create(url, connection ?? {});
      this.owned.push(this.commands);
    }
    defineScripts(this.commands);
  }

  private create(url: string, extra: RedisOptions): RedisClient {
    const target = parseRedisUrl(url);
    let client: RedisClient;
    switch (target.kind) {
      case 'memory':
        // The in-process backend: same commands and scripts, no server (see lib/memory/).
        client = new MemoryRedis(target.id) as unknown as RedisClient;
        break;
      case 'cluster':
        client = new Cluster(target.nodes, {
          ...target.options,
          lazyConnect: true,
          enableOfflineQueue: false,
          redisOptions: { ...target.options.redisOptions, ...ENGINE_OPTIONS, ...extra },
        });
        break;
      default:
        client = new Redis({ ...target.options, ...ENGINE_OPTIONS, ...extra });
    }
    this.watch(client);
    return client;
  }

  /** A new client with the settings of the command client (for blocking reads). */
  duplicate(): RedisClient {
    const client = (this.commands as Redis).duplicate() as RedisClient;
    this.watch(client);
    defineScripts(client);
    this.owned.push(client);
    return client;
  }

  /** Remember each client's last connection error, to say why Redis is not reachable. */
  private watch(client: RedisClient): void {
    client.on('error', (error: Error) => {
      this.lastErrors.set(client, error.message);
      if (!this.closed) this.logger.debug(`Redis ${this.description}: ${error.message}`);
    });
    client.on('ready', () => this.lastErrors.delete(client));
  }

  /**
   * The error to throw for a command that failed because the connection is down (with the
   * last reason the client saw), or `error` itself when it is about something else.
   */
  unavailable(error: unknown, client: RedisClient = this.commands): Error {
    const message = (error as Error)?.message ?? String(error);
    if (
      error instanceof RedisUnavailableError ||
      !/Stream isn't writeable|Connection is closed|ECONNREFUSED|ETIMEDOUT|ECONNRESET|EPIPE/.test(
        message,
      )
    ) {
      return error as Error;
    }
    return new RedisUnavailableError(this.unreachable(client));
  }

  private unreachable(client: RedisClient): string {
    const reason = this.lastErrors.get(client);
    return `Redis at ${this.description} is not reachable${reason ? ` (${reason})` : ''}`;
  }

  /** Run a script on the command client; a dropped connection fails as `RedisUnavailableError`. */
  async script<T>(
    name: ScriptName,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<T> {
    try {
      return await runScript<T>(this.commands, name, keys, args);
    } catch (error) {
      throw this.unavailable(error);
    }
  }

  /** The shared subscriber client, made on first use. */
  get subscriber(): RedisClient {
    if (!this.subscriberClient) this.subscriberClient = this.duplicate();
    return this.subscriberClient;
  }

  /**
   * Resolve once `client` can take commands; fail with `RedisUnavailableError` when it cannot
   * within `wait` ms (a client that lost its connection fails at once).
   */
  async ready(client: RedisClient = this.commands, wait = CONNECT_WAIT_MS): Promise<void> {
    if (client.status === 'ready') return;
    if (this.closed) throw new RedisUnavailableError('the docket connection is closed');
    if (client.status === 'wait') void client.connect().catch(() => undefined);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off('ready', onReady);
        reject(new RedisUnavailableError(this.unreachable(client)));
      }, wait);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      client.once('ready', onReady);
    });
  }

  /** Close every client we opened; never waits on an unreachable server. */
  close(): void {
    this.closed = true;
    for (const client of this.owned.splice(0)) client.disconnect();
  }
}
