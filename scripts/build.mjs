// Builds the published package (`npm run build`, and `npm pack` through prepack):
//
//   dist/**/*.js, *.d.ts   lib/ compiled once, to CommonJS (dist/package.json says so). Node
//                          ≥ 20.19 require()s the ESM-only NestJS 12 from it, and Jest's module
//                          registry, which cannot load ES modules, loads it as it is.
//   dist/index.mjs, .d.mts the ESM entry: it only re-exports dist/index.js, so that `import` and
//                          `require()` in one process share one copy of every class (Nest
//                          matches providers by class identity; two builds would give it two).
//
// The repository itself is `"type": "module"` (the tests compile lib/ as ESM), so TypeScript
// would compile lib/ as ESM; this script tells it that lib/ is a CommonJS scope, as a
// package.json there would, without writing one. An `import('name')` of a fixed specifier (the
// optional peers, loaded on demand) becomes a `require()`, as in any CommonJS build, because Jest
// runs no dynamic import() without experimental flags; an import() of a computed specifier (the
// application module that `docket worker --module` loads, maybe an ES module) stays import().
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import ts from 'typescript';

const CONFIG = 'tsconfig.build.json';
const OUT = 'dist';
const SCOPE = resolve('lib/package.json');

function fail(diagnostics) {
  // a compiler host is the formatting host TypeScript wants (file names, directory, new line)
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, ts.createCompilerHost({})));
  process.exit(1);
}

const config = ts.getParsedCommandLineOfConfigFile(CONFIG, undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => fail([d]),
});
if (config.errors.length > 0) fail(config.errors);
if (resolve(config.options.outDir ?? '') !== resolve(OUT)) {
  throw new Error(`${CONFIG} must compile to ${OUT}/`);
}

const host = ts.createCompilerHost(config.options);
const { fileExists, readFile } = host;
host.fileExists = (file) => resolve(file) === SCOPE || fileExists.call(host, file);
host.readFile = (file) =>
  resolve(file) === SCOPE ? '{ "type": "commonjs" }' : readFile.call(host, file);

/**
 * `import('x')` → `Promise.resolve().then(() => require('x')).then(asNamespace)`, where the
 * result is what import() gives: an ES module's namespace as it is, a CommonJS module's exports
 * with `default` set to the whole of them (not to an `exports.default` of its own). An import()
 * of a computed specifier stays.
 */
function requireFixedImports(context) {
  const f = context.factory;
  const call = (callee, ...args) => f.createCallExpression(callee, undefined, args);
  const member = (object, name) => f.createPropertyAccessExpression(object, name);
  const arrow = (params, body) =>
    f.createArrowFunction(
      undefined,
      undefined,
      params.map((p) => f.createParameterDeclaration(undefined, undefined, p)),
      undefined,
      undefined,
      body,
    );
  const asNamespace = () => {
    const m = f.createIdentifier('m');
    const tag = call(
      member(member(member(f.createIdentifier('Object'), 'prototype'), 'toString'), 'call'),
      m,
    );
    const isModule = f.createStrictEquality(tag, f.createStringLiteral('[object Module]'));
    const commonjs = f.createObjectLiteralExpression([
      f.createSpreadAssignment(m),
      f.createPropertyAssignment('default', m),
    ]);
    return arrow(['m'], f.createConditionalExpression(isModule, undefined, m, undefined, commonjs));
  };
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const load = call(f.createIdentifier('require'), f.createStringLiteral(node.arguments[0].text));
      const resolved = call(member(f.createIdentifier('Promise'), 'resolve'));
      return call(member(call(member(resolved, 'then'), arrow([], load)), 'then'), asNamespace());
    }
    return ts.visitEachChild(node, visit, context);
  };
  return (file) => ts.visitNode(file, visit);
}

rmSync(OUT, { recursive: true, force: true });
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
  host,
  projectReferences: config.projectReferences,
});
const entry = program.getSourceFile(resolve('lib/index.ts'));
if (entry?.impliedNodeFormat !== ts.ModuleKind.CommonJS) {
  throw new Error('lib/ was not compiled as CommonJS: the TypeScript API changed');
}
const before = ts.getPreEmitDiagnostics(program);
if (before.length > 0) fail(before);
const emitted = program.emit(undefined, undefined, undefined, false, {
  before: [requireFixedImports],
});
if (emitted.emitSkipped || emitted.diagnostics.length > 0) fail(emitted.diagnostics);

writeFileSync(`${OUT}/package.json`, '{ "type": "commonjs" }\n');
chmodSync(`${OUT}/cli/main.js`, 0o755);

// The ESM entry: every name the CommonJS build exports, taken from that one copy.
const names = Object.keys(createRequire(import.meta.url)(resolve(OUT, 'index.js')))
  .filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
  .sort();
if (names.length === 0) throw new Error(`${OUT}/index.js exports nothing`);
const header =
  '// Generated by scripts/build.mjs: the ES module entry of nestjs-docket. It re-exports the\n' +
  '// CommonJS build, so that import and require() share one copy of every class.\n';
writeFileSync(
  `${OUT}/index.mjs`,
  `${header}import docket from './index.js';\n\nexport const {\n${names.map((n) => `  ${n},\n`).join('')}} = docket;\n`,
);
writeFileSync(`${OUT}/index.d.mts`, `${header}export * from './index.js';\n`);

const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
console.log(`nestjs-docket ${version}: ${OUT}/ (CommonJS) and ${OUT}/index.mjs (${names.length} names)`);
