// fengari reads its configuration from the environment once, when it is first loaded: this
// module is imported just before it. Lua 5.1 (what Redis runs) has no integer subtype and
// prints integral numbers without ".0"; LUA_COMPAT_FLOATSTRING makes fengari's Lua 5.3 do so.
const config = (() => {
  try {
    return JSON.parse(process.env.FENGARICONF ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
})();
process.env.FENGARICONF = JSON.stringify({ ...config, LUA_COMPAT_FLOATSTRING: true });
