import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';

/**
 * The version in nestjs-docket's package.json, found upwards from this file. The command line
 * runs from the package's CommonJS build, where `__dirname` is this file's folder.
 */
export function packageVersion(): string {
  let dir = __dirname;
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'nestjs-docket' && pkg.version) return pkg.version;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/** `docket version`. */
export function registerVersion(program: Command): void {
  program
    .command('version')
    .description('print the version of nestjs-docket')
    .action(() => console.log(packageVersion()));
}
