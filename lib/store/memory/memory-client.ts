import { EventEmitter } from 'node:events';
import type { CommandArg, RedisCommands } from '../redis-commands.js';
import {
  loadLua,
  memoryServer,
  whenLuaLoaded,
  type Arg,
  type MemoryServer,
  type Reply,
} from './memory-server.js';

/** Commands a client offers as methods (the ones the engine, its CLI and its tests issue). */
const COMMAND_METHODS = [
  'ping',
  'get',
  'set',
  'del',
  'unlink',
  'exists',
  'pexpire',
  'expire',
  'pttl',
  'ttl',
  'persist',
  'keys',
  'type',
  'dbsize',
  'flushdb',
  'flushall',
  'incr',
  'publish',
  'hget',
  'hmget',
  'hgetall',
  'hset',
  'hmset',
  'hdel',
  'hincrby',
  'hlen',
  'hexists',
  'zadd',
  'zrem',
  'zcard',
  'zscore',
  'zmscore',
  'zrange',
  'zrangebyscore',
  'zrevrangebyscore',
  'zcount',
  'zremrangebyscore',
  'rpush',
  'lpush',
  'lpop',
  'lrem',
  'lrange',
  'llen',
  'sadd',
  'srem',
  'smembers',
  'scard',
  'sismember',
  'xadd',
  'xlen',
  'xrange',
  'xrevrange',
  'xdel',
  'xack',
  'xtrim',
  'xgroup',
  'xautoclaim',
  'xclaim',
  'xpending',
  'xinfo',
  'script',
] as const;

type Outcome = [Error | null, unknown];

/** A queued batch of commands; `exec` runs them at once (nothing runs in between). */
class MemoryPipeline {
  private readonly queued: [string, Arg[]][] = [];

  constructor(private readonly client: MemoryClient) {
    const proxy: MemoryPipeline = new Proxy(this, {
      get(target, property, receiver) {
        if (property in target || typeof property !== 'string') {
          return Reflect.get(target, property, receiver) as unknown;
        }
        return (...args: unknown[]) => {
          target.queued.push([property, args.flat() as Arg[]]);
          return proxy;
        };
      },
    });
    return proxy;
  }

  get length(): number {
    return this.queued.length;
  }

  exec(): Promise<Outcome[]> {
    if (this.client.status !== 'ready') {
      return Promise.reject(new Error('Connection is closed.'));
    }
    return whenLuaLoaded(() =>
      this.queued.map(([name, args]): Outcome => {
        try {
          if (name === 'call')
            return [null, this.client.execute(String(args[0]), args.slice(1), true)];
          return [null, this.client.execute(name, args)];
        } catch (error) {
          return [error as Error, null];
        }
      }),
    );
  }
}

/**
 * A client of a `memory://` server with the shape of an ioredis client: commands by name with
 * Redis' replies, scripts (the same Lua, run in process), pub/sub ('message' events), blocking
 * XREADGROUP that CLIENT UNBLOCK ends, and for tests the usual command methods and pipelines.
 * Nothing goes over a network; every client of the same URL in this process sees the same
 * data.
 */
export class MemoryClient extends EventEmitter implements RedisCommands {
  status: 'ready' | 'end' = 'ready';
  readonly server: MemoryServer;
  readonly clientId: number;
  private readonly channels = new Set<string>();
  private readonly patterns = new Set<string>();
  private unblockRead?: (error?: Error) => void;

  constructor(target: string | MemoryServer) {
    super();
    // the Lua VM loads while the caller sets up; commands before it is ready wait for it
    loadLua().catch(() => undefined);
    this.server = typeof target === 'string' ? memoryServer(target) : target;
    this.clientId = this.server.connect({
      unblock: () => {
        if (!this.unblockRead) return false;
        this.unblockRead();
        return true;
      },
    });
  }

  /** A new client of the same server (what ioredis' `duplicate` gives). */
  duplicate(): MemoryClient {
    return new MemoryClient(this.server);
  }

  connect(): Promise<void> {
    return this.status === 'ready'
      ? Promise.resolve()
      : Promise.reject(new Error('Connection is closed.'));
  }

  disconnect(): void {
    if (this.status === 'end') return;
    this.status = 'end';
    this.server.unsubscribe(this);
    this.server.punsubscribe(this);
    this.channels.clear();
    this.patterns.clear();
    this.server.disconnect(this.clientId);
    this.unblockRead?.(new Error('Connection is closed.'));
    this.emit('close');
    this.emit('end');
  }

  async quit(): Promise<'OK'> {
    this.disconnect();
    return 'OK';
  }

  evalsha(sha: string, numberOfKeys: number, ...keysAndArgs: CommandArg[]): Promise<unknown> {
    return this.call('EVALSHA', sha, numberOfKeys, ...keysAndArgs);
  }

  eval(script: string, numberOfKeys: number, ...keysAndArgs: CommandArg[]): Promise<unknown> {
    return this.call('EVAL', script, numberOfKeys, ...keysAndArgs);
  }

  pipeline(): MemoryPipeline {
    return new MemoryPipeline(this);
  }

  multi(): MemoryPipeline {
    return new MemoryPipeline(this);
  }

  /** Called by the server for a message on a channel this client subscribed to. */
  deliver(channel: string, message: string): void {
    if (this.status === 'ready' && this.channels.has(channel)) {
      this.emit('message', channel, message);
    }
  }

