import type { Command } from 'commander';
import { packageVersion } from '../../util/package-version.js';

/** `docket version`. */
export function registerVersion(program: Command): void {
  program
    .command('version')
    .description('print the version of nestjs-docket')
    .action(() => console.log(packageVersion()));
}
