import type { MemoryLua } from './memory-lua.js';
import { parseScoreBound, SortedSet } from './sorted-set.js';
import {
  compareIds,
  formatId,
  MemoryStream,
  parseId,
  rangeEnd,
  rangeStart,
  type StreamId,
} from './memory-stream.js';

/**
 * The Lua VM (fengari) is loaded on the first memory:// client, not with the package: a process
 * that only talks to Redis never loads it (about 4 MiB less resident memory for a booted worker).
 */
let lua: MemoryLua | undefined;
let loading: Promise<void> | undefined;
/** Commands waiting for the VM: later ones wait behind them, so that order holds. */
let waiting = 0;

/** Load the Lua VM once (every memory:// server of the process shares it). */
export function loadLua(): Promise<void> {
  return (loading ??= import('./memory-lua.js').then((m) => {
    lua = m.sharedLua();
  }));
}

/**
 * Run `command` once the Lua VM is loaded: at once (in this turn) when it is and nothing waits
 * for it, else after every command that waits, in the order they came.
 */
export function whenLuaLoaded<T>(command: () => T): Promise<T> {
  if (lua && waiting === 0) {
    try {
      return Promise.resolve(command());
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  waiting++;
  const run = loadLua().then(command);
  const done = () => {
    waiting--;
  };
  run.then(done, done);
  return run;
}

function vm(): MemoryLua {
  if (!lua) throw new Error('ERR the memory:// Lua VM is not loaded yet (use a MemoryClient)');
  return lua;
}

/** A reply as Redis gives it: nil, an integer, a bulk string or an array of replies. */
export type Reply = null | number | string | Reply[];
export type Arg = string | number | Buffer;

type Value =
  | { type: 'string'; value: string }
  | { type: 'hash'; value: Map<string, string> }
  | { type: 'zset'; value: SortedSet }
  | { type: 'list'; value: string[] }
  | { type: 'set'; value: Set<string> }
  | { type: 'stream'; value: MemoryStream };

type TypeName = Value['type'];
type ValueOf<T extends TypeName> = Extract<Value, { type: T }>['value'];

/** Receives what is published on the channels it subscribed to. */
export interface MemorySubscriber {
  deliver(channel: string, message: string): void;
  /** A message on `channel`, which matched the glob `pattern` this subscriber gave. */
  deliverPattern(pattern: string, channel: string, message: string): void;
}

/** Keys with a TTL the background sweep looks at per second (Redis samples too). */
const SWEEP_BATCH = 20_000;

const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

function integer(text: string, what = 'value'): number {
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw new Error(`ERR ${what} is not an integer or out of range`);
  return n;
}

/** A ZADD score as Redis reads it: a float, `inf`, `+inf` or `-inf`. */
function parseScore(text: string): number {
  if (/^[+-]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    throw new Error('ERR value is not a valid float');
  }
  return Number(text);
}

function formatScore(score: number): string {
  return score === Infinity ? 'inf' : score === -Infinity ? '-inf' : String(score);
}

/** Members of a sorted-set range as ZRANGE answers them: each followed by its score WITHSCORES. */
function scoredReply(range: [string, number][], withScores: boolean): string[] {
  return withScores
    ? range.flatMap(([member, score]) => [member, formatScore(score)])
    : range.map(([member]) => member);
}

/** A Redis glob (`*`, `?`, `[…]`, `\x`) as a regular expression. */
function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') source += '.*';
    else if (c === '?') source += '.';
    else if (c === '\\' && i + 1 < pattern.length) source += `\\${pattern[++i]}`;
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close < 0) source += '\\[';
      else {
        const body = pattern.slice(i + 1, close).replace(/\\/g, '\\\\');
        source += `[${body.startsWith('^') ? `^${body.slice(1)}` : body}]`;
        i = close;
      }
    } else source += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/**
 * The options of XREAD / XREADGROUP from `start` (COUNT, BLOCK, NOACK for a group read) up to
 * STREAMS, and what follows it: the keys, then their ids.
 */
function readArguments(
  args: string[],
  start: number,
  group: boolean,
): { count: number; rest: string[] } {
  let count = Infinity;
  let i = start;
  for (; i < args.length; i++) {
    const word = args[i].toUpperCase();
    if (word === 'COUNT') count = integer(args[++i]);
    else if (word === 'BLOCK') i++;
    else if (group && word === 'NOACK') continue;
    else if (word === 'STREAMS') break;
    else throw new Error('ERR syntax error');
  }
  return { count, rest: args.slice(i + 1) };
}

/**
 * The data of one `memory://` docket server: Redis' data types with expiry, streams with
 * consumer groups, and pub/sub, all in this process. Every command runs synchronously, so a
 * script (a function that issues several commands) is atomic like a Lua script on Redis.
 */
