import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LUA_SOURCES } from '../lib/store/scripts/lua-sources.generated.js';
import { median } from './report.js';

/** What Redis spent on one kind of command: how many, and ms per call (median, max, sum). */
export interface CommandTime {
  name: string;
  calls: number;
  medianMs: number;
  maxMs: number;
  totalMs: number;
}

/** The commands one client ran while it was watched, by time spent, most first. */
export interface RedisTime {
  commands: CommandTime[];
  totalMs: number;
  longest: { name: string; ms: number } | null;
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The engine's script of each SHA1, by its file name (`list-tasks-2`). */
const SCRIPTS = new Map<string, string>();
for (const [file, text] of Object.entries(LUA_SOURCES)) {
  SCRIPTS.set(sha1(text), file);
  if (text.startsWith('#!')) SCRIPTS.set(sha1(text.slice(text.indexOf('\n') + 1)), file);
}

/** `list-tasks-2.lua` for a script call, the command's name otherwise. */
function commandName(args: string[]): string {
  const command = (args[0] ?? '?').toLowerCase();
  if (command === 'evalsha' || command === 'eval') {
    const script = command === 'evalsha' ? SCRIPTS.get(args[1] ?? '') : undefined;
    return script ? `${script}.lua` : 'a script';
  }
  return command;
}

type SlowlogEntry = [number, number, number, string[], string, string];

/**
 * The shortest command SLOWLOG logs, µs. Not 0: Redis logs the commands a script runs as well
 * (under no client name), and logging each of a long script's reads would slow the script down
 * and crowd its own entry out of the log.
 */
export const LOGGED_FROM_MICROS = 20;

/**
 * Redis's own time for each command a client runs, from SLOWLOG (every command of at least
 * LOGGED_FROM_MICROS). A script is one entry, its commands included; a blocking read counts its
 * work, not its wait.
 */
export class RedisClock {
  /** Every time read since the last `summary()`, by command. */
  private seen = new Map<string, number[]>();

  constructor(
    private readonly stats: Redis,
    private readonly client: string,
  ) {}

  async start(): Promise<void> {
    await this.stats.config('SET', 'slowlog-log-slower-than', String(LOGGED_FROM_MICROS));
    await this.stats.config('SET', 'slowlog-max-len', '100000');
    await this.stats.slowlog('RESET');
  }

  /** Forget what was logged so far. */
  reset(): Promise<unknown> {
    return this.stats.slowlog('RESET');
  }

  /** What the client ran since the last reset (and resets). */
  async read(): Promise<RedisTime> {
    const entries = (await this.stats.slowlog('GET', -1)) as SlowlogEntry[];
    await this.reset();
    const byName = new Map<string, number[]>();
    let longest: RedisTime['longest'] = null;
    for (const [, , micros, args, , client] of entries) {
      if (client !== this.client) continue;
      const name = commandName(args);
      const ms = micros / 1000;
      byName.set(name, [...(byName.get(name) ?? []), ms]);
      if (!longest || ms > longest.ms) longest = { name, ms };
    }
    for (const [name, ms] of byName) this.seen.set(name, [...(this.seen.get(name) ?? []), ...ms]);
    const commands = timesOf(byName);
    return {
      commands,
      totalMs: commands.reduce((sum, c) => sum + c.totalMs, 0),
      longest,
    };
  }

  /** Every command read since the last summary, by Redis's time in all (and starts anew). */
  summary(): CommandTime[] {
    const commands = timesOf(this.seen);
    this.seen = new Map();
    return commands;
  }

  async stop(): Promise<void> {
    await this.stats.config('SET', 'slowlog-log-slower-than', '10000');
    await this.stats.config('SET', 'slowlog-max-len', '128');
  }
}

function timesOf(byName: Map<string, number[]>): CommandTime[] {
  const commands = [...byName].map(([name, ms]) => ({
    name,
    calls: ms.length,
    medianMs: median(ms),
    maxMs: Math.max(...ms),
    totalMs: ms.reduce((a, b) => a + b, 0),
  }));
  return commands.sort((a, b) => b.totalMs - a.totalMs);
}
