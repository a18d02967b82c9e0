import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT, codeBlocks, read } from './markdown.js';

// The README's TypeScript is the text of examples/, word for word: every ```ts block of the
// README follows a `<!-- file: examples/… -->` line naming the file it shows. The examples
// compile as an application's code would (examples/tsconfig.json: they import the package by
// its name, which resolves to this repository's build, dist/), and the quick start's test runs
// and passes. Needs `npm run build` (npm test builds first).

const README = read('README.md');
const QUICK_START = [
  'examples/quick-start/src/app.module.ts',
  'examples/quick-start/src/email.tasks.ts',
  'examples/quick-start/src/signup.service.ts',
  'examples/quick-start/src/main.ts',
  'examples/quick-start/src/signup.test.ts',
];
const QUICK_START_TEST = '.out/examples/quick-start/src/signup.test.js';

/** Compile examples/ with examples/tsconfig.json (into .out/examples/); the errors, as text. */
function compileExamples(): string {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'examples/tsconfig.json'),
    undefined,
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  assert.ok(config, 'examples/tsconfig.json cannot be read');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  });
}

/** Run one compiled test file with node's test runner; its exit code and output. */
function runTest(file: string): Promise<{ code: number | null; output: string }> {
  const env = { ...process.env };
  // a child `node --test` would report to this run instead of printing
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe("the README's code", { timeout: 120_000 }, () => {
  let errors: string | undefined;

  before(() => {
    assert.ok(
      existsSync(join(ROOT, 'dist/index.d.mts')),
      'no dist/: run `npm run build` first (the examples import the package by its name)',
    );
    errors = compileExamples();
  });

  it('shows TypeScript only as files of examples/, word for word', () => {
    const blocks = codeBlocks(README).filter((b) => ['ts', 'typescript'].includes(b.lang));
    assert.ok(blocks.length > 0, 'the README shows no TypeScript');
    for (const block of blocks) {
      assert.ok(
        block.file,
        `README.md:${block.line}: a \`\`\`ts block follows a <!-- file: examples/… --> line`,
      );
      assert.match(block.file, /^examples\//, `README.md:${block.line}: ${block.file}`);
      assert.ok(existsSync(join(ROOT, block.file)), `README.md:${block.line}: no ${block.file}`);
      assert.equal(
        block.text,
        read(block.file),
        `README.md:${block.line} differs from ${block.file}`,
      );
    }
  });

  it("shows the quick start's module, tasks, producer, main.ts and test", () => {
    const shown = codeBlocks(README).flatMap((b) => (b.file ? [b.file] : []));
    assert.deepEqual(
      QUICK_START.filter((file) => !shown.includes(file)),
      [],
      'quick start files the README does not show',
    );
  });

  it('compiles: examples/ type-check as an application importing nestjs-docket', () => {
    assert.equal(errors, '', `the examples do not compile:\n${errors}`);
  });

  it("passes the quick start's test (the README's testing pattern, on memory://)", async () => {
    assert.equal(errors, '', 'the examples do not compile (above)');
    const { code, output } = await runTest(QUICK_START_TEST);
    assert.equal(code, 0, `${QUICK_START_TEST} failed:\n${output}`);
    assert.match(output, /^# pass [1-9]\d*$/m, output);
    assert.match(output, /^# fail 0$/m, output);
  });
});
