import { hostname } from 'node:os';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { DEFAULTS } from './defaults.js';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import type { DocketModuleOptions } from './docket-module-options.interface.js';
import { parseRedisUrl } from '../store/redis-url.js';

export interface ResolvedWorkerOptions {
  name: string;
  concurrency: number;
  redeliveryTimeout: number;
  reconnectionDelay: number;
  minimumCheckInterval: number;
  schedulingResolution: number;
  scheduleAutomaticTasks: boolean;
  shutdownTimeout: number;
  autoStart: boolean;
  maxRedeliveries: number;
  fallbackTask?: string;
}

/** Module options with every default filled in and every value checked. */
export interface ResolvedDocketOptions {
  name: string;
  url: string;
  connection?: RedisOptions | Redis | Cluster;
  executionTtl: number;
  heartbeatInterval: number;
  missedHeartbeats: number;
  maxPayloadBytes: number;
  maxKeyBytes: number;
  deadLetterTtl: number;
  metrics: boolean;
  worker: ResolvedWorkerOptions | false;
}

function check(condition: boolean, option: string, value: unknown, fix: string): void {
  if (!condition) {
    throw new DocketConfigurationError(
      `DocketModule: option "${option}" is ${JSON.stringify(value) ?? String(value)}; ${fix}.`,
    );
  }
}

function duration(value: unknown, option: string, min = 0): void {
  check(
    typeof value === 'number' && Number.isFinite(value) && value >= min,
    option,
    value,
    `it must be a number of milliseconds ≥ ${min}`,
  );
}

const KNOWN = new Set([
  'name',
  'url',
  'connection',
  'executionTtl',
  'heartbeatInterval',
  'missedHeartbeats',
  'maxPayloadBytes',
  'maxKeyBytes',
  'metrics',
  'worker',
]);
const KNOWN_WORKER = new Set(Object.keys(DEFAULTS.worker).concat('name', 'fallbackTask'));

/**
 * Merge defaults into user options (the one place defaults are applied) and validate them.
 * `below` holds options given from outside the module (the CLI's flags): the module's own
 * options win over them. Of the environment only `DOCKET_URL` is read (the default URL).
 */
export function resolveOptions(
  options: DocketModuleOptions = {},
  below: Pick<DocketModuleOptions, 'name' | 'url' | 'worker'> = {},
): ResolvedDocketOptions {
  for (const key of Object.keys(options)) {
    check(
      KNOWN.has(key),
      key,
      (options as Record<string, unknown>)[key],
      'there is no such option',
    );
  }
  const name = options.name ?? below.name ?? DEFAULTS.name;
  check(
    typeof name === 'string' && /^[^\s{}]+$/.test(name),
    'name',
    name,
    'use a non-empty name without spaces or braces',
  );
  const url = options.url ?? below.url ?? (process.env.DOCKET_URL || undefined) ?? DEFAULTS.url;
  check(typeof url === 'string', 'url', url, 'it must be a string');
  parseRedisUrl(url);
  const resolved: ResolvedDocketOptions = {
    name,
    url,
    connection: options.connection,
    executionTtl: options.executionTtl ?? DEFAULTS.executionTtl,
    heartbeatInterval: options.heartbeatInterval ?? DEFAULTS.heartbeatInterval,
    missedHeartbeats: options.missedHeartbeats ?? DEFAULTS.missedHeartbeats,
    maxPayloadBytes: options.maxPayloadBytes ?? DEFAULTS.maxPayloadBytes,
    maxKeyBytes: options.maxKeyBytes ?? DEFAULTS.maxKeyBytes,
    deadLetterTtl: DEFAULTS.deadLetterTtl,
    metrics: options.metrics ?? true,
    worker: false,
  };
  duration(resolved.executionTtl, 'executionTtl');
  duration(resolved.heartbeatInterval, 'heartbeatInterval', 1);
  check(
    Number.isInteger(resolved.missedHeartbeats) && resolved.missedHeartbeats >= 1,
    'missedHeartbeats',
    resolved.missedHeartbeats,
    'it must be a whole number ≥ 1',
  );
  check(
    Number.isInteger(resolved.maxPayloadBytes) && resolved.maxPayloadBytes >= 1,
    'maxPayloadBytes',
    resolved.maxPayloadBytes,
    'it must be a whole number of bytes ≥ 1',
  );
  check(
    Number.isInteger(resolved.maxKeyBytes) && resolved.maxKeyBytes >= 1,
    'maxKeyBytes',
    resolved.maxKeyBytes,
    'it must be a whole number of bytes ≥ 1',
  );
  check(typeof resolved.metrics === 'boolean', 'metrics', resolved.metrics, 'use true or false');
  if (options.worker !== false) {
    const w = options.worker ?? {};
    check(
      typeof w === 'object' && w !== null,
      'worker',
      w,
      'use an object of worker options or false',
    );
    for (const key of Object.keys(w)) {
      check(
        KNOWN_WORKER.has(key),
        `worker.${key}`,
        (w as Record<string, unknown>)[key],
        'there is no such worker option',
      );
    }
    const worker: ResolvedWorkerOptions = {
      ...DEFAULTS.worker,
      name: `${hostname()}#${process.pid}`,
      ...(below.worker || {}),
      ...Object.fromEntries(Object.entries(w).filter(([, v]) => v !== undefined)),
    };
    check(
      typeof worker.name === 'string' && worker.name.length > 0,
      'worker.name',
      worker.name,
      'use a non-empty string',
    );
    check(
      Number.isInteger(worker.concurrency) && worker.concurrency >= 1,
      'worker.concurrency',
      worker.concurrency,
      'it must be a whole number ≥ 1',
    );
    duration(worker.redeliveryTimeout, 'worker.redeliveryTimeout', 4);
    duration(worker.reconnectionDelay, 'worker.reconnectionDelay');
    duration(worker.minimumCheckInterval, 'worker.minimumCheckInterval', 1);
    duration(worker.schedulingResolution, 'worker.schedulingResolution', 1);
    duration(worker.shutdownTimeout, 'worker.shutdownTimeout');
    check(
      Number.isInteger(worker.maxRedeliveries) && worker.maxRedeliveries >= 0,
      'worker.maxRedeliveries',
      worker.maxRedeliveries,
      'it must be a whole number ≥ 0',
    );
    check(
      worker.fallbackTask === undefined ||
        (typeof worker.fallbackTask === 'string' && worker.fallbackTask !== ''),
      'worker.fallbackTask',
      worker.fallbackTask,
      'give the name of a @DocketTask of this application',
    );
    for (const flag of ['scheduleAutomaticTasks', 'autoStart'] as const) {
      check(typeof worker[flag] === 'boolean', `worker.${flag}`, worker[flag], 'use true or false');
    }
    resolved.worker = worker;
  }
  return resolved;
}
