// Copies the Lua scripts next to the compiled JavaScript (tsc copies only .ts output).
import { cpSync } from 'node:fs';

for (const out of process.argv.slice(2)) {
  cpSync('lib/store/lua', `${out}/store/lua`, { recursive: true });
}
