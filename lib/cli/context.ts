import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { DEFAULTS } from '../config/defaults.js';
import type { DocketClient } from '../public-api.js';
import { parseRedisUrl, redactUrl } from '../store/redis-url.js';
import { toCliError, usageError } from './cli-error.js';

/** The docket a command works on, from `--url` / `DOCKET_URL` and `--docket` / `DOCKET_NAME`. */
export interface Target {
  url: string;
  name: string;
}

export const DEFAULT_URL: string = DEFAULTS.url;
export const DEFAULT_NAME: string = DEFAULTS.name;

/** Check a docket name as `DocketModule` would, as a usage error. */
export function checkDocketName(name: string): void {
  if (!/^[^\s{}]+$/.test(name)) {
    throw usageError(
      `docket name "${name}" is not valid: use a non-empty name without spaces or braces`,
    );
  }
}

/**
 * Check a Redis URL as a usage error (its password never shown). `memory://` lives inside one
 * process, so only `docket worker`, which runs the application itself, may be given one.
 */
export function checkUrl(url: string, command: string): void {
  try {
    const target = parseRedisUrl(url);
    if (target.kind === 'memory' && command !== 'worker') {
      throw usageError(
        `docket ${command} cannot use ${redactUrl(url)}: a memory:// docket lives inside the process that ` +
          'created it and cannot be inspected from another one; give a redis:// URL',
      );
    }
  } catch (error) {
    throw toCliError(error);
  }
}

/** `workers ls` for the command `ls` under `workers`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The checked target of `command` from its own and its parents' options. */
export function targetOf(command: Command): Target {
  const { url, docket } = command.optsWithGlobals<{ url: string; docket: string }>();
  checkDocketName(docket);
  checkUrl(url, commandPath(command));
  return { url, name: docket };
}

/**
 * Boot a producer-only Nest context on `target` (no worker, no metrics, no logs), run `fn` with
 * its `DocketClient`, and close it, whatever happens.
 */
export async function withClient<T>(
  target: Target,
  fn: (client: DocketClient, app: INestApplicationContext) => Promise<T>,
): Promise<T> {
  // Nest loads in a second or so: only the commands that talk to Redis pay for it.
  const [{ NestFactory }, { DocketModule, DocketClient }] = await Promise.all([
    import('@nestjs/core'),
    import('../public-api.js'),
  ]);
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(
      DocketModule.forRoot({ name: target.name, url: target.url, worker: false, metrics: false }),
      { logger: false, abortOnError: false },
    );
  } catch (error) {
    throw toCliError(error);
  }
  try {
    return await fn(app.get(DocketClient), app);
  } catch (error) {
    throw toCliError(error);
  } finally {
    await app.close().catch(() => undefined);
  }
}
