import { Command } from 'commander';
import {
  registerClear,
  registerDead,
  registerExplain,
  registerPause,
  registerSnapshot,
  registerStrikes,
  registerTasks,
  registerVersion,
  registerWatch,
  registerWorker,
  registerWorkers,
} from './commands/index.js';
import { packageVersion } from '../util/package-version.js';
import { commonOptions } from './options.js';

/** The `docket` command line: its options, commands and error reporting. */
export function buildProgram(): Command {
  const program = new Command('docket')
    .description('Work and inspect a nestjs-docket docket on Redis')
    .version(packageVersion(), '-V, --version', 'print the version of nestjs-docket')
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError()
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      // Commander's own errors are one line; main.ts turns them into exit code 2.
      outputError: (text, write) => write(text.endsWith('\n') ? text : `${text}\n`),
    });
  for (const option of commonOptions()) program.addOption(option);
  registerWorker(program);
  registerSnapshot(program);
  registerWatch(program);
  registerStrikes(program);
  registerPause(program);
  registerExplain(program);
  registerClear(program);
  registerWorkers(program);
  registerDead(program);
  registerTasks(program);
  registerVersion(program);
  return program;
}
