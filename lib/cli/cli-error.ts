/** Exit code for a usage error: unknown command or flag, bad value, bad URL. */
export const USAGE = 2;

/**
 * A failure the CLI reports as one line on stderr, without a stack: the user's mistake or a
 * state of the world (Redis unreachable, unknown key). `exitCode` 2 means a usage error.
 */
export class CliError extends Error {
  override name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A usage error (exit code 2). */
export function usageError(message: string): CliError {
  return new CliError(message, USAGE);
}

/**
 * What the CLI says about an error: its own errors as they are, a bad option or URL as a usage
 * error, Redis trouble as one line with exit code 1; anything else keeps its message.
 */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof Error) {
    const message = error.message.replace(/^DocketModule: /, '');
    if (error.name === 'DocketConfigurationError') return usageError(message);
    if (error.name === 'RedisUnavailableError') return new CliError(message);
    if (error.name === 'ReplyError') return new CliError(`Redis answered: ${message}`);
    return new CliError(message);
  }
  return new CliError(String(error));
}
