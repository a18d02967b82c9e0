import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { itRunsTheBin, mustRun, useFixtureProject } from './helpers.js';

// SPEC §1: a CommonJS NestJS 11 project and its Jest tests (ts-jest) load the packed package
// with require(). test/fixtures/cjs-jest-nest11 is such a project: it runs the README's testing
// pattern under Jest (which cannot load ES modules), and the bin runs with npx. (Its types,
// through the require condition, are checked in esm-nest12.test.ts, whose tsc is needed anyway.)

const project = useFixtureProject('cjs-jest-nest11');

describe('a CommonJS NestJS 11 project tested with Jest', () => {
  it('runs on NestJS 11', () => {
    assert.match(project.version('@nestjs/core'), /^11\./);
    assert.match(project.version('@nestjs/common'), /^11\./);
  });

  it("runs the README's testing pattern under Jest with ts-jest; Jest exits by itself", async () => {
    const output = await mustRun('npm', ['test', '--', '--ci'], project.dir, 60_000);
    // the pattern on memory:// and on this run's Redis, and where require() leads
    const tests = process.env.DOCKET_TEST_URL ? 3 : 2;
    assert.match(output, new RegExp(`Tests:\\s+${tests} passed, ${tests} total`));
  });

  itRunsTheBin(project);
});
