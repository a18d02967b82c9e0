import { InvalidArgumentError, Option } from 'commander';
import { DEFAULT_NAME, DEFAULT_URL } from './context.js';
import { InvalidValueError } from '../util/typed-value.js';

/** A commander argument parser from one of ours: a bad value becomes a usage error. */
export function argParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text: string) => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof InvalidValueError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

/** `--url` (env DOCKET_URL) and `--docket` (env DOCKET_NAME), taken by every command. */
export function commonOptions(): Option[] {
  return [
    new Option('-u, --url <url>', 'Redis URL of the docket').env('DOCKET_URL').default(DEFAULT_URL),
    new Option('-d, --docket <name>', 'name of the docket')
      .env('DOCKET_NAME')
      .default(DEFAULT_NAME),
  ];
}

/** `--json`: machine-readable output. */
export function jsonOption(): Option {
  return new Option('--json', 'print JSON for scripts');
}