export class MemoryServer {
  private readonly data = new Map<string, Value>();
  private readonly expires = new Map<string, number>();
  private readonly channels = new Map<string, Set<MemorySubscriber>>();
  private readonly patterns = new Map<
    string,
    { regexp: RegExp; subscribers: Set<MemorySubscriber> }
  >();
  private readonly streamWaiters = new Map<string, Set<() => void>>();
  private sweeper?: NodeJS.Timeout;
  private nextClientId = 1;
  /** Connected clients by id, for CLIENT UNBLOCK. */
  private readonly clients = new Map<number, { unblock(): boolean }>();

  /** The scripts loaded on this server (compiled once per process, see `loadLua`). */
  private readonly scripts = new Set<string>();

  constructor(readonly id: string) {}

  /** EVAL / EVALSHA: run a script (by its text, cached, or by its SHA1) atomically. */
  evaluate(byText: boolean, args: string[]): Reply {
    const [script, count, ...rest] = args;
    const numberOfKeys = integer(count ?? '', 'numkeys');
    if (numberOfKeys < 0 || numberOfKeys > rest.length) {
      throw new Error("ERR Number of keys can't be greater than number of args");
    }
    const sha = byText ? this.load(script) : script.toLowerCase();
    if (!this.scripts.has(sha)) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
    return vm().call(sha, rest.slice(0, numberOfKeys), rest.slice(numberOfKeys), (c, a) =>
      this.call(c, ...a),
    );
  }

  private load(body: string): string {
    const sha = vm().load(body);
    this.scripts.add(sha);
    return sha;
  }

  /** SCRIPT LOAD | EXISTS | FLUSH. */
  script(args: string[]): Reply {
    const [sub, ...rest] = args;
    switch (sub?.toUpperCase()) {
      case 'LOAD':
        return this.load(rest[0]);
      case 'EXISTS':
        return rest.map((sha) => (this.scripts.has(sha.toLowerCase()) ? 1 : 0));
      case 'FLUSH':
        this.scripts.clear();
        return 'OK';
      default:
        throw new Error(`ERR unknown subcommand '${sub}' of SCRIPT on the memory:// backend`);
    }
  }

