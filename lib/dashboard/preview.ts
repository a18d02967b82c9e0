import { inspect } from 'node:util';

const LIMIT = 400;

/**
 * A short, one-line text of task arguments for the page: `inspect` shows what JSON cannot
 * (BigInt, Map, Set, Buffer, Date) and never throws; long values are cut.
 */
export function previewArgs(args: unknown[] | string): string {
  const text =
    typeof args === 'string'
      ? `(undecodable) ${args}`
      : args
          .map((arg) =>
            inspect(arg, {
              depth: 3,
              breakLength: Infinity,
              compact: true,
              maxArrayLength: 10,
              maxStringLength: 120,
            }),
          )
          .join(', ');
  return text.length > LIMIT ? `${text.slice(0, LIMIT - 1)}…` : text;
}
