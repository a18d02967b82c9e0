#!/usr/bin/env node
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { toCliError, USAGE } from './cli-error.js';
import { buildProgram } from './program.js';

/**
 * Run the `docket` command line on `argv`; resolves with the exit code. A mistake is one line
 * on stderr; DOCKET_DEBUG=1 adds the stack of an unexpected error.
 */
export async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE;
    const failure = toCliError(error);
    process.stderr.write(`error: ${failure.message}\n`);
    if (process.env.DOCKET_DEBUG && error instanceof Error && error !== failure) {
      process.stderr.write(`${error.stack}\n`);
    }
    return failure.exitCode;
  }
}

void run(process.argv).then((code) => {
  process.exitCode = code;
  // Leave when the work is done, even if a library left a handle open.
  setTimeout(() => process.exit(code), 1_000).unref();
});
