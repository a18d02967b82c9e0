import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeArgs, decodeResult, encodeArgs, encodeResult } from '../../lib/execution/codec.js';

describe('codec', () => {
  it('round-trips the values JSON cannot carry', () => {
    const args = [
      new Date('2024-02-29T12:34:56.789Z'),
      12345678901234567890n,
      new Map<unknown, unknown>([
        ['a', 1],
        [2, new Set(['x'])],
      ]),
      new Set([1, 'two', null]),
      Buffer.from([0, 1, 2, 255]),
      undefined,
      { nested: { when: new Date(0), big: -1n, list: [undefined, 1, 'x'] } },
      NaN,
      Infinity,
      null,
      'text',
      false,
    ];
    const decoded = decodeArgs(encodeArgs(args));
    assert.equal(decoded.length, args.length);
    assert.deepEqual(decoded, args);
    assert.ok(decoded[0] instanceof Date);
    assert.equal(typeof decoded[1], 'bigint');
    assert.ok(Buffer.isBuffer(decoded[4]));
    assert.ok(Number.isNaN(decoded[7]));
  });

  it('keeps an undefined argument in its position', () => {
    assert.deepEqual(decodeArgs(encodeArgs([1, undefined, 3])), [1, undefined, 3]);
    assert.deepEqual(decodeArgs(encodeArgs([])), []);
  });

  it('escapes a plain object that has a $t key', () => {
    const tricky = { $t: 'Date', v: 'not a date' };
    const text = encodeArgs([tricky, { inner: { $t: 'BigInt', v: '1' } }]);
    const [first, second] = decodeArgs(text);
    assert.deepEqual(first, tricky);
    assert.deepEqual(second, { inner: { $t: 'BigInt', v: '1' } });
    assert.equal(typeof (second as { inner: { v: unknown } }).inner.v, 'string');
  });

  it('does not evaluate anything when decoding', () => {
    const text = JSON.stringify([{ $t: 'Function', v: 'process.exit(1)' }]);
    assert.throws(() => decodeArgs(text), TypeError);
  });

  it('refuses a function, a symbol and a cycle naming the 0-based position', () => {
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    assert.throws(
      () => encodeArgs(['ok', () => 1]),
      (error: Error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^argument 1\b/);
        assert.match(error.message, /function/);
        return true;
      },
    );
    assert.throws(() => encodeArgs([Symbol('s')]), /^TypeError: argument 0\b.*symbol/s);
    assert.throws(
      () => encodeArgs([1, 2, { deep: [cycle] }]),
      (error: Error) =>
        error instanceof TypeError &&
        /^argument 2\b/.test(error.message) &&
        /circular/.test(error.message),
    );
  });

  it('accepts the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    assert.deepEqual(decodeArgs(encodeArgs([shared, [shared, shared]])), [
      { a: 1 },
      [{ a: 1 }, { a: 1 }],
    ]);
  });

  it('rejects text that is not an encoded argument list', () => {
    assert.throws(() => decodeArgs('{"a":1}'), TypeError);
    assert.throws(() => decodeArgs('not json'), SyntaxError);
    assert.throws(() => decodeArgs(JSON.stringify([{ $t: 'Nope' }])), /unknown value tag/);
  });

  it('round-trips results, with undefined and null kept apart', () => {
    const value = { at: new Date(1), n: 3n, m: new Map([[1, 2]]), u: undefined, z: null };
    assert.deepEqual(decodeResult(encodeResult(value)), value);
    assert.equal(decodeResult(encodeResult(null)), null);
    assert.equal(decodeResult(encodeResult(undefined)), undefined);
    assert.throws(
      () => encodeResult({ f: () => 1 }),
      /^TypeError: the task's result\.f is a function/,
    );
  });

  it('keeps a "__proto__" key as data, without changing the prototype', () => {
    const [decoded] = decodeArgs('[{"__proto__":{"isAdmin":true}}]') as [Record<string, unknown>];
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.equal((decoded as { isAdmin?: unknown }).isAdmin, undefined);
    assert.ok(Object.hasOwn(decoded, '__proto__'));
  });

  it('refuses a RegExp or an Error, which JSON would silently turn into {}', () => {
    assert.throws(() => encodeArgs(['ok', /x/g]), typeErrorAt(1));
    assert.throws(() => encodeArgs([{ cause: new Error('boom') }]), typeErrorAt(0));
  });
});

function typeErrorAt(position: number) {
  return (error: Error) =>
    error instanceof TypeError && new RegExp(`^argument ${position}\\b`).test(error.message);
}