  /** Register a client; returns its id. */
  connect(client: { unblock(): boolean }): number {
    const id = this.nextClientId++;
    this.clients.set(id, client);
    // Expired keys nobody reads again are dropped in the background while clients are
    // connected, as Redis does; the data itself stays for the next client of this URL.
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), 1_000);
      this.sweeper.unref();
    }
    return id;
  }

  disconnect(id: number): void {
    this.clients.delete(id);
    if (this.clients.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** CLIENT UNBLOCK: end the blocking read of client `id`; whether one was blocked. */
  unblock(id: number): boolean {
    return this.clients.get(id)?.unblock() ?? false;
  }

  /** Where the background sweep goes on from: it looks at SWEEP_BATCH keys a second. */
  private sweepCursor?: Iterator<[string, number]>;

  private sweep(): void {
    const now = Date.now();
    this.sweepCursor ??= this.expires.entries();
    for (let i = 0; i < SWEEP_BATCH; i++) {
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = undefined;
        return;
      }
      const [key, at] = next.value;
      if (at <= now) this.remove(key);
    }
  }

  private remove(key: string): boolean {
    this.expires.delete(key);
    return this.data.delete(key);
  }

  private lookup(key: string): Value | undefined {
    const at = this.expires.get(key);
    if (at !== undefined && at <= Date.now()) this.remove(key);
    return this.data.get(key);
  }

  private read<T extends TypeName>(key: string, type: T): ValueOf<T> | undefined {
    const found = this.lookup(key);
    if (!found) return undefined;
    if (found.type !== type) throw new Error(WRONGTYPE);
    return found.value as never;
  }

  private write<T extends TypeName>(key: string, type: T, make: () => ValueOf<T>): ValueOf<T> {
    const found = this.read(key, type);
    if (found) return found;
    const value = make();
    this.data.set(key, { type, value } as Value);
    return value;
  }

  /** Delete a collection that became empty (Redis keeps no empty hash, set, zset or list). */
  private prune(key: string, size: number): void {
    if (size === 0) this.remove(key);
  }

  // -- pub/sub ---------------------------------------------------------------------------

  subscribe(subscriber: MemorySubscriber, channel: string): void {
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(subscriber);
  }

  unsubscribe(subscriber: MemorySubscriber, channel?: string): void {
    for (const [name, set] of this.channels) {
      if (channel !== undefined && name !== channel) continue;
      set.delete(subscriber);
      if (set.size === 0) this.channels.delete(name);
    }
  }

  psubscribe(subscriber: MemorySubscriber, pattern: string): void {
    let entry = this.patterns.get(pattern);
    if (!entry) {
      entry = { regexp: globToRegExp(pattern), subscribers: new Set() };
      this.patterns.set(pattern, entry);
    }
    entry.subscribers.add(subscriber);
  }

  punsubscribe(subscriber: MemorySubscriber, pattern?: string): void {
    for (const [name, entry] of this.patterns) {
      if (pattern !== undefined && name !== pattern) continue;
      entry.subscribers.delete(subscriber);
      if (entry.subscribers.size === 0) this.patterns.delete(name);
    }
  }

  publish(channel: string, message: string): number {
    const receivers = [...(this.channels.get(channel) ?? [])];
    const matched: [string, MemorySubscriber][] = [];
    for (const [pattern, entry] of this.patterns) {
      if (!entry.regexp.test(channel)) continue;
      for (const subscriber of entry.subscribers) matched.push([pattern, subscriber]);
    }
    if (receivers.length === 0 && matched.length === 0) return 0;
    // delivered after the command (or script) that published, as over a socket
    setImmediate(() => {
      for (const subscriber of receivers) subscriber.deliver(channel, message);
      for (const [pattern, subscriber] of matched) {
        subscriber.deliverPattern(pattern, channel, message);
      }
    });
    return receivers.length + matched.length;
  }

  /** Call `wake` (once) when an entry is added to stream `key`. */
  waitForStream(key: string, wake: () => void): () => void {
    let set = this.streamWaiters.get(key);
    if (!set) this.streamWaiters.set(key, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.streamWaiters.get(key) === set) this.streamWaiters.delete(key);
    };
  }

  private streamGrew(key: string): void {
    const set = this.streamWaiters.get(key);
    if (!set || set.size === 0) return;
    this.streamWaiters.delete(key);
    queueMicrotask(() => {
      for (const wake of set) wake();
    });
  }

  // -- commands --------------------------------------------------------------------------

  /** Run one command; throws an Error whose message starts like Redis' error reply. */
  call(command: string, ...raw: Arg[]): Reply {
    const args = raw.map((a) => (typeof a === 'string' ? a : String(a)));
    const handler = COMMANDS[command.toUpperCase()];
    if (!handler) throw new Error(`ERR unknown command '${command}' on the memory:// backend`);
    return handler.call(this, args);
  }

  // strings and keys

  get(key: string): string | null {
    return this.read(key, 'string') ?? null;
  }

  set(args: string[]): Reply {
    const [key, value, ...options] = args;
    let ttl: number | undefined;
    let nx = false;
    let xx = false;
    for (let i = 0; i < options.length; i++) {
      const option = options[i].toUpperCase();
      if (option === 'PX') ttl = integer(options[++i]);
      else if (option === 'EX') ttl = integer(options[++i]) * 1_000;
      else if (option === 'NX') nx = true;
      else if (option === 'XX') xx = true;
      else throw new Error(`ERR syntax error (SET option ${options[i]})`);
    }
    const exists = this.lookup(key) !== undefined;
    if ((nx && exists) || (xx && !exists)) return null;
    this.data.set(key, { type: 'string', value });
    this.expires.delete(key);
    if (ttl !== undefined) this.expires.set(key, Date.now() + ttl);
    return 'OK';
  }

  del(keys: string[]): number {
    let removed = 0;
    for (const key of keys) if (this.lookup(key) && this.remove(key)) removed++;
    return removed;
  }

  exists(keys: string[]): number {
    return keys.filter((key) => this.lookup(key) !== undefined).length;
  }

  pexpire(key: string, ms: number): number {
    if (!this.lookup(key)) return 0;
    if (ms <= 0) this.remove(key);
    else this.expires.set(key, Date.now() + ms);
    return 1;
  }

  pttl(key: string): number {
    if (!this.lookup(key)) return -2;
    const at = this.expires.get(key);
    return at === undefined ? -1 : Math.max(0, at - Date.now());
  }

  persist(key: string): number {
    return this.lookup(key) && this.expires.delete(key) ? 1 : 0;
  }

  keys(pattern: string): string[] {
    const regexp = globToRegExp(pattern);
    return [...this.data.keys()].filter((key) => this.lookup(key) && regexp.test(key));
  }

  type(key: string): string {
    return this.lookup(key)?.type ?? 'none';
  }

  flush(): void {
    this.data.clear();
    this.expires.clear();
  }

  // hashes

  hash(key: string): Map<string, string> | undefined {
    return this.read(key, 'hash');
  }

  hset(key: string, pairs: string[]): number {
    if (pairs.length === 0 || pairs.length % 2 !== 0) {
      throw new Error("ERR wrong number of arguments for 'hset' command");
    }
    const hash = this.write(key, 'hash', () => new Map());
    let added = 0;
    for (let i = 0; i < pairs.length; i += 2) {
      if (!hash.has(pairs[i])) added++;
      hash.set(pairs[i], pairs[i + 1]);
    }
    return added;
  }

  hdel(key: string, fields: string[]): number {
    const hash = this.hash(key);
    if (!hash) return 0;
    let removed = 0;
    for (const field of fields) if (hash.delete(field)) removed++;
    this.prune(key, hash.size);
    return removed;
  }

  hincrby(key: string, field: string, by: number): number {
    const hash = this.write(key, 'hash', () => new Map());
    const value = integer(hash.get(field) ?? '0', 'hash value') + by;
    hash.set(field, String(value));
    return value;
  }

  // sorted sets

  zset(key: string): SortedSet | undefined {
    return this.read(key, 'zset');
  }

  zadd(key: string, args: string[]): number {
    let i = 0;
    let xx = false;
    let nx = false;
    for (; i < args.length; i++) {
      const flag = args[i].toUpperCase();
      if (flag === 'XX') xx = true;
      else if (flag === 'NX') nx = true;
      else break;
    }
    const pairs = args.slice(i);
    if (pairs.length === 0 || pairs.length % 2 !== 0) throw new Error('ERR syntax error');
    const existing = this.zset(key);
    if (xx && !existing) return 0;
    const zset = existing ?? this.write(key, 'zset', () => new SortedSet());
    let added = 0;
    for (let j = 0; j < pairs.length; j += 2) {
      const score = parseScore(pairs[j]);
      const member = pairs[j + 1];
      const present = zset.score(member) !== undefined;
      if ((xx && !present) || (nx && present)) continue;
      if (zset.add(member, score)) added++;
    }
    this.prune(key, zset.size);
    return added;
  }

  zrem(key: string, members: string[]): number {
    const zset = this.zset(key);
    if (!zset) return 0;
    let removed = 0;
    for (const member of members) if (zset.remove(member)) removed++;
    this.prune(key, zset.size);
    return removed;
  }

  // lists and sets

  list(key: string): string[] | undefined {
    return this.read(key, 'list');
  }

  setOf(key: string): Set<string> | undefined {
    return this.read(key, 'set');
  }

  /** The list at `key`, made empty when missing (give it an element before returning). */
  listFor(key: string): string[] {
    return this.write(key, 'list', () => []);
  }

  setFor(key: string): Set<string> {
    return this.write(key, 'set', () => new Set());
  }

  // streams

  stream(key: string): MemoryStream | undefined {
    return this.read(key, 'stream');
  }

  xadd(args: string[]): Reply {
    const key = args[0];
    let i = 1;
    let noMake = false;
    let minId: StreamId | undefined;
    let maxLen: number | undefined;
    for (;;) {
      const word = args[i]?.toUpperCase();
      if (word === 'NOMKSTREAM') {
        noMake = true;
        i++;
      } else if (word === 'MINID' || word === 'MAXLEN') {
        i++;
        if (args[i] === '~' || args[i] === '=') i++;
        if (word === 'MINID') minId = parseId(args[i++]);
        else maxLen = integer(args[i++]);
        if (args[i]?.toUpperCase() === 'LIMIT') i += 2;
      } else break;
    }
    const idText = args[i++];
    const fields = args.slice(i);
    if (fields.length === 0 || fields.length % 2 !== 0) {
      throw new Error("ERR wrong number of arguments for 'xadd' command");
    }
    if (noMake && !this.stream(key)) return null;
    const stream = this.write(key, 'stream', () => new MemoryStream());
    const id = idText === '*' ? stream.nextId(Date.now()) : parseId(idText);
    const added = stream.append(id, fields);
    if (minId) stream.trimBelow(minId);
    if (maxLen !== undefined) {
      for (const old of stream.entries.keys()) {
        if (stream.entries.size <= maxLen) break;
        stream.delete(old);
      }
    }
    this.streamGrew(key);
    return added;
  }

  /** XREADGROUP without blocking: null when nothing is there for this consumer. */
  xreadgroup(args: string[]): Reply {
    if (args[0]?.toUpperCase() !== 'GROUP') throw new Error('ERR syntax error');
    const groupName = args[1];
    const consumer = args[2];
    const { count, rest } = readArguments(args, 3, true);
    const half = rest.length / 2;
    const out: Reply[] = [];
    for (let s = 0; s < half; s++) {
      const key = rest[s];
      const from = rest[s + half];
      const stream = this.stream(key);
      if (!stream) {
        throw new Error(
          `NOGROUP No such key '${key}' or consumer group '${groupName}' in XREADGROUP with GROUP option`,
        );
      }
      const group = stream.group(groupName, 'XREADGROUP', key);
      const now = Date.now();
      group.consumers.set(consumer, { seenAt: now });
      const entries: Reply[] = [];
      if (from === '>') {
        const fresh = stream.range(
          { id: group.lastDelivered, exclusive: true },
          rangeEnd('+'),
          count,
        );
        for (const [id, fields] of fresh) {
          group.lastDelivered = stream.ids.get(id)!;
          group.pending.delete(id);
          group.pending.set(id, { consumer, deliveredAt: now, deliveries: 1 });
          entries.push([id, fields]);
        }
        if (entries.length > 0) out.push([key, entries]);
      } else {
        const after = parseId(from);
        for (const [id, entry] of group.pending) {
          if (entries.length >= count) break;
          if (entry.consumer !== consumer || compareIds(parseId(id), after) <= 0) continue;
          const fields = stream.entries.get(id);
          entries.push([id, fields ? [...fields] : null]);
        }
        out.push([key, entries]);
      }
    }
    return out.length > 0 ? out : null;
  }

  /** ZRANGEBYSCORE and ZREVRANGEBYSCORE (WITHSCORES, LIMIT offset count). */
  byScore(key: string, min: string, max: string, options: string[], reverse: boolean): Reply {
    const zset = this.zset(key);
    if (!zset) return [];
    let withScores = false;
    let offset = 0;
    let count = Infinity;
    for (let i = 0; i < options.length; i++) {
      const word = options[i].toUpperCase();
      if (word === 'WITHSCORES') withScores = true;
      else if (word === 'LIMIT') {
        offset = integer(options[++i]);
        const n = integer(options[++i]);
        count = n < 0 ? Infinity : n;
      }
    }
    const range = reverse
      ? zset
          .rangeByScore(parseScoreBound(min), parseScoreBound(max), 0, Infinity)
          .reverse()
          .slice(offset, offset + count)
      : zset.rangeByScore(parseScoreBound(min), parseScoreBound(max), offset, count);
    return scoredReply(range, withScores);
  }

  /** XREAD without blocking (ids given, not '$'): null when no stream has newer entries. */
  xread(args: string[]): Reply {
    const { count, rest } = readArguments(args, 0, false);
    const half = rest.length / 2;
    const out: Reply[] = [];
    for (let s = 0; s < half; s++) {
      const stream = this.stream(rest[s]);
      if (!stream) continue;
      if (rest[s + half] === '$') throw new Error("ERR XREAD '$' is not supported on memory://");
      const after = parseId(rest[s + half]);
      const entries = stream.range({ id: after, exclusive: true }, rangeEnd('+'), count);
      if (entries.length > 0) out.push([rest[s], entries.map(([id, f]) => [id, [...f]])]);
    }
    return out.length > 0 ? out : null;
  }

  xautoclaim(args: string[]): Reply {
    const [key, groupName, consumer, idleText, startText, ...options] = args;
    const minIdle = integer(idleText);
    let count = 100;
    let justId = false;
    for (let i = 0; i < options.length; i++) {
      const word = options[i].toUpperCase();
      if (word === 'COUNT') count = integer(options[++i]);
      else if (word === 'JUSTID') justId = true;
    }
    const stream = this.stream(key);
    if (!stream) {
      throw new Error(
        `NOGROUP No such key '${key}' or consumer group '${groupName}' in XAUTOCLAIM with GROUP option`,
      );
    }
    const group = stream.group(groupName, 'XAUTOCLAIM', key);
    const start = parseId(startText === '-' ? '0' : startText);
    const now = Date.now();
    const claimed: Reply[] = [];
    const deleted: Reply[] = [];
    let cursor = '0-0';
    let scanned = 0;
    const ordered = [...group.pending.keys()].sort((a, b) => compareIds(parseId(a), parseId(b)));
    for (const id of ordered) {
      if (compareIds(parseId(id), start) < 0) continue;
      // as on Redis, an entry found deleted counts against COUNT too
      if (scanned >= count * 10 || claimed.length + deleted.length >= count) {
        cursor = id;
        break;
      }
      scanned++;
      const entry = group.pending.get(id)!;
      if (now - entry.deliveredAt < minIdle) continue;
      const fields = stream.entries.get(id);
      if (!fields) {
        group.pending.delete(id);
        deleted.push(id);
        continue;
      }
      entry.consumer = consumer;
      entry.deliveredAt = now;
      if (!justId) entry.deliveries++;
      claimed.push(justId ? id : [id, [...fields]]);
    }
    group.consumers.set(consumer, { seenAt: now });
    return [cursor, claimed, deleted];
  }

  xclaim(args: string[]): Reply {
    const [key, groupName, consumer, idleText, ...rest] = args;
    const minIdle = integer(idleText);
    const ids: string[] = [];
    let justId = false;
    let idle: number | undefined;
    let i = 0;
    for (; i < rest.length && /^\d+(-\d+)?$/.test(rest[i]); i++) {
      ids.push(rest[i].includes('-') ? rest[i] : `${rest[i]}-0`);
    }
    for (; i < rest.length; i++) {
      const option = rest[i].toUpperCase();
      if (option === 'JUSTID' || option === 'FORCE') justId ||= option === 'JUSTID';
      else if (option === 'IDLE') idle = integer(rest[++i]);
      else if (option === 'TIME') idle = Date.now() - integer(rest[++i]);
      else if (option === 'RETRYCOUNT' || option === 'LASTID') i++;
      else throw new Error(`ERR Unrecognized XCLAIM option '${rest[i]}'`);
    }
    const stream = this.stream(key);
    if (!stream) return [];
    const group = stream.group(groupName, 'XCLAIM', key);
    const now = Date.now();
    const out: Reply[] = [];
    for (const id of ids) {
      const entry = group.pending.get(id);
      if (!entry || now - entry.deliveredAt < minIdle) continue;
      const fields = stream.entries.get(id);
      if (!fields) {
        group.pending.delete(id);
        continue;
      }
      entry.consumer = consumer;
      // the delivery time is never before the epoch nor after now, as Redis clamps it
      entry.deliveredAt = idle === undefined ? now : Math.min(now, Math.max(0, now - idle));
      if (!justId) entry.deliveries++;
      out.push(justId ? id : [id, [...fields]]);
    }
    group.consumers.set(consumer, { seenAt: now });
    return out;
  }

  xpending(args: string[]): Reply {
    const [key, groupName, ...rest] = args;
    const stream = this.stream(key);
    if (!stream) {
      throw new Error(`NOGROUP No such key '${key}' or consumer group '${groupName}'`);
    }
    const group = stream.group(groupName, 'XPENDING', key);
    const ordered = [...group.pending.entries()].sort((a, b) =>
      compareIds(parseId(a[0]), parseId(b[0])),
    );
    if (rest.length === 0) {
      if (ordered.length === 0) return [0, null, null, null];
      const perConsumer = new Map<string, number>();
      for (const [, entry] of ordered) {
        perConsumer.set(entry.consumer, (perConsumer.get(entry.consumer) ?? 0) + 1);
      }
      return [
        ordered.length,
        ordered[0][0],
        ordered[ordered.length - 1][0],
        [...perConsumer].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, n]) => [name, String(n)]),
      ];
    }
    let i = 0;
    let minIdle = 0;
    if (rest[0].toUpperCase() === 'IDLE') {
      minIdle = integer(rest[1]);
      i = 2;
    }
    const start = rangeStart(rest[i]);
    const end = rangeEnd(rest[i + 1]);
    const count = integer(rest[i + 2]);
    const consumer = rest[i + 3];
    const now = Date.now();
    const out: Reply[] = [];
    for (const [id, entry] of ordered) {
      if (out.length >= count) break;
      const parsed = parseId(id);
      const fromStart = compareIds(parsed, start.id);
      const toEnd = compareIds(parsed, end.id);
      if (fromStart < 0 || (fromStart === 0 && start.exclusive)) continue;
      if (toEnd > 0 || (toEnd === 0 && end.exclusive)) break;
      if (consumer !== undefined && entry.consumer !== consumer) continue;
      const idle = now - entry.deliveredAt;
      if (idle < minIdle) continue;
      out.push([id, entry.consumer, idle, entry.deliveries]);
    }
    return out;
  }

  xgroup(args: string[]): Reply {
    const [sub, key, groupName, ...rest] = args;
    switch (sub.toUpperCase()) {
      case 'CREATE': {
        let stream = this.stream(key);
        if (!stream) {
          if (!rest.some((word) => word.toUpperCase() === 'MKSTREAM')) {
            throw new Error(
              'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.',
            );
          }
          stream = this.write(key, 'stream', () => new MemoryStream());
        }
        if (stream.groups.has(groupName)) {
          throw new Error('BUSYGROUP Consumer Group name already exists');
        }
        const start = rest[0] === '$' ? stream.lastId : parseId(rest[0] ?? '0');
        stream.groups.set(groupName, {
          lastDelivered: start,
          pending: new Map(),
          consumers: new Map(),
        });
        return 'OK';
      }
      case 'DESTROY':
        return this.stream(key)?.groups.delete(groupName) ? 1 : 0;
      case 'DELCONSUMER': {
        const stream = this.stream(key);
        if (!stream) return 0;
        const group = stream.group(groupName, 'XGROUP', key);
        let dropped = 0;
        for (const [id, entry] of group.pending) {
          if (entry.consumer !== rest[0]) continue;
          group.pending.delete(id);
          dropped++;
        }
        group.consumers.delete(rest[0]);
        return dropped;
      }
      default:
        throw new Error(`ERR unknown subcommand '${sub}' of XGROUP on the memory:// backend`);
    }
  }
}