  deliverPattern(pattern: string, channel: string, message: string): void {
    if (this.status === 'ready' && this.patterns.has(pattern)) {
      this.emit('pmessage', pattern, channel, message);
    }
  }

  async psubscribe(...patterns: string[]): Promise<number> {
    this.ensureOpen();
    for (const pattern of patterns.flat()) {
      this.patterns.add(pattern);
      this.server.psubscribe(this, pattern);
    }
    return this.channels.size + this.patterns.size;
  }

  async punsubscribe(...patterns: string[]): Promise<number> {
    this.ensureOpen();
    const names = patterns.length > 0 ? patterns.flat() : [...this.patterns];
    for (const pattern of names) {
      this.patterns.delete(pattern);
      this.server.punsubscribe(this, pattern);
    }
    return this.channels.size + this.patterns.size;
  }

  async subscribe(...channels: string[]): Promise<number> {
    this.ensureOpen();
    for (const channel of channels.flat()) {
      this.channels.add(channel);
      this.server.subscribe(this, channel);
    }
    return this.channels.size;
  }

  async unsubscribe(...channels: string[]): Promise<number> {
    this.ensureOpen();
    const names = channels.length > 0 ? channels.flat() : [...this.channels];
    for (const channel of names) {
      this.channels.delete(channel);
      this.server.unsubscribe(this, channel);
    }
    return this.channels.size;
  }

  async client(subcommand: string, ...args: Arg[]): Promise<Reply> {
    this.ensureOpen();
    switch (subcommand.toUpperCase()) {
      case 'ID':
        return this.clientId;
      case 'UNBLOCK':
        return this.server.unblock(Number(args[0])) ? 1 : 0;
      case 'SETNAME':
        return 'OK';
      default:
        throw new Error(`ERR CLIENT ${subcommand} is not supported on the memory:// backend`);
    }
  }

  /** `XREADGROUP … BLOCK ms …`: waits for an entry up to `ms` (0 = for ever), or an UNBLOCK. */
  xreadgroup(...raw: Arg[]): Promise<Reply> {
    return this.blockingRead('XREADGROUP', raw);
  }

  /** `XREAD … BLOCK ms …` (ids given): as `xreadgroup`. */
  xread(...raw: Arg[]): Promise<Reply> {
    return this.blockingRead('XREAD', raw);
  }

  private async blockingRead(command: 'XREAD' | 'XREADGROUP', raw: Arg[]): Promise<Reply> {
    const args = raw.flat().map(String);
    this.ensureOpen();
    const first = await whenLuaLoaded(() => this.server.call(command, ...args));
    const block = args.findIndex((word) => word.toUpperCase() === 'BLOCK');
    if (first !== null || block < 0) return first;
    const ms = Number(args[block + 1]);
    const streams = args.findIndex((word) => word.toUpperCase() === 'STREAMS');
    const keys = args.slice(streams + 1, streams + 1 + (args.length - streams - 1) / 2);
    return new Promise<Reply>((resolve, reject) => {
      let undo: (() => void)[] = [];
      let timer: NodeJS.Timeout | undefined;
      const end = (reply: Reply, error?: Error) => {
        clearTimeout(timer);
        for (const stop of undo) stop();
        this.unblockRead = undefined;
        if (error) reject(error);
        else resolve(reply);
      };
      const listen = () => {
        for (const stop of undo) stop();
        undo = keys.map((key) => this.server.waitForStream(key, attempt));
      };
      const attempt = () => {
        try {
          const reply = this.server.call(command, ...args);
          if (reply !== null) end(reply);
          else listen();
        } catch (error) {
          end(null, error as Error);
        }
      };
      listen();
      if (ms > 0) timer = setTimeout(() => end(null), ms);
      this.unblockRead = (error?: Error) => end(null, error);
    });
  }

  /**
   * Any command by name, as ioredis' `call` (raw replies). The command runs at once (commands
   * run in call order, a script atomically), and its reply arrives in a later turn of the event
   * loop, as a server's would: a caller that keeps the process busy with commands still lets
   * timers and I/O callbacks run between them.
   */
  async call(command: string, ...args: Arg[]): Promise<unknown> {
    if (command.toUpperCase() === 'XREADGROUP') return this.xreadgroup(...args);
    if (command.toUpperCase() === 'XREAD') return this.xread(...args);
    if (command.toUpperCase() === 'CLIENT') return this.client(String(args[0]), ...args.slice(1));
    let reply: unknown;
    try {
      reply = await whenLuaLoaded(() => this.execute(command, args.flat() as Arg[], true));
    } finally {
      await new Promise((resolve) => setImmediate(resolve));
    }
    return reply;
  }

  /** Run one command now (pipelines and the command methods); `raw` keeps Redis' reply shapes. */
  execute(name: string, args: Arg[], raw = false): unknown {
    this.ensureOpen();
    const reply = this.server.call(name, ...args);
    if (!raw && name.toLowerCase() === 'hgetall') {
      const fields = reply as string[];
      const object: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) object[fields[i]] = fields[i + 1];
      return object;
    }
    return reply;
  }

  private ensureOpen(): void {
    if (this.status !== 'ready') throw new Error('Connection is closed.');
  }
}

// The usual commands as methods, as on an ioredis client.
for (const name of COMMAND_METHODS) {
  Object.defineProperty(MemoryClient.prototype, name, {
    value(this: MemoryClient, ...args: unknown[]) {
      return whenLuaLoaded(() => this.execute(name, args.flat() as Arg[]));
    },
    writable: true,
    configurable: true,
  });
}
