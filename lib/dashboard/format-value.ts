import { inspect } from 'node:util';

/**
 * One value in full for the detail page, over several lines: `inspect` shows what JSON cannot
 * (`123n`, a `Date`, `Map(1) {…}`, `Set`, `<Buffer …>`, `undefined`) and never throws; very
 * long values are cut.
 */
export function formatValue(value: unknown): string {
  return inspect(value, {
    depth: 8,
    breakLength: 80,
    compact: 3,
    maxArrayLength: 200,
    maxStringLength: 20_000,
    sorted: false,
  });
}
