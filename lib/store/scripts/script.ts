import { createHash } from 'node:crypto';
import type { DocketKeys } from '../keys.js';
import { LUA_SOURCES } from './lua-sources.generated.js';

/** A value of KEYS or ARGV as it is sent. */
export type ScriptArg = string | number;

/**
 * One Lua script of `store/lua/` with its typed signature: the KEYS and ARGV it is called with
 * (built from a typed input) and how its reply reads. The only way the engine runs Lua.
 */
export interface ScriptDefinition<I, R> {
  /** The file name without `.lua`: `<name>-<number of keys>`. */
  readonly file: string;
  readonly numberOfKeys: number;
  /** The script text (includes resolved, `#!lua flags=…` first) and its SHA1. */
  readonly text: string;
  readonly sha: string;
  /** The same without its `#!lua` line, for Redis 6.2 (which has no script flags). */
  readonly legacyText: string;
  readonly legacySha: string;
  keys(keys: DocketKeys, input: I): string[];
  args(keys: DocketKeys, input: I): ScriptArg[];
  decode(reply: unknown, input: I): R;
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** Define a script from its file and its typed KEYS, ARGV and reply. */
export function defineScript<I, R>(spec: {
  file: string;
  keys(keys: DocketKeys, input: I): string[];
  args(keys: DocketKeys, input: I): ScriptArg[];
  decode(reply: unknown, input: I): R;
}): ScriptDefinition<I, R> {
  const text = LUA_SOURCES[spec.file];
  if (text === undefined) throw new Error(`no Lua script ${spec.file}.lua in store/lua/`);
  const numberOfKeys = Number(/-(\d+)$/.exec(spec.file)?.[1] ?? NaN);
  const legacyText = text.startsWith('#!') ? text.slice(text.indexOf('\n') + 1) : text;
  return {
    ...spec,
    numberOfKeys,
    text,
    sha: sha1(text),
    legacyText,
    legacySha: sha1(legacyText),
  };
}

/** What a client must offer to run scripts (ioredis and the memory:// client both do). */
export interface ScriptClient {
  evalsha(sha: string, numberOfKeys: number, ...keysAndArgs: ScriptArg[]): Promise<unknown>;
  eval(script: string, numberOfKeys: number, ...keysAndArgs: ScriptArg[]): Promise<unknown>;
}
