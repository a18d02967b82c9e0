import { createHash } from 'node:crypto';
// Before fengari: Lua 5.1 (what Redis runs) prints integral floats without ".0".
import './fengari-config.js';
import { lauxlib, lua, lualib, luaconf, to_luastring, type LuaState } from 'fengari';
import { encodeJson, JSON_NULL, pushJson } from './memory-cjson.js';
import type { Arg, Reply } from './memory-server.js';

/** Runs one command of the server a script belongs to; throws with Redis' error text. */
export type CommandRunner = (command: string, args: string[]) => Reply;

/** A script reply (what EVAL answers): a status is `{ ok }`, an error `{ err }`. */
export type ScriptReply = Reply;

/** Commands Redis refuses inside a script (they would nest scripts or block). */
const NOT_IN_SCRIPTS = new Set([
  'EVAL',
  'EVALSHA',
  'EVAL_RO',
  'EVALSHA_RO',
  'SCRIPT',
  'FUNCTION',
  'FCALL',
  'MULTI',
  'EXEC',
  'WATCH',
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'UNSUBSCRIBE',
  'PUNSUBSCRIBE',
]);

/** Commands whose string reply is a status (`+OK`), which Lua sees as `{ ok = … }`. */
const STATUS_REPLIES = new Set(['SET', 'PING', 'TYPE', 'HMSET', 'FLUSHDB', 'FLUSHALL', 'XGROUP']);

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** A number as Redis 7 passes it to a command: digits for an integer, else the shortest form. */
function commandNumber(n: number): string {
  return String(n);
}

/**
 * The Lua 5.1 scripting environment of Redis, in process: one Lua state (per process) running
 * the engine's own Lua files (fengari, with `unpack`, `cjson` and `redis.*` bound to
 * the server). Scripts are cached by SHA1 as Redis does (EVAL, EVALSHA, SCRIPT LOAD). A script
 * runs synchronously, so it is atomic like a script on Redis.
 */
export class MemoryLua {
  private readonly L: LuaState;
  private readonly functions = new Map<string, number>();
  private run?: CommandRunner;

  constructor() {
    if (!luaconf.LUA_COMPAT_FLOATSTRING) {
      throw new Error(
        'memory://: fengari was loaded before nestjs-docket could configure it (FENGARICONF ' +
          'needs {"LUA_COMPAT_FLOATSTRING": true}); import nestjs-docket first',
      );
    }
    const L = lauxlib.luaL_newstate();
    this.L = L;
    for (const [name, open] of [
      ['_G', lualib.luaopen_base],
      ['table', lualib.luaopen_table],
      ['string', lualib.luaopen_string],
      ['math', lualib.luaopen_math],
    ] as const) {
      lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
      lua.lua_pop(L, 1);
    }
    this.installRedis();
    this.installCjson();
    // Lua 5.1 has a global unpack; Redis offers no file or module loading and no print
    const prelude = `
      unpack = table.unpack
      KEYS, ARGV = {}, {}
      dofile, loadfile, load, require, print = nil, nil, nil, nil, nil
      setmetatable(_G, {
        __newindex = function() error('Attempt to modify a readonly table', 2) end,
        __index = function(_, name)
          error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 2)
        end,
      })`;
    this.check(lauxlib.luaL_loadbuffer(L, to_luastring(prelude), null, to_luastring('=prelude')));
    this.check(lua.lua_pcall(L, 0, 0, 0));
  }

