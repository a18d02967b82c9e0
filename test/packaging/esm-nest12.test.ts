import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itRunsTheBin, mustRun, useFixtureProject } from './helpers.js';

// SPEC §1: an ES module NestJS 12 project imports the packed package, and an import and a
// require() of it in one process give the same classes. test/fixtures/esm-nest12 is such a
// project: it compiles against the package (its ES modules through the import condition, a
// CommonJS module through the require condition), with the library check on for the package's
// declarations: they must type-check for a consumer, without the optional peers installed. It
// runs the README's testing pattern and its one-copy checks with node:test, and the bin with npx.

const project = useFixtureProject('esm-nest12');

describe('an ES module NestJS 12 project', () => {
  it('runs on NestJS 12', () => {
    assert.match(project.version('@nestjs/core'), /^12\./);
    assert.match(project.version('@nestjs/common'), /^12\./);
  });

  it("compiles against the package's declarations (tsc, nodenext: import and require)", async () => {
    const output = await mustRun('npm', ['run', 'build'], project.dir, 100_000);
    assert.match(output, /compiled [1-9]\d* sources; type-checked [1-9]\d* declarations/);
  });

  it("runs the README's testing pattern; import and require() share one copy of each class", async () => {
    const output = await mustRun('npm', ['test'], project.dir, 100_000);
    // the pattern on memory:// and on this run's Redis, three one-copy checks, one CommonJS module
    const tests = process.env.DOCKET_TEST_URL ? 6 : 5;
    assert.match(output, new RegExp(`\\bpass ${tests}\\b`));
    assert.match(output, /\bfail 0\b/);
  });

  itRunsTheBin(project);
});
