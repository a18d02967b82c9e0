// Bundles the dashboard's browser code and stylesheet (lib/dashboard/ui/client/) into a
// TypeScript module of two strings, so that the controller serves them from memory and the
// package ships no loose asset: the CommonJS and ES module builds and `npm pack` carry them as
// they carry any code. The browser code is type-checked first (with the DOM library, which the
// rest of lib/ has not). Run by the build, the test build, `npm start` and `npm ci` (prepare).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import ts from 'typescript';

const dir = 'lib/dashboard/ui/client';
const out = 'lib/dashboard/ui/assets.generated.ts';

const config = ts.getParsedCommandLineOfConfigFile(`${dir}/tsconfig.json`, undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (d) => {
    throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  },
});
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)];
if (diagnostics.length > 0) {
  // a compiler host is the formatting host TypeScript wants (file names, directory, new line)
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, ts.createCompilerHost({})));
  process.exit(1);
}

const bundle = async (entry, options) => {
  const result = await build({
    entryPoints: [`${dir}/${entry}`],
    bundle: true,
    minify: true,
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
    ...options,
  });
  return result.outputFiles[0].text;
};
const script = await bundle('main.ts', { format: 'iife', target: 'es2020', platform: 'browser' });
const styles = await bundle('dashboard.css', {});

const text =
  '// Generated from lib/dashboard/ui/client/ by scripts/embed-dashboard.mjs: edit those files.\n' +
  '/** The dashboard\'s browser code, bundled. */\n' +
  `export const DASHBOARD_SCRIPT = ${JSON.stringify(script)};\n` +
  '/** The dashboard\'s stylesheet. */\n' +
  `export const DASHBOARD_STYLES = ${JSON.stringify(styles)};\n`;
if (!existsSync(out) || readFileSync(out, 'utf8') !== text) writeFileSync(out, text);
