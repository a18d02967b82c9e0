import { DocketConfigurationError } from '../errors/docket-configuration.error.js';
import type {
  DocketModuleOptions,
  DocketWorkerOptions,
} from './docket-module-options.interface.js';
import { parseBoolean, parseDuration, parseWholeNumber } from '../util/typed-value.js';
import type { ResolvedDocketOptions } from './resolve-options.js';

type WorkerKey = Exclude<keyof DocketWorkerOptions, 'autoStart'>;

/** One worker option as the command line and the environment spell it. */
export interface WorkerOptionSpec {
  key: WorkerKey;
  kind: 'text' | 'count' | 'duration' | 'boolean';
  /** The smallest count allowed. @default 1 */
  min?: number;
  description: string;
  /** Help of the `--no-` flag of a boolean. */
  negated?: string;
}

/** Every worker option `docket worker` takes (autoStart is not one: the CLI always works). */
export const WORKER_OPTIONS: readonly WorkerOptionSpec[] = [
  {
    key: 'name',
    kind: 'text',
    description: 'consumer name of this worker (default: hostname#pid)',
  },
  { key: 'concurrency', kind: 'count', description: 'most tasks run at once (default: 10)' },
  {
    key: 'redeliveryTimeout',
    kind: 'duration',
    description: 'a task idle this long (its worker gone) goes to another worker (default: 5m)',
  },
  {
    key: 'reconnectionDelay',
    kind: 'duration',
    description: 'wait after a Redis error before a loop goes on (default: 5s)',
  },
  {
    key: 'minimumCheckInterval',
    kind: 'duration',
    description: 'longest a blocking read for new work waits (default: 1s)',
  },
  {
    key: 'schedulingResolution',
    kind: 'duration',
    description: 'longest the scheduler sleeps (default: 250ms)',
  },
  {
    key: 'scheduleAutomaticTasks',
    kind: 'boolean',
    description: 'seed automatic perpetual and cron tasks at start (default: true)',
    negated: 'do not seed automatic perpetual and cron tasks',
  },
  {
    key: 'shutdownTimeout',
    kind: 'duration',
    description: 'how long a drain waits for running tasks (default: 30s)',
  },
  {
    key: 'maxRedeliveries',
    kind: 'count',
    min: 0,
    description:
      'starts of an attempt whose worker vanished before it is dead-lettered (default: 3)',
  },
];

const snake = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** `concurrency` → `DOCKET_WORKER_CONCURRENCY`. */
export function envName(key: WorkerKey): string {
  return `DOCKET_WORKER_${snake(key)}`;
}

/** `redeliveryTimeout` → `redelivery-timeout`. */
export function flagName(key: WorkerKey): string {
  return snake(key).toLowerCase().replace(/_/g, '-');
}

/** Parse the text of a worker option; throws `InvalidValueError` saying what is expected. */
export function parseWorkerValue(spec: WorkerOptionSpec, text: string): string | number | boolean {
  switch (spec.kind) {
    case 'count':
      return parseWholeNumber(text, spec.min ?? 1);
    case 'duration':
      return parseDuration(text);
    case 'boolean':
      return parseBoolean(text);
    default:
      return text;
  }
}

/**
 * The worker options set in the environment (`DOCKET_WORKER_CONCURRENCY=4`,
 * `DOCKET_WORKER_REDELIVERY_TIMEOUT=5m`, `DOCKET_WORKER_SCHEDULE_AUTOMATIC_TASKS=false`, …);
 * empty variables count as unset. A value that does not parse throws a
 * `DocketConfigurationError` naming the variable.
 */
export function workerOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): DocketWorkerOptions {
  const options: Record<string, unknown> = {};
  for (const spec of WORKER_OPTIONS) {
    const name = envName(spec.key);
    const text = env[name];
    if (text === undefined || text === '') continue;
    try {
      options[spec.key] = parseWorkerValue(spec, text);
    } catch (error) {
      throw new DocketConfigurationError(
        `DocketModule: environment variable ${name}="${text}" is not a valid worker.${spec.key}: ${(error as Error).message}.`,
      );
    }
  }
  return options as DocketWorkerOptions;
}

/**
 * The docket options an operator set in the environment: `DOCKET_URL`, `DOCKET_NAME` and the
 * `DOCKET_WORKER_*` variables. `DocketModule` reads none of them by itself except `DOCKET_URL`;
 * an application opts in with `DocketModule.forRoot({ ...docketOptionsFromEnvironment(), … })`
 * (options written after the spread win).
 */
export function docketOptionsFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): Pick<DocketModuleOptions, 'name' | 'url' | 'worker'> {
  const options: Pick<DocketModuleOptions, 'name' | 'url' | 'worker'> = {};
  if (env.DOCKET_URL) options.url = env.DOCKET_URL;
  if (env.DOCKET_NAME) options.name = env.DOCKET_NAME;
  const worker = workerOptionsFromEnv(env);
  if (Object.keys(worker).length > 0) options.worker = worker;
  return options;
}

/**
 * The `DOCKET_NAME` and `DOCKET_WORKER_*` variables set in `env` whose value the module does
 * not run with (it reads them only through `docketOptionsFromEnvironment()`), for a warning at
 * boot: an operator who sets them expects them to count.
 */
export function ignoredEnvironment(
  resolved: Pick<ResolvedDocketOptions, 'name' | 'worker'>,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const worker = resolved.worker as Record<string, unknown> | false;
  const ignored: string[] = [];
  if (env.DOCKET_NAME && env.DOCKET_NAME !== resolved.name) ignored.push('DOCKET_NAME');
  for (const spec of WORKER_OPTIONS) {
    const name = envName(spec.key);
    const text = env[name];
    if (text === undefined || text === '' || !worker) continue;
    let value: unknown;
    try {
      value = parseWorkerValue(spec, text);
    } catch {
      value = undefined;
    }
    if (worker[spec.key] !== value) ignored.push(name);
  }
  return ignored;
}
