// DeadLetters reads the dead letters in bounded pieces up to a bound fixed when a sweep
// begins, finds them by id, and deletes them by id: the same on Redis and on memory://.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeadLetters } from '../../lib/index.js';
import { useDocket } from '../utils.js';
import { keyOf, withRaw } from './raw.js';

/** Dead letters `keys` written as the engine writes them; their ids, in order. */
function addLetters(name: string, keys: string[]): Promise<string[]> {
  return withRaw(async (redis) => {
    const ids: string[] = [];
    for (const key of keys) {
      const fields = ['key', key, 'task', 'quick', 'args', '[1]', 'error', 'Error: x'];
      fields.push('attempt', '1', 'deadAt', String(Date.now()));
      ids.push((await redis.xadd(keyOf(name, 'dead'), '*', ...fields))!);
    }
    return ids;
  });
}

describe('dead letters in pieces', () => {
  it('pages the newest first, reading only up to the end of the page', async (t) => {
    const docket = await useDocket(t, [], { worker: false });
    const letters = docket.module.get(DeadLetters);
    assert.deepEqual(await letters.newest(0, 10), { total: 0, letters: [] });
    await addLetters(docket.name, ['a', 'b', 'c', 'd', 'e']);
    const keys = async (offset: number, limit: number) => {
      const page = await letters.newest(offset, limit);
      return [page.total, page.letters.map((letter) => letter.key)];
    };
    assert.deepEqual(await keys(0, 2), [5, ['e', 'd']]);
    assert.deepEqual(await keys(2, 2), [5, ['c', 'b']]);
    assert.deepEqual(await keys(4, 2), [5, ['a']]);
    assert.deepEqual(await keys(9, 2), [5, []]);
    await assert.rejects(letters.newest(-1, 2), /offset must be a whole number/);
    await assert.rejects(letters.newest(0, 0), /limit must be a whole number/);
  });

  it('scans up to the bound, finds by id and deletes by id', async (t) => {
    const docket = await useDocket(t, [], { worker: false });
    const letters = docket.module.get(DeadLetters);
    assert.equal(await letters.newestId(), null);

    const ids = await addLetters(docket.name, ['a', 'b', 'c', 'd', 'e']);
    const until = (await letters.newestId())!;
    assert.equal(until, ids[4]);
    // added after the sweep began: not met
    await addLetters(docket.name, ['late']);

    const keys: string[][] = [];
    let after: string | null = null;
    for (;;) {
      const piece = await letters.scan(after, until, 2);
      keys.push(piece.letters.map((letter) => letter.key));
      if (piece.next === null) break;
      after = piece.next;
    }
    assert.deepEqual(keys, [['a', 'b'], ['c', 'd'], ['e']]);

    const found = await letters.byIds([ids[1], '1-0']);
    assert.deepEqual(
      found.map((letter) => letter && [letter.id, letter.key]),
      [[ids[1], 'b'], null],
    );
    assert.equal(await letters.delete([ids[0], ids[1], '1-0']), 2);
    assert.deepEqual(
      (await letters.entries()).map((letter) => letter.key),
      ['c', 'd', 'e', 'late'],
    );
    await assert.rejects(letters.delete(['not-an-id']), TypeError);
  });
});
