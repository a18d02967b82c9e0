import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

/** One Lua script of `commands/`, named `<name>-<numKeys>.lua`. */
export interface DocketScript {
  readonly command: string;
  readonly numberOfKeys: number;
  readonly lua: string;
}

const read = (file: string): string =>
  readFileSync(new URL(`./lua/${file}`, import.meta.url), 'utf8');

/** Functions every script may call (schedule_run, release_slot), prepended to each. */
const COMMON = read('_common.lua');

function load(name: string, numberOfKeys: number): DocketScript {
  const lua = `${COMMON}\n${read(`${name}-${numberOfKeys}.lua`)}`;
  return { command: `docket_${name.replace(/-/g, '_')}`, numberOfKeys, lua };
}

/** Every script the engine runs; each multi-step change of Redis state is one of these. */
export const SCRIPTS = {
  schedule: load('schedule', 4),
  scheduleMany: load('schedule-many', 2),
  moveDue: load('move-due', 2),
  claim: load('claim', 1),
  finish: load('finish', 2),
  cancel: load('cancel', 4),
  heartbeat: load('heartbeat', 2),
  unregister: load('unregister', 2),
  clear: load('clear', 2),
  progress: load('progress', 2),
  strike: load('strike', 1),
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** Register every script on a client (EVALSHA with a load on NOSCRIPT). */
export function defineScripts(client: Redis | Cluster): void {
  for (const script of Object.values(SCRIPTS)) {
    if (typeof (client as any)[script.command] === 'function') continue;
    client.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
}

/** Run one script on a client on which `defineScripts` was called. */
export function runScript<T = unknown>(
  client: Redis | Cluster,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<T> {
  const script = SCRIPTS[name];
  return (client as any)[script.command](...keys, ...args) as Promise<T>;
}
