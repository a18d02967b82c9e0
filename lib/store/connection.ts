import { Logger } from '@nestjs/common';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { CONNECT_WAIT_MS } from '../config/defaults.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import { RedisUnavailableError } from '../errors/redis-unavailable.error.js';
import { MemoryClient } from './memory/memory-client.js';
import type { RedisCommands } from './redis-commands.js';
import { mapRedisError } from './redis-errors.js';
import { parseRedisUrl, redactUrl } from './redis-url.js';

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

const CLIENT_METHODS = ['call', 'evalsha', 'eval', 'duplicate', 'subscribe', 'on', 'disconnect'];

/**
 * Whether `value` is a Redis client rather than options: an ioredis client of this copy of
 * ioredis, or one of another copy (a monorepo, ioredis 5) recognised by its shape. A value
 * that looks like a client but lacks what the engine needs is refused, never taken for options.
 */
export function isRedisClient(value: unknown): value is RedisCommands {
  if (value instanceof Redis || value instanceof Cluster) return true;
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  const looksLikeClient =
    typeof record.sendCommand === 'function' || typeof record.call === 'function';
  if (!looksLikeClient) return false;
  const missing = CLIENT_METHODS.filter((name) => typeof record[name] !== 'function');
  if (missing.length > 0 || typeof record.status !== 'string') {
    throw new DocketConfigurationError(
      `DocketModule: option "connection" looks like a Redis client but has no ${missing.join(', ') || 'status'}; ` +
        'give an ioredis (5 or 6) Redis or Cluster client, or ioredis options.',
    );
  }
  return true;
}

/**
 * The connections of one docket: one shared client for commands, and on demand a subscriber
 * and one blocking client per worker. A client given in the options is used for commands and
 * never closed by us.
 */
export class DocketConnection {
  private readonly logger = new Logger('Docket');
  private readonly owned: RedisCommands[] = [];
  readonly commands: RedisCommands;
  readonly description: string;
  /** Whether the backend is memory:// (one process; no CLIENT ID over a network). */
  readonly inProcess: boolean;
  /** Whether the backend is a Redis Cluster (no CLIENT UNBLOCK of a blocking read). */
  readonly cluster: boolean;
  private subscriberClient?: RedisCommands;
  private closed = false;
  private readonly lastErrors = new WeakMap<RedisCommands, string>();

  constructor(url: string, connection?: RedisOptions | Redis | Cluster) {
    this.description = redactUrl(url);
    const target = parseRedisUrl(url);
    this.inProcess = target.kind === 'memory';
    if (isRedisClient(connection)) {
      if (this.inProcess) {
        throw new DocketConfigurationError(
          `DocketModule: url "${this.description}" is an in-process memory:// docket; it cannot use the ioredis client given as "connection".`,
        );
      }
      this.commands = connection;
      this.cluster =
        connection instanceof Cluster || (connection as { isCluster?: boolean }).isCluster === true;
    } else {
      this.commands = this.create(url, (connection as RedisOptions | undefined) ?? {});
      this.cluster = target.kind === 'cluster';
      this.owned.push(this.commands);
    }
  }

  private create(url: string, extra: RedisOptions): RedisCommands {
    const target = parseRedisUrl(url);
    let client: RedisCommands;
    switch (target.kind) {
      case 'memory':
        // The in-process backend: the same commands and scripts, no server (see memory/).
        client = new MemoryClient(target.id);
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

  /**
   * A new client with the settings of the command client (blocking reads, subscriptions); it
   * is closed with the others, or earlier by `release`.
   */
  duplicate(): RedisCommands {
    const client = this.commands.duplicate();
    this.watch(client);
    this.owned.push(client);
    return client;
  }

  /** Close a client made by `duplicate` before the others. */
  release(client: RedisCommands): void {
    const at = this.owned.indexOf(client);
    if (at >= 0) this.owned.splice(at, 1);
    client.disconnect();
  }

  /** Remember each client's last connection error, to say why Redis is not reachable. */
  private watch(client: RedisCommands): void {
    client.on('error', (error: Error) => {
      this.lastErrors.set(client, error.message);
      if (!this.closed) this.logger.debug(`Redis ${this.description}: ${error.message}`);
    });
    client.on('ready', () => this.lastErrors.delete(client));
  }

  /** The error a caller sees for a failed command (see `mapRedisError`). */
  error(error: unknown, client: RedisCommands = this.commands): Error {
    return mapRedisError(error, () => this.unreachable(client));
  }

  private unreachable(client: RedisCommands): string {
    const reason = this.lastErrors.get(client);
    return `Redis at ${this.description} is not reachable${reason ? ` (${reason})` : ''}`;
  }

  /** The shared subscriber client, made on first use. */
  get subscriber(): RedisCommands {
    if (!this.subscriberClient) this.subscriberClient = this.duplicate();
    return this.subscriberClient;
  }

  /**
   * Resolve once `client` can take commands; fail with `RedisUnavailableError` when it cannot
   * within `wait` ms (a client that lost its connection fails at once).
   */
  async ready(client: RedisCommands = this.commands, wait = CONNECT_WAIT_MS): Promise<void> {
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
