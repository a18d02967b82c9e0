import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The CPU's model name, as the kernel (or Node) tells it. */
export function cpuModel(): string {
  try {
    const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1];
    if (model) return model.trim();
  } catch {
    // not Linux
  }
  return cpus()[0]?.model ?? 'unknown';
}

/** The commit the docket side was built from, and whether lib/ differs from it. */
export function revision(): string {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const git = (...args: string[]) =>
    spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout?.trim() ?? '';
  const head = git('rev-parse', '--short', 'HEAD');
  if (!head) return 'unknown commit';
  return git('status', '--porcelain', '--', 'lib').length > 0
    ? `${head} with uncommitted changes in lib/`
    : head;
}
