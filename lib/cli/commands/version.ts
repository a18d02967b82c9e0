import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';

/**
 * Where to look for nestjs-docket's package.json, upwards. The command line runs from the
 * package's CommonJS build, where `__dirname` is this file's folder. The repository's own build
 * (.out/, run by the tests) is ES modules, where `__dirname` does not exist and `import.meta`
 * cannot be written (the same source compiles to CommonJS): there it is the folder of the
 * script node runs, or else the working directory.
 */
function startDir(): string {
  if (typeof __dirname === 'string') return __dirname;
  const script = process.argv[1];
  return script && existsSync(script) ? dirname(realpathSync(script)) : process.cwd();
}

/** The version in nestjs-docket's package.json, found upwards (see `startDir`). */
export function packageVersion(): string {
  let dir = startDir();
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
