// lua-cjson, the JSON library Redis gives its scripts, for the memory:// Lua VM.
import './fengari-config.js';
import { lua, to_luastring, type LuaState } from 'fengari';

/** The `cjson.null` value of decoded JSON. */
export const JSON_NULL = { cjson: 'null' };

/**
 * `%.14g` as Lua 5.1 and lua-cjson format numbers (integers as they are while exact).
 */
function formatNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return String(n);
  if (!Number.isFinite(n)) throw new Error('Cannot serialise number: must not be NaN or Inf');
  const exponent = Math.floor(Math.log10(Math.abs(n)));
  if (exponent < -4 || exponent >= 14) {
    const [mantissa, power] = n.toExponential(13).split('e');
    const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    const sign = power.startsWith('-') ? '-' : '+';
    return `${trimmed}e${sign}${power.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  return String(Number(n.toPrecision(14)));
}

/** Push decoded JSON as Lua values: objects and arrays as tables, null as `cjson.null`. */
export function pushJson(L: LuaState, value: unknown): void {
  if (value === null) lua.lua_pushlightuserdata(L, JSON_NULL);
  else if (typeof value === 'number') lua.lua_pushnumber(L, value);
  else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((item, i) => {
      pushJson(L, item);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else {
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      pushJson(L, item);
      lua.lua_setfield(L, -2, to_luastring(key));
    }
  }
}

/** lua-cjson's encoding of the value at `index`: arrays for tables keyed 1..n, `\/` escaped. */
export function encodeJson(L: LuaState, index: number, depth: number): string {
  if (depth > 1000) throw new Error('Cannot serialise, excessive nesting (1001)');
  const at = index < 0 ? lua.lua_gettop(L) + index + 1 : index;
  switch (lua.lua_type(L, at)) {
    case lua.LUA_TNIL:
      return 'null';
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, at) ? 'true' : 'false';
    case lua.LUA_TNUMBER:
      return formatNumber(lua.lua_tonumber(L, at));
    case lua.LUA_TSTRING:
      return JSON.stringify(lua.lua_tojsstring(L, at)).replace(/\//g, '\\/');
    case lua.LUA_TLIGHTUSERDATA:
      return 'null';
    case lua.LUA_TTABLE: {
      const entries: [string | number, string][] = [];
      let array = true;
      let max = 0;
      lua.lua_pushnil(L);
      while (lua.lua_next(L, at) !== 0) {
        let key: string | number;
        if (lua.lua_type(L, -2) === lua.LUA_TNUMBER) {
          key = lua.lua_tonumber(L, -2);
          if (!Number.isInteger(key) || key < 1) array = false;
          else max = Math.max(max, key);
        } else {
          array = false;
          key = lua.lua_tojsstring(L, -2);
        }
        entries.push([key, encodeJson(L, -1, depth + 1)]);
        lua.lua_pop(L, 1);
      }
      if (entries.length === 0) return '{}';
      if (array && max === entries.length) {
        const items = new Array<string>(max);
        for (const [key, text] of entries) items[(key as number) - 1] = text;
        return `[${items.join(',')}]`;
      }
      return `{${entries
        .map(
          ([key, text]) =>
            `${JSON.stringify(typeof key === 'number' ? formatNumber(key) : key).replace(/\//g, '\\/')}:${text}`,
        )
        .join(',')}}`;
    }
    default:
      throw new Error('Cannot serialise a function or userdata');
  }
}
