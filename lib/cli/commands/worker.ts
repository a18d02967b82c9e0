import type { LoggerService, LogLevel } from '@nestjs/common';
import { type Command, Option } from 'commander';
import type { DynamicModule } from '@nestjs/common';
import type { DocketConfiguration, DocketInspector, DocketWorker } from '../../public-api.js';
import { redactUrl } from '../../store/redis-url.js';
import { toCliError, usageError } from '../cli-error.js';
import { checkDocketName, checkUrl } from '../context.js';
import { createLogger, LOG_LEVELS, withoutExceptionHandler } from '../json-logger.js';
import { loadModule } from '../load-module.js';
import { argParser } from '../options.js';
import {
  envName,
  flagName,
  parseWorkerValue,
  WORKER_OPTIONS,
  workerOptionsFromEnv,
} from '../../config/environment.js';
import type { DocketModuleOptions } from '../../public-api.js';

const CONTEXT = 'DocketCli';

interface WorkerFlags {
  module: string;
  url: string;
  docket: string;
  logFormat: 'plain' | 'json';
  logLevel: LogLevel;
  [key: string]: unknown;
}

function workerOptions(): Option[] {
  return WORKER_OPTIONS.flatMap((spec) => {
    const flag = flagName(spec.key);
    const env = `(env: ${envName(spec.key)})`;
    if (spec.kind === 'boolean') {
      return [
        new Option(`--${flag}`, `${spec.description} ${env}`),
        new Option(`--no-${flag}`, spec.negated),
      ];
    }
    const value =
      spec.kind === 'duration' ? '<duration>' : spec.kind === 'count' ? '<n>' : '<name>';
    return [
      new Option(`--${flag} ${value}`, `${spec.description} ${env}`).argParser(
        argParser((text) => parseWorkerValue(spec, text)),
      ),
    ];
  });
}

/** `docket worker --module <file>[#Export]`: boot the application and work until a signal. */
export function registerWorker(program: Command): void {
  const command = program
    .command('worker')
    .description(
      'boot a Nest module as an application context and work its docket until SIGTERM/SIGINT, then drain',
    )
    .addOption(
      new Option(
        '-m, --module <file[#Export]>',
        'compiled Nest module to boot (export AppModule by default)',
      )
        .env('DOCKET_MODULE')
        .makeOptionMandatory(),
    );
  for (const option of workerOptions()) command.addOption(option);
  command
    .addOption(
      new Option('--log-format <format>', 'log lines as text or one JSON object per line')
        .choices(['plain', 'json'])
        .env('DOCKET_LOG_FORMAT')
        .default('plain'),
    )
    .addOption(
      new Option('--log-level <level>', 'least severe level logged')
        .choices(LOG_LEVELS)
        .env('DOCKET_LOG_LEVEL')
        .default('log'),
    )
    .addHelpText(
      'after',
      '\nDurations: milliseconds (1500) or 500ms, 5s, 2m, 1h, 1m30s.\n' +
        'Flags (and DOCKET_URL, DOCKET_NAME, DOCKET_WORKER_* variables) are defaults of the\n' +
        "module's DocketModule; options written in its forRoot() win over them (a warning says so).",
    )
    .action((_flags: unknown, cmd: Command) => work(cmd.optsWithGlobals<WorkerFlags>(), cmd));
}

/** What the flags (and DOCKET_WORKER_* variables, below them) ask of the module's docket. */
function requestedOptions(
  flags: WorkerFlags,
  cmd: Command,
): Pick<DocketModuleOptions, 'name' | 'url' | 'worker'> {
  let worker: Record<string, unknown>;
  try {
    worker = { ...workerOptionsFromEnv() };
  } catch (error) {
    throw usageError(toCliError(error).message);
  }
  for (const spec of WORKER_OPTIONS) {
    if (flags[spec.key] !== undefined) worker[spec.key] = flags[spec.key];
  }
  const requested: Pick<DocketModuleOptions, 'name' | 'url' | 'worker'> = { worker };
  if (cmd.getOptionValueSourceWithGlobals('url') !== 'default') requested.url = flags.url;
  if (cmd.getOptionValueSourceWithGlobals('docket') !== 'default') requested.name = flags.docket;
  return requested;
}

