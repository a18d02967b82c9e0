import assert from 'node:assert/strict';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CACHE, SETUP_TIMEOUT, freshDir, mustRun, packClone, setupBudget } from './helpers.js';

// `npm pack` of a fresh clone (nothing built: the package's prepack builds it), unpacked and
// read. The fixture projects (cjs-jest-nest11, esm-nest12) install and run a tarball.

const work = join(CACHE, 'tarball.work');
const unpacked = join(work, 'package');
let files: string[] = [];

/** Every file under `dir`, relative to it. */
function list(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? list(join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

before(
  async () => {
    const budget = setupBudget();
    freshDir(work);
    const tarball = await packClone(work, budget);
    await mustRun('tar', ['-xzf', tarball, '-C', work], work, budget());
    files = list(unpacked);
  },
  { timeout: SETUP_TIMEOUT },
);

after(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack of a fresh clone', () => {
  it('builds the package: the CommonJS implementation, its ES module entry and the bin', () => {
    for (const file of [
      'package.json',
      'README.md',
      'dist/package.json',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/index.mjs',
      'dist/index.d.mts',
      'dist/cli/main.js',
    ]) {
      assert.ok(files.includes(file), `the tarball has no ${file}`);
    }
    const scope = JSON.parse(readFileSync(join(unpacked, 'dist/package.json'), 'utf8'));
    assert.deepEqual(scope, { type: 'commonjs' });
    assert.match(
      readFileSync(join(unpacked, 'dist/cli/main.js'), 'utf8'),
      /^#!\/usr\/bin\/env node\n/,
    );
  });

  it('ships no source maps and no TypeScript sources', () => {
    const stray = files.filter(
      (f) => f.endsWith('.map') || (f.endsWith('.ts') && !/\.d\.m?ts$/.test(f)),
    );
    assert.deepEqual(stray, []);
  });

  it('declares nothing marked @internal', () => {
    const marked = files.filter(
      (f) => /\.d\.m?ts$/.test(f) && readFileSync(join(unpacked, f), 'utf8').includes('@internal'),
    );
    assert.deepEqual(marked, []);
  });
});
