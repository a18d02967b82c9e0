import type { LoggerService, LogLevel } from '@nestjs/common';
import { useColor } from './format.js';

/** Nest's log levels, most verbose first. */
export const LOG_LEVELS: readonly LogLevel[] = [
  'verbose',
  'debug',
  'log',
  'warn',
  'error',
  'fatal',
];

/** `level` and every level above it. */
export function levelsFrom(level: LogLevel): LogLevel[] {
  return LOG_LEVELS.slice(LOG_LEVELS.indexOf(level));
}

/**
 * One JSON object per line on stdout: `{"time","level","context","message"}`, plus `stack`
 * for errors, for log collectors.
 */
export class JsonLogger implements LoggerService {
  private levels: Set<LogLevel>;

  constructor(levels: LogLevel[]) {
    this.levels = new Set(levels);
  }

  setLogLevels(levels: LogLevel[]): void {
    this.levels = new Set(levels);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('log', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  /** Nest calls `error(message, stack?, context?)`. */
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, true);
  }

  private write(level: LogLevel, message: unknown, params: unknown[], isError = false): void {
    if (!this.levels.has(level)) return;
    const rest = [...params];
    const last = rest.at(-1);
    const isStack = typeof last === 'string' && /\n\s+at /.test(last);
    const context = typeof last === 'string' && !isStack ? rest.pop() : undefined;
    const record: Record<string, unknown> = { time: new Date().toISOString(), level };
    if (context) record.context = context;
    if (message instanceof Error) {
      record.message = `${message.name}: ${message.message}`;
      record.stack = message.stack;
    } else {
      record.message = typeof message === 'string' ? message : JSON.stringify(message);
    }
    if (isError && typeof rest[0] === 'string') record.stack = rest.shift();
    const extra = rest.filter((p) => p !== undefined);
    if (extra.length > 0) record.params = extra;
    process.stdout.write(`${JSON.stringify(record)}\n`);
  }
}

/** The logger of `docket worker`: Nest's console logger, or JSON lines. */
export async function createLogger(
  format: 'plain' | 'json',
  level: LogLevel,
): Promise<LoggerService> {
  const levels = levelsFrom(level);
  if (format === 'json') return new JsonLogger(levels);
  const { ConsoleLogger } = await import('@nestjs/common');
  return new ConsoleLogger({ logLevels: levels, colors: useColor, prefix: 'Docket' });
}

/**
 * The logger without the lines of Nest's ExceptionHandler: a boot that fails is reported by
 * the CLI itself, in one line without a stack (DOCKET_DEBUG=1 adds the stack).
 */
export function withoutExceptionHandler(logger: LoggerService): LoggerService {
  return new Proxy(logger, {
    get(target, property, receiver) {
      if (property === 'error') {
        return (message: unknown, ...params: unknown[]) => {
          if (params.at(-1) !== 'ExceptionHandler') target.error(message, ...params);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
