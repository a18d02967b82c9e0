import type { INestApplicationContext } from '@nestjs/common';
import type { Command } from 'commander';
import { DEFAULTS } from '../config/defaults.js';
import type { DocketClient, DocketInspector } from '../public-api.js';
import { parseRedisUrl, redactUrl } from '../store/redis-url.js';
import { CliError, toCliError, usageError } from './cli-error.js';

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

/** What a command works with: the docket's client and its read model. */
export interface Docket {
  client: DocketClient;
  inspector: DocketInspector;
}

/** `docket 'orders' on redis://…/0`: the target of a command, its password masked. */
export function describeTarget(target: Target): string {
  return `docket '${target.name}' on ${redactUrl(target.url)}`;
}

/** How many docket names a message lists before it says how many more there are. */
const NAMES_SHOWN = 20;

/**
 * Undefined when the docket has keys on its database; else a sentence saying that it was never
 * used there (a mistyped name, or the wrong database) and naming the dockets that are there.
 */
export async function neverUsed(docket: Docket, target: Target): Promise<string | undefined> {
  if (await docket.inspector.exists()) return undefined;
  const names = await docket.inspector.dockets();
  const there =
    names.length === 0
      ? 'there is no docket on that database'
      : `dockets there: ${names.slice(0, NAMES_SHOWN).join(', ')}` +
        (names.length > NAMES_SHOWN ? ` (and ${names.length - NAMES_SHOWN} more)` : '');
  return `${describeTarget(target)} has never been used (none of its keys is there); ${there}`;
}

/**
 * What `withDocket` does about a docket never used on its database (see `neverUsed`): an error
 * ('require': an empty answer would look like an idle docket), a note on stderr before going on
 * ('warn': for writes that are legal there, but often a typo), or nothing (false).
 */
export type UsedCheck = 'require' | 'warn' | false;

/**
 * Boot a producer-only Nest context on `target` (no worker, no metrics, no logs), run `fn` with
 * its client and read model, and close it, whatever happens. First, by default, a docket that
 * was never used on that database is an error (see `UsedCheck`).
 */
export async function withDocket<T>(
  target: Target,
  fn: (docket: Docket) => Promise<T>,
  options: { used?: UsedCheck } = {},
): Promise<T> {
  const { used = 'require' } = options;
  // Nest loads in a second or so: only the commands that talk to Redis pay for it.
  const [{ NestFactory }, { DocketModule, DocketClient, DocketInspector }] = await Promise.all([
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
    const docket: Docket = { client: app.get(DocketClient), inspector: app.get(DocketInspector) };
    const unused = used === false ? undefined : await neverUsed(docket, target);
    if (unused && used === 'require') throw new CliError(unused);
    if (unused) console.error(`note: ${unused}`);
    return await fn(docket);
  } catch (error) {
    throw toCliError(error);
  } finally {
    await app.close().catch(() => undefined);
  }
}
