import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where to look for nestjs-docket's package.json, upwards. The package's CommonJS build has
 * `__dirname`, this file's folder. The repository's own build (.out/, run by the tests) is ES
 * modules, where `__dirname` does not exist and `import.meta` cannot be written (the same
 * source compiles to CommonJS): there it is the folder of the script node runs, or else the
 * working directory.
 */
function startDir(): string {
  if (typeof __dirname === 'string') return __dirname;
  const script = process.argv[1];
  return script && existsSync(script) ? dirname(realpathSync(script)) : process.cwd();
}

let found: string | undefined;

/** The version in nestjs-docket's package.json, found upwards (read once; 'unknown' if none). */
export function packageVersion(): string {
  if (found !== undefined) return found;
  let dir = startDir();
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'nestjs-docket' && pkg.version) return (found = pkg.version);
      } catch {
        // an unreadable package.json of something else: look further up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return (found = 'unknown');
    dir = parent;
  }
}
