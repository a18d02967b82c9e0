// Embeds the Lua scripts of lib/store/lua/ into a TypeScript module, so that the engine reads
// no file at run time and Redis and memory:// run the same text. A script pulls shared
// functions in with `--- @include "<name>"` (from lua/includes/, each once, in dependency
// order); a `#!lua` line stays first. Run by the build, the test build, `npm start` and
// `npm ci` (prepare).
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const dir = 'lib/store/lua';
const out = 'lib/store/scripts/lua-sources.generated.ts';
const INCLUDE = /^--- @include "([\w-]+)"\s*$/;

function expand(text, seen, from) {
  const lines = text.split('\n');
  const shebang = lines[0].startsWith('#!') ? lines.shift() : undefined;
  const parts = [];
  const body = [];
  for (const line of lines) {
    const match = INCLUDE.exec(line);
    if (!match) {
      body.push(line);
      continue;
    }
    const name = match[1];
    if (seen.has(name)) continue;
    seen.add(name);
    const file = join(dir, 'includes', `${name}.lua`);
    if (!existsSync(file)) throw new Error(`${from}: no include "${name}" (${file})`);
    parts.push(expand(readFileSync(file, 'utf8'), seen, file).body);
  }
  parts.push(body.join('\n').trim());
  return { shebang, body: parts.join('\n\n') };
}

const scripts = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua')).sort()) {
  const { shebang, body } = expand(readFileSync(join(dir, file), 'utf8'), new Set(), file);
  scripts[file.replace(/\.lua$/, '')] = `${shebang ? `${shebang}\n` : ''}${body}\n`;
}
const text =
  '// Generated from lib/store/lua/ by scripts/embed-lua.mjs: edit the .lua files, not this.\n' +
  '/** Every Lua script of the engine, its includes resolved, by file name. */\n' +
  `export const LUA_SOURCES: Readonly<Record<string, string>> = ${JSON.stringify(scripts, null, 2)};\n`;
if (!existsSync(out) || readFileSync(out, 'utf8') !== text) writeFileSync(out, text);
