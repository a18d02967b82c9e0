import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { packageVersion } from '../../lib/util/package-version.js';

describe('docket version', () => {
  it('finds the package version from the ES module build too (no __dirname there)', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    assert.equal(packageVersion(), pkg.version);
  });
});
