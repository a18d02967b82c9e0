// The part of fengari (Lua 5.3 in JavaScript) that the memory:// backend uses. fengari ships no
// types; these follow its C-API-shaped exports.
declare module 'fengari' {
  /** A Lua state. */
  export type LuaState = { readonly __luaState: unique symbol };
  /** Lua strings are byte arrays. */
  export type LuaString = Uint8Array;
  type JsFunction = (L: LuaState) => number;

  export const luaconf: { LUA_COMPAT_FLOATSTRING: boolean };

  export function to_luastring(text: string, cache?: boolean): LuaString;
  export function to_jsstring(value: LuaString): string;

  export const lua: {
    LUA_OK: number;
    LUA_TNIL: number;
    LUA_TBOOLEAN: number;
    LUA_TLIGHTUSERDATA: number;
    LUA_TNUMBER: number;
    LUA_TSTRING: number;
    LUA_TTABLE: number;
    LUA_REGISTRYINDEX: number;
    LUA_RIDX_GLOBALS: number;
    lua_gettop(L: LuaState): number;
    lua_settop(L: LuaState, index: number): void;
    lua_pop(L: LuaState, n: number): void;
    lua_pushvalue(L: LuaState, index: number): void;
    lua_type(L: LuaState, index: number): number;
    lua_toboolean(L: LuaState, index: number): boolean;
    lua_tonumber(L: LuaState, index: number): number;
    lua_tolstring(L: LuaState, index: number): LuaString | null;
    lua_tojsstring(L: LuaState, index: number): string;
    lua_touserdata(L: LuaState, index: number): unknown;
    lua_pushnil(L: LuaState): void;
    lua_pushboolean(L: LuaState, value: boolean): void;
    lua_pushnumber(L: LuaState, value: number): void;
    lua_pushstring(L: LuaState, value: LuaString): void;
    lua_pushliteral(L: LuaState, value: string): void;
    lua_pushlightuserdata(L: LuaState, value: unknown): void;
    lua_pushjsfunction(L: LuaState, fn: JsFunction): void;
    lua_createtable(L: LuaState, narray: number, nrec: number): void;
    lua_newtable(L: LuaState): void;
    lua_rawgeti(L: LuaState, index: number, n: number): number;
    lua_rawseti(L: LuaState, index: number, n: number): void;
    lua_rawlen(L: LuaState, index: number): number;
    lua_getfield(L: LuaState, index: number, key: LuaString): number;
    lua_setfield(L: LuaState, index: number, key: LuaString): void;
    lua_getglobal(L: LuaState, name: LuaString): number;
    lua_setglobal(L: LuaState, name: LuaString): void;
    lua_setmetatable(L: LuaState, index: number): void;
    lua_next(L: LuaState, index: number): number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, handler: number): number;
    lua_error(L: LuaState): never;
  };

  export const lauxlib: {
    luaL_newstate(): LuaState;
    luaL_loadbuffer(L: LuaState, buffer: LuaString, size: number | null, name: LuaString): number;
    luaL_requiref(L: LuaState, name: LuaString, open: JsFunction, global: number): void;
    luaL_ref(L: LuaState, table: number): number;
  };

  export const lualib: {
    luaopen_base: JsFunction;
    luaopen_table: JsFunction;
    luaopen_string: JsFunction;
    luaopen_math: JsFunction;
  };
}