  /** SCRIPT LOAD: compile `body` and keep it under its SHA1. */
  load(body: string): string {
    const sha = sha1(body);
    if (this.functions.has(sha)) return sha;
    const L = this.L;
    // Redis reads a first line `#!lua flags=…` as the script's flags; Lua would not parse it
    const code = body.startsWith('#!') ? `--${body}` : body;
    const status = lauxlib.luaL_loadbuffer(
      L,
      to_luastring(code),
      null,
      to_luastring('@user_script'),
    );
    if (status !== lua.LUA_OK) {
      const message = lua.lua_tojsstring(L, -1);
      lua.lua_pop(L, 1);
      throw new Error(`ERR Error compiling script (new function): ${message}`);
    }
    this.functions.set(sha, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
    return sha;
  }

  /** EVALSHA: run a loaded script with KEYS and ARGV; `commands` runs what it calls. */
  call(sha: string, keys: string[], args: string[], commands: CommandRunner): ScriptReply {
    const ref = this.functions.get(sha.toLowerCase());
    if (ref === undefined) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
    const L = this.L;
    this.run = commands;
    try {
      this.setGlobalArray('KEYS', keys);
      this.setGlobalArray('ARGV', args);
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
      const status = lua.lua_pcall(L, 0, 1, 0);
      if (status !== lua.LUA_OK) {
        const error = this.errorText(-1);
        lua.lua_settop(L, 0);
        throw new Error(`${error} script: ${sha}, on @user_script.`);
      }
      const reply = this.toReply(-1);
      lua.lua_settop(L, 0);
      if (reply instanceof Error) throw reply;
      return reply;
    } finally {
      this.run = undefined;
    }
  }

  // -- the environment -----------------------------------------------------------------

  private installRedis(): void {
    const L = this.L;
    lua.lua_newtable(L);
    const fn = (name: string, f: (L: LuaState) => number) => {
      lua.lua_pushjsfunction(L, f);
      lua.lua_setfield(L, -2, to_luastring(name));
    };
    fn('call', (L) => this.redisCall(L, true));
    fn('pcall', (L) => this.redisCall(L, false));
    fn('error_reply', (L) => this.replyTable(L, 'err'));
    fn('status_reply', (L) => this.replyTable(L, 'ok'));
    fn('sha1hex', (L) => {
      lua.lua_pushstring(L, to_luastring(sha1(lua.lua_tojsstring(L, 1))));
      return 1;
    });
    fn('log', () => 0);
    fn('setresp', () => 0);
    fn('set_repl', () => 0);
    fn('replicate_commands', (L) => {
      lua.lua_pushboolean(L, true);
      return 1;
    });
    for (const [name, value] of [
      ['LOG_DEBUG', 0],
      ['LOG_VERBOSE', 1],
      ['LOG_NOTICE', 2],
      ['LOG_WARNING', 3],
    ] as const) {
      lua.lua_pushnumber(L, value);
      lua.lua_setfield(L, -2, to_luastring(name));
    }
    lua.lua_setglobal(L, to_luastring('redis'));
  }

  private installCjson(): void {
    const L = this.L;
    lua.lua_newtable(L);
    lua.lua_pushjsfunction(L, (L) => {
      let text: string;
      try {
        text = encodeJson(L, 1, 0);
      } catch (error) {
        return this.raise(L, (error as Error).message);
      }
      lua.lua_pushstring(L, to_luastring(text));
      return 1;
    });
    lua.lua_setfield(L, -2, to_luastring('encode'));
    lua.lua_pushjsfunction(L, (L) => {
      if (lua.lua_type(L, 1) !== lua.LUA_TSTRING) return this.raise(L, 'bad argument #1 to decode');
      let value: unknown;
      try {
        value = JSON.parse(lua.lua_tojsstring(L, 1));
      } catch (error) {
        return this.raise(L, `cjson.decode: ${(error as Error).message}`);
      }
      pushJson(L, value);
      return 1;
    });
    lua.lua_setfield(L, -2, to_luastring('decode'));
    lua.lua_pushlightuserdata(L, JSON_NULL);
    lua.lua_setfield(L, -2, to_luastring('null'));
    lua.lua_setglobal(L, to_luastring('cjson'));
  }

  private setGlobalArray(name: string, values: string[]): void {
    const L = this.L;
    lua.lua_createtable(L, values.length, 0);
    values.forEach((value, i) => {
      lua.lua_pushstring(L, to_luastring(value));
      lua.lua_rawseti(L, -2, i + 1);
    });
    // KEYS and ARGV exist from the start, so the guard against new globals lets this through
    lua.lua_setglobal(L, to_luastring(name));
  }

  /** `redis.call(...)` (raise on error) and `redis.pcall(...)` (an `{ err }` table instead). */
  private redisCall(L: LuaState, raise: boolean): number {
    const count = lua.lua_gettop(L);
    const args: string[] = [];
    for (let i = 1; i <= count; i++) {
      const type = lua.lua_type(L, i);
      if (type === lua.LUA_TNUMBER) args.push(commandNumber(lua.lua_tonumber(L, i)));
      else if (type === lua.LUA_TSTRING) args.push(lua.lua_tojsstring(L, i));
      else return this.fail(L, 'ERR Lua redis lib command arguments must be strings or integers');
    }
    if (args.length === 0) {
      return this.fail(L, 'ERR Please specify at least one argument for this redis lib call');
    }
    const [command, ...rest] = args;
    if (NOT_IN_SCRIPTS.has(command.toUpperCase())) {
      const message = 'ERR This Redis command is not allowed from script';
      if (raise) return this.fail(L, message);
      this.pushErrorTable(message);
      return 1;
    }
    let reply: Reply;
    try {
      reply = this.run!(command, rest);
    } catch (error) {
      const message = (error as Error).message;
      if (raise) return this.fail(L, message);
      this.pushErrorTable(message);
      return 1;
    }
    const upper = command.toUpperCase();
    if (
      typeof reply === 'string' &&
      STATUS_REPLIES.has(upper) &&
      !(upper === 'SET' && reply !== 'OK')
    ) {
      lua.lua_createtable(L, 0, 1);
      lua.lua_pushstring(L, to_luastring(reply));
      lua.lua_setfield(L, -2, to_luastring('ok'));
    } else {
      this.pushReply(reply);
    }
    return 1;
  }

  /** Raise a Lua runtime error (a string, as Lua libraries raise them). */
  private raise(L: LuaState, message: string): never {
    lua.lua_pushstring(L, to_luastring(message));
    lua.lua_error(L);
  }

  private fail(L: LuaState, message: string): never {
    this.pushErrorTable(message);
    lua.lua_error(L);
  }

  private pushErrorTable(message: string): void {
    lua.lua_createtable(this.L, 0, 1);
    lua.lua_pushstring(this.L, to_luastring(message));
    lua.lua_setfield(this.L, -2, to_luastring('err'));
  }

  private replyTable(L: LuaState, field: 'ok' | 'err'): number {
    lua.lua_createtable(L, 0, 1);
    lua.lua_pushvalue(L, 1);
    lua.lua_setfield(L, -2, to_luastring(field));
    return 1;
  }

  /** A server reply as Lua sees it: nil is false, arrays are tables. */
  private pushReply(reply: Reply): void {
    const L = this.L;
    if (reply === null) lua.lua_pushboolean(L, false);
    else if (typeof reply === 'number') lua.lua_pushnumber(L, reply);
    else if (typeof reply === 'string') lua.lua_pushstring(L, to_luastring(reply));
    else {
      lua.lua_createtable(L, reply.length, 0);
      reply.forEach((item, i) => {
        this.pushReply(item);
        lua.lua_rawseti(L, -2, i + 1);
      });
    }
  }

  /** A Lua value as a script reply (Redis' conversion rules), or the error it carries. */
  private toReply(index: number): Reply | Error {
    const L = this.L;
    const at = lua.lua_gettop(L) + index + 1;
    switch (lua.lua_type(L, at)) {
      case lua.LUA_TNUMBER:
        return Math.trunc(lua.lua_tonumber(L, at));
      case lua.LUA_TSTRING:
        return lua.lua_tojsstring(L, at);
      case lua.LUA_TBOOLEAN:
        return lua.lua_toboolean(L, at) ? 1 : null;
      case lua.LUA_TTABLE: {
        if (lua.lua_getfield(L, at, to_luastring('err')) === lua.LUA_TSTRING) {
          const text = lua.lua_tojsstring(L, -1);
          lua.lua_pop(L, 1);
          return new Error(text);
        }
        lua.lua_pop(L, 1);
        if (lua.lua_getfield(L, at, to_luastring('ok')) === lua.LUA_TSTRING) {
          const text = lua.lua_tojsstring(L, -1);
          lua.lua_pop(L, 1);
          return text;
        }
        lua.lua_pop(L, 1);
        const out: Reply[] = [];
        for (let i = 1; ; i++) {
          if (lua.lua_rawgeti(L, at, i) === lua.LUA_TNIL) {
            lua.lua_pop(L, 1);
            break;
          }
          const item = this.toReply(-1);
          lua.lua_pop(L, 1);
          // an error nested in an array is sent as an error element; the client rejects on it
          out.push(item instanceof Error ? null : item);
        }
        return out;
      }
      default:
        return null;
    }
  }

  /** The message of a failed script: a raised `{ err }` table, or a Lua runtime error. */
  private errorText(index: number): string {
    const L = this.L;
    if (lua.lua_type(L, index) === lua.LUA_TTABLE) {
      lua.lua_getfield(L, index, to_luastring('err'));
      const text = lua.lua_type(L, -1) === lua.LUA_TSTRING ? lua.lua_tojsstring(L, -1) : 'ERR';
      lua.lua_pop(L, 1);
      return text;
    }
    const text = lua.lua_type(L, index) === lua.LUA_TSTRING ? lua.lua_tojsstring(L, index) : '?';
    return `ERR ${text}`;
  }

  private check(status: number): void {
    if (status !== lua.LUA_OK) throw new Error(lua.lua_tojsstring(this.L, -1));
  }
}

export type { Arg };

let shared: MemoryLua | undefined;

/**
 * The Lua state of this process, made on the first script: every memory:// server runs its
 * scripts in it (compiling a script takes fengari milliseconds; each is compiled once).
 */
export function sharedLua(): MemoryLua {
  return (shared ??= new MemoryLua());
}
