import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DynamicModule, Type } from '@nestjs/common';
import { CliError, usageError } from './cli-error.js';

/** The Nest module class (or dynamic module) that `--module <file>[#Export]` names. */
export interface LoadedModule {
  module: Type<unknown> | DynamicModule;
  /** `<file>#<Export>` as given, for messages. */
  label: string;
}

/** Split `dist/app.module.js#AppModule`; the export defaults to `AppModule`. */
export function splitModuleSpec(spec: string): { file: string; exportName: string } {
  const hash = spec.lastIndexOf('#');
  const file = hash < 0 ? spec : spec.slice(0, hash);
  const exportName = hash < 0 ? 'AppModule' : spec.slice(hash + 1);
  if (!file || !exportName) {
    throw usageError(
      `--module "${spec}" is not <file>[#Export], as in dist/app.module.js#AppModule`,
    );
  }
  return { file, exportName };
}

function isModule(value: unknown): value is Type<unknown> | DynamicModule {
  if (typeof value === 'function') return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as DynamicModule).module === 'function'
  );
}

/** Import `<file>` (relative to the working directory) and take its export. */
export async function loadModule(spec: string): Promise<LoadedModule> {
  const { file, exportName } = splitModuleSpec(spec);
  const path = resolve(process.cwd(), file);
  const label = `${file}#${exportName}`;
  if (!existsSync(path)) throw usageError(`--module: there is no file ${path}`);
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = /\.tsx?$/.test(file) ? ' (compile it first: docket worker runs JavaScript)' : '';
    throw new CliError(`cannot load ${file}: ${message}${hint}`);
  }
  const value = exports[exportName];
  if (value === undefined) {
    const names = Object.keys(exports).filter((name) => isModule(exports[name]));
    throw usageError(
      `${file} has no export "${exportName}"` +
        (names.length ? `; it exports ${names.join(', ')}: use --module ${file}#<Export>` : ''),
    );
  }
  if (!isModule(value)) throw usageError(`${label} is not a Nest module class`);
  return { module: value, label };
}