type Handler = (this: MemoryServer, args: string[]) => Reply;

function strings(values: Iterable<string>): string[] {
  return [...values];
}

const COMMANDS: Record<string, Handler> = {
  EVAL(args) {
    return this.evaluate(true, args);
  },
  EVALSHA(args) {
    return this.evaluate(false, args);
  },
  SCRIPT(args) {
    return this.script(args);
  },
  PING(args) {
    return args[0] ?? 'PONG';
  },
  INFO() {
    // an in-process server has no memory limit
    return '# Memory\r\nused_memory:0\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n';
  },
  ECHO: (args) => args[0],
  TIME() {
    const now = Date.now();
    return [String(Math.floor(now / 1_000)), String((now % 1_000) * 1_000)];
  },
  GET(args) {
    return this.get(args[0]);
  },
  MGET(args) {
    // as Redis: a key that holds another type reads as nil, never an error
    return args.map((key) => (this.type(key) === 'string' ? this.get(key) : null));
  },
  SET(args) {
    return this.set(args);
  },
  DEL(args) {
    return this.del(args);
  },
  UNLINK(args) {
    return this.del(args);
  },
  EXISTS(args) {
    return this.exists(args);
  },
  PEXPIRE(args) {
    return this.pexpire(args[0], integer(args[1]));
  },
  EXPIRE(args) {
    return this.pexpire(args[0], integer(args[1]) * 1_000);
  },
  PTTL(args) {
    return this.pttl(args[0]);
  },
  TTL(args) {
    const ms = this.pttl(args[0]);
    return ms < 0 ? ms : Math.round(ms / 1_000);
  },
  PERSIST(args) {
    return this.persist(args[0]);
  },
  KEYS(args) {
    return this.keys(args[0]);
  },
  SCAN(args) {
    // one pass, as Redis may answer: every matching key, and cursor 0 (done)
    let pattern = '*';
    for (let i = 1; i < args.length; i += 2) {
      const option = args[i].toUpperCase();
      if (option === 'MATCH') pattern = args[i + 1] ?? '*';
      else if (option !== 'COUNT') throw new Error(`ERR syntax error (SCAN option ${args[i]})`);
    }
    return ['0', args[0] === '0' ? this.keys(pattern) : []];
  },
  TYPE(args) {
    return this.type(args[0]);
  },
  DBSIZE() {
    return this.keys('*').length;
  },
  FLUSHDB() {
    this.flush();
    return 'OK';
  },
  FLUSHALL() {
    this.flush();
    return 'OK';
  },
  INCR(args) {
    const value = Number(this.get(args[0]) ?? '0') + 1;
    if (!Number.isInteger(value)) throw new Error('ERR value is not an integer or out of range');
    const ttl = this.pttl(args[0]);
    this.set([args[0], String(value), ...(ttl > 0 ? ['PX', String(ttl)] : [])]);
    return value;
  },
  PUBLISH(args) {
    return this.publish(args[0], args[1]);
  },

  HGET(args) {
    return this.hash(args[0])?.get(args[1]) ?? null;
  },
  HMGET(args) {
    const hash = this.hash(args[0]);
    return args.slice(1).map((field) => hash?.get(field) ?? null);
  },
  HGETALL(args) {
    return [...(this.hash(args[0]) ?? [])].flat();
  },
  HSET(args) {
    return this.hset(args[0], args.slice(1));
  },
  HMSET(args) {
    this.hset(args[0], args.slice(1));
    return 'OK';
  },
  HDEL(args) {
    return this.hdel(args[0], args.slice(1));
  },
  HINCRBY(args) {
    return this.hincrby(args[0], args[1], integer(args[2]));
  },
  HLEN(args) {
    return this.hash(args[0])?.size ?? 0;
  },
  HEXISTS(args) {
    return this.hash(args[0])?.has(args[1]) ? 1 : 0;
  },

  ZADD(args) {
    return this.zadd(args[0], args.slice(1));
  },
  ZREM(args) {
    return this.zrem(args[0], args.slice(1));
  },
  ZCARD(args) {
    return this.zset(args[0])?.size ?? 0;
  },
  ZSCORE(args) {
    const score = this.zset(args[0])?.score(args[1]);
    return score === undefined ? null : formatScore(score);
  },
  ZMSCORE(args) {
    const zset = this.zset(args[0]);
    return args.slice(1).map((member) => {
      const score = zset?.score(member);
      return score === undefined ? null : formatScore(score);
    });
  },
  ZRANGE(args) {
    const [key, start, stop, ...options] = args;
    const zset = this.zset(key);
    if (!zset) return [];
    const withScores = options.some((o) => o.toUpperCase() === 'WITHSCORES');
    if (options.some((o) => o.toUpperCase() === 'BYSCORE')) {
      throw new Error('ERR ZRANGE BYSCORE is not supported on the memory:// backend');
    }
    return scoredReply(zset.range(integer(start), integer(stop)), withScores);
  },
  ZRANGEBYSCORE(args) {
    const [key, min, max, ...options] = args;
    return this.byScore(key, min, max, options, false);
  },
  ZREVRANGEBYSCORE(args) {
    const [key, max, min, ...options] = args;
    return this.byScore(key, min, max, options, true);
  },
  ZCOUNT(args) {
    return (
      this.zset(args[0])?.countByScore(parseScoreBound(args[1]), parseScoreBound(args[2])) ?? 0
    );
  },
  ZREMRANGEBYRANK(args) {
    const zset = this.zset(args[0]);
    if (!zset) return 0;
    const doomed = zset.range(integer(args[1]), integer(args[2]));
    for (const [member] of doomed) zset.remove(member);
    if (zset.size === 0) this.del([args[0]]);
    return doomed.length;
  },
  ZREMRANGEBYSCORE(args) {
    const zset = this.zset(args[0]);
    if (!zset) return 0;
    const removed = zset.removeByScore(parseScoreBound(args[1]), parseScoreBound(args[2]));
    if (zset.size === 0) this.del([args[0]]);
    return removed;
  },

  RPUSH(args) {
    const list = this.listFor(args[0]);
    list.push(...args.slice(1));
    return list.length;
  },
  LPUSH(args) {
    const list = this.listFor(args[0]);
    list.unshift(...args.slice(1).reverse());
    return list.length;
  },
  LPOP(args) {
    const list = this.list(args[0]);
    if (!list) return null;
    const value = list.shift() ?? null;
    if (list.length === 0) this.del([args[0]]);
    return value;
  },
  LREM(args) {
    const [key, countText, value] = args;
    const list = this.list(key);
    if (!list) return 0;
    let limit = integer(countText);
    let removed = 0;
    if (limit >= 0) {
      if (limit === 0) limit = Infinity;
      for (let i = 0; i < list.length && removed < limit;) {
        if (list[i] === value) {
          list.splice(i, 1);
          removed++;
        } else i++;
      }
    } else {
      for (let i = list.length - 1; i >= 0 && removed < -limit; i--) {
        if (list[i] === value) {
          list.splice(i, 1);
          removed++;
        }
      }
    }
    if (list.length === 0) this.del([key]);
    return removed;
  },
  LRANGE(args) {
    const list = this.list(args[0]) ?? [];
    const n = list.length;
    const start = integer(args[1]);
    const stop = integer(args[2]);
    const from = Math.max(0, start < 0 ? n + start : start);
    const to = Math.min(n - 1, stop < 0 ? n + stop : stop);
    return from > to ? [] : list.slice(from, to + 1);
  },
  LLEN(args) {
    return this.list(args[0])?.length ?? 0;
  },

  SADD(args) {
    const set = this.setFor(args[0]);
    const before = set.size;
    for (const member of args.slice(1)) set.add(member);
    return set.size - before;
  },
  SREM(args) {
    const set = this.setOf(args[0]);
    if (!set) return 0;
    let removed = 0;
    for (const member of args.slice(1)) if (set.delete(member)) removed++;
    if (set.size === 0) this.del([args[0]]);
    return removed;
  },
  SMEMBERS(args) {
    return strings(this.setOf(args[0]) ?? []);
  },
  SCARD(args) {
    return this.setOf(args[0])?.size ?? 0;
  },
  SISMEMBER(args) {
    return this.setOf(args[0])?.has(args[1]) ? 1 : 0;
  },

  XADD(args) {
    return this.xadd(args);
  },
  XLEN(args) {
    return this.stream(args[0])?.entries.size ?? 0;
  },
  XRANGE(args) {
    const [key, start, end, word, count] = args;
    const stream = this.stream(key);
    if (!stream) return [];
    const limit = word?.toUpperCase() === 'COUNT' ? integer(count) : Infinity;
    return stream.range(rangeStart(start), rangeEnd(end), limit);
  },
  XREVRANGE(args) {
    const [key, end, start, word, count] = args;
    const stream = this.stream(key);
    if (!stream) return [];
    const limit = word?.toUpperCase() === 'COUNT' ? integer(count) : Infinity;
    return stream.range(rangeStart(start), rangeEnd(end)).reverse().slice(0, limit);
  },
  XDEL(args) {
    const stream = this.stream(args[0]);
    if (!stream) return 0;
    return args.slice(1).filter((id) => stream.delete(id)).length;
  },
  XACK(args) {
    const stream = this.stream(args[0]);
    const group = stream?.groups.get(args[1]);
    if (!group) return 0;
    return args.slice(2).filter((id) => group.pending.delete(id)).length;
  },
  XTRIM(args) {
    const stream = this.stream(args[0]);
    if (!stream) return 0;
    const strategy = args[1].toUpperCase();
    const threshold = args[2] === '~' || args[2] === '=' ? args[3] : args[2];
    if (strategy === 'MINID') return stream.trimBelow(parseId(threshold));
    let removed = 0;
    for (const id of stream.entries.keys()) {
      if (stream.entries.size <= integer(threshold)) break;
      stream.delete(id);
      removed++;
    }
    return removed;
  },
  XGROUP(args) {
    return this.xgroup(args);
  },
  XREADGROUP(args) {
    return this.xreadgroup(args);
  },
  XREAD(args) {
    return this.xread(args);
  },
  XAUTOCLAIM(args) {
    return this.xautoclaim(args);
  },
  XCLAIM(args) {
    return this.xclaim(args);
  },
  XPENDING(args) {
    return this.xpending(args);
  },
  XINFO(args) {
    const [sub, key] = args;
    const stream = this.stream(key);
    if (!stream) throw new Error('ERR no such key');
    if (sub.toUpperCase() === 'GROUPS') {
      return [...stream.groups].map(([name, group]) => [
        'name',
        name,
        'consumers',
        group.consumers.size,
        'pending',
        group.pending.size,
        'last-delivered-id',
        formatId(group.lastDelivered),
      ]);
    }
    if (sub.toUpperCase() === 'CONSUMERS') {
      const group = stream.group(args[2], 'XINFO', key);
      const now = Date.now();
      return [...group.consumers].map(([name, consumer]) => [
        'name',
        name,
        'pending',
        [...group.pending.values()].filter((p) => p.consumer === name).length,
        'idle',
        now - consumer.seenAt,
      ]);
    }
    return ['length', stream.entries.size, 'last-generated-id', formatId(stream.lastId)];
  },
};

const servers = new Map<string, MemoryServer>();

/** The server of `memory://<id>`: one per id in this process, made on first use. */
export function memoryServer(id: string): MemoryServer {
  let server = servers.get(id);
  if (!server) servers.set(id, (server = new MemoryServer(id)));
  return server;
}
