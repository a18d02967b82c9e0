// `npm start`: compile the sample app (incrementally: the first build takes a while, later
// ones only what changed) and run it in this process, saying what happens meanwhile.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const say = (line) => process.stdout.write(`[npm start] ${line}\n`);
const first = !existsSync('.out/sample-app.tsbuildinfo');

let started = Date.now();
for (const script of ['scripts/embed-lua.mjs', 'scripts/embed-dashboard.mjs']) {
  const embed = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (embed.status !== 0) process.exit(embed.status ?? 1);
}

say(
  first
    ? 'compiling lib/ and sample-app/ to .out/ (the first time takes up to a minute; later starts compile only what changed)…'
    : 'compiling what changed in lib/ and sample-app/…',
);
started = Date.now();
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const build = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.sample.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) {
  say('the compiler reported errors (above); the sample app did not start');
  process.exit(build.status ?? 1);
}
say(`compiled in ${((Date.now() - started) / 1000).toFixed(1)} s; starting the sample app`);
await import(pathToFileURL('.out/sample-app/main.js').href);
