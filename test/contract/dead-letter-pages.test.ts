// DeadLetters.newest() pages the dead letters newest first, unfiltered from the nearer end of
// the list, filtered by reading them in pieces; entries() reads them all in pieces: the same on
// Redis and on memory://.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadLetters, type DeadLetterSearch } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { keyOf, withRaw } from './raw.js';

/** A dead letter as the engine writes it, with its arguments' stored text. */
interface Letter {
  key: string;
  task: string;
  args: string;
  error: string;
}

/** Write `letters` (oldest first) as the engine writes dead letters. */
function addLetters(name: string, letters: Letter[]): Promise<void> {
  return withRaw(async (redis) => {
    const pipeline = redis.pipeline();
    for (const { key, task, args, error } of letters) {
      const fields = ['key', key, 'task', task, 'args', args, 'error', error];
      pipeline.xadd(keyOf(name, 'dead'), '*', ...fields, 'attempt', '1', 'deadAt', '1');
    }
    await pipeline.exec();
  });
}

/** Twelve letters of two tasks, with customers in their arguments and two kinds of error. */
const LETTERS: Letter[] = Array.from({ length: 12 }, (_, i) => ({
  key: i % 3 === 0 ? `Order-${i}` : `k${i}`,
  task: i % 2 ? 'billing.charge' : 'emails.send',
  args: JSON.stringify([{ id: i, customer: i % 4 ? 'Globex' : 'ACME Corp' }]),
  error: i % 5 ? 'Error: card declined' : 'TimeoutError: gateway timeout',
}));

/** What a page must hold: the letters that pass, newest first (as the contract says). */
function expected(filter: DeadLetterSearch, offset: number, limit: number) {
  const q = filter.search?.toLowerCase();
  const passing = [...LETTERS].reverse().filter((letter) => {
    if (filter.task && letter.task !== filter.task) return false;
    if (!q) return true;
    return (
      letter.key.toLowerCase().startsWith(q) ||
      letter.task.toLowerCase().includes(q) ||
      letter.error.toLowerCase().includes(q) ||
      (filter.arguments !== false && letter.args.toLowerCase().includes(q))
    );
  });
  return { total: passing.length, keys: passing.slice(offset, offset + limit).map((l) => l.key) };
}

const FILTERS: DeadLetterSearch[] = [
  {},
  { task: 'billing.charge' },
  { search: 'order-' },
  { search: 'acme' },
  { search: 'acme', arguments: false },
  { search: 'TIMEOUT' },
  { search: 'charge' },
  { task: 'emails.send', search: 'globex' },
  { search: 'nothing like it' },
];

describe('dead letters in pages', () => {
  it('pages every filter newest first, from any offset', async (t) => {
    const docket = await useDocket(t, [], { worker: false });
    const letters = docket.module.get(DeadLetters);
    assert.deepEqual(await letters.newest(0, 5, { search: 'x' }), { total: 0, letters: [] });
    await addLetters(docket.name, LETTERS);

    for (const filter of FILTERS) {
      for (const limit of [1, 4, 50]) {
        for (let offset = 0; offset <= LETTERS.length; offset++) {
          const what = `${JSON.stringify(filter)} from ${offset}, ${limit} a page`;
          const page = await letters.newest(offset, limit, filter);
          assert.deepEqual(
            { total: page.total, keys: page.letters.map((letter) => letter.key) },
            expected(filter, offset, limit),
            what,
          );
        }
      }
    }
    const [newest] = (await letters.newest(0, 1, { search: 'acme' })).letters;
    assert.deepEqual(newest.args, [{ id: 8, customer: 'ACME Corp' }]);
    await assert.rejects(letters.newest(0, 1, { task: 5 as unknown as string }), TypeError);
  });

  it('reads more letters than a piece, all of them or a filtered page', async (t) => {
    const docket = await useDocket(t, [], { worker: false });
    const letters = docket.module.get(DeadLetters);
    const many = Array.from({ length: 2_500 }, (_, i) => ({
      key: `many-${i}`,
      task: 'emails.send',
      args: `[${i}]`,
      error: 'Error: x',
    }));
    await addLetters(docket.name, many);
    const all = await letters.entries();
    assert.deepEqual(
      all.map((letter) => letter.key),
      many.map((letter) => letter.key),
    );
    const last = await letters.newest(2_490, 50);
    assert.deepEqual(
      [last.total, last.letters.map((letter) => letter.key)],
      [
        2_500,
        many
          .slice(0, 10)
          .map((letter) => letter.key)
          .reverse(),
      ],
    );
    // many-24, many-240 … many-249, many-2400 … many-2499: newest first
    const found = many.filter((letter) => letter.key.startsWith('many-24')).reverse();
    const searched = await letters.newest(100, 50, { search: 'MANY-24' });
    assert.deepEqual(
      [searched.total, searched.letters.map((letter) => letter.key)],
      [111, found.slice(100).map((letter) => letter.key)],
    );
    // the newest letter of one key, found past the first piece, and the newest of two
    await addLetters(docket.name, [
      { key: 'many-3', task: 'emails.send', args: '[9]', error: 'E: again' },
    ]);
    assert.deepEqual((await letters.newestOf('many-3'))?.error, 'E: again');
    assert.deepEqual((await letters.newestOf('many-7'))?.args, [7]);
    assert.equal(await letters.newestOf('many-2500'), null);
    await assert.rejects(letters.newestOf(3 as unknown as string), TypeError);
    many.push({ key: 'many-3', task: 'emails.send', args: '[9]', error: 'E: again' });
    const byTask = await letters.newest(1_990, 20, { task: 'emails.send' });
    assert.deepEqual(
      [byTask.total, byTask.letters.map((letter) => letter.key)],
      [
        2_501,
        [...many]
          .reverse()
          .slice(1_990, 2_010)
          .map((letter) => letter.key),
      ],
    );
  });
});