async function work(flags: WorkerFlags, cmd: Command): Promise<void> {
  checkDocketName(flags.docket);
  checkUrl(flags.url, 'worker');
  const requested = requestedOptions(flags, cmd);
  const loaded = await loadModule(flags.module);
  const [{ NestFactory }, api] = await Promise.all([
    import('@nestjs/core'),
    import('../../public-api.js'),
  ]);
  const logger = withoutExceptionHandler(await createLogger(flags.logFormat, flags.logLevel));
  // The requested options reach the application's DocketModule as its defaults, through a
  // global provider next to the module (the module's own forRoot options win over them).
  const root: DynamicModule = {
    module: class DocketCliRoot {},
    imports: [
      {
        module: class DocketCliDefaults {},
        global: true,
        providers: [{ provide: api.DOCKET_OPTION_DEFAULTS, useValue: requested }],
        exports: [api.DOCKET_OPTION_DEFAULTS],
      },
      loaded.module,
    ],
  };
  const app = await NestFactory.createApplicationContext(root, {
    logger,
    abortOnError: false,
  });
  const stopping = untilSignal();
  try {
    const options = docketOptions(
      () =>
        app.get<typeof DocketInspector, DocketInspector>(api.DocketInspector, { strict: false }),
      loaded.label,
    );
    warnAboutOverrides(
      logger,
      flags,
      cmd,
      (requested.worker ?? {}) as Record<string, unknown>,
      options,
    );
    if (options.worker && !options.worker.autoStart) {
      void app
        .get<typeof DocketWorker, DocketWorker>(api.DocketWorker, { strict: false })
        .runForever();
    }
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  logger.log(`working ${loaded.label}; SIGTERM or SIGINT drains and stops`, CONTEXT);
  const signal = await stopping;
  logger.log(`${signal}: draining (a second signal stops at once)`, CONTEXT);
  const force = (second: NodeJS.Signals) => {
    logger.warn(`${second}: stopping without draining; running tasks go to redelivery`, CONTEXT);
    process.exit(1);
  };
  process.once('SIGTERM', force).once('SIGINT', force);
  await app.close();
  logger.log('drained; bye', CONTEXT);
}

function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', on).off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on).on('SIGINT', on);
  });
}

/** The options of the application's docket; a usage error when it has no worker. */
function docketOptions(find: () => DocketInspector, label: string): DocketConfiguration {
  let options: DocketConfiguration;
  try {
    options = find().configuration();
  } catch {
    throw usageError(
      `${label} does not import DocketModule (or imports another copy of nestjs-docket than ` +
        `this CLI's): import DocketModule.forRoot() in it, and run the docket command of the ` +
        `application's own nestjs-docket`,
    );
  }
  if (!options.worker) {
    throw usageError(
      `the DocketModule of ${label} has worker: false, so it cannot work; give it worker options ` +
        '(or {}) when it runs under docket worker',
    );
  }
  return options;
}

/** Say which requested options the module's own `forRoot` options overrode. */
function warnAboutOverrides(
  logger: LoggerService,
  flags: WorkerFlags,
  cmd: Command,
  requested: Record<string, unknown>,
  options: DocketConfiguration,
): void {
  const overridden: string[] = [];
  if (
    cmd.getOptionValueSourceWithGlobals('url') !== 'default' &&
    options.url !== redactUrl(flags.url)
  ) {
    overridden.push(`url ${options.url} (asked: ${redactUrl(flags.url)})`);
  }
  if (
    cmd.getOptionValueSourceWithGlobals('docket') !== 'default' &&
    options.name !== flags.docket
  ) {
    overridden.push(`name "${options.name}" (asked: "${flags.docket}")`);
  }
  const worker = options.worker as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(requested)) {
    if (worker[key] !== value) {
      overridden.push(
        `worker.${key} ${JSON.stringify(worker[key])} (asked: ${JSON.stringify(value)})`,
      );
    }
  }
  if (overridden.length > 0) {
    logger.warn(
      `the module's DocketModule options win over flags and environment: ${overridden.join(', ')}`,
      CONTEXT,
    );
  }
}
