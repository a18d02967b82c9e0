import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parameterNames } from '../../lib/explorer/parameter-names.js';

/* eslint-disable @typescript-eslint/no-unused-vars */
class Handlers {
  plain(userId: string, locale: string) {}
  defaults(a = 1, b = 'x,y', c = (1 + 2) * 3, d = { k: [1, 2] }, e = `t(${a})`) {}
  destructured({ id, name }: { id: number; name: string }, [first]: number[], ...rest: unknown[]) {}
  async asyncMethod(order: { customerId: string }, ctx?: unknown) {}
  none() {}
  commented(
    /* the user */ userId: string, // trailing
    locale: string,
  ) {}
  arrowDefault(cb = (x: number) => x * 2, after = 0) {}
}
/* eslint-enable @typescript-eslint/no-unused-vars */

const p = Handlers.prototype;

describe('parameterNames', () => {
  it('reads plain names in order', () => {
    assert.deepEqual(parameterNames(p.plain), ['userId', 'locale']);
    assert.deepEqual(parameterNames(p.asyncMethod), ['order', 'ctx']);
    assert.deepEqual(parameterNames(p.none), []);
  });

  it('reads names with default values, commas and parentheses in them', () => {
    assert.deepEqual(parameterNames(p.defaults), ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(parameterNames(p.arrowDefault), ['cb', 'after']);
  });

  it('gives null for destructured parameters and the name for a rest parameter', () => {
    assert.deepEqual(parameterNames(p.destructured), [null, null, 'rest']);
  });

  it('ignores comments', () => {
    assert.deepEqual(parameterNames(p.commented), ['userId', 'locale']);
  });

  it('reads plain functions and arrow functions', () => {
    assert.deepEqual(
      parameterNames(function named(x: number, y: number) {
        return x + y;
      }),
      ['x', 'y'],
    );
    assert.deepEqual(
      parameterNames((a: number, b = 2) => a + b),
      ['a', 'b'],
    );
  });

  it('is not thrown off by a parenthesis or a quote inside a comment', () => {
    // Built from text so that the comments are certainly part of the function's source.
    const closing = new Function('a /* ) */', 'b', 'return a') as () => unknown;
    assert.deepEqual(parameterNames(closing), ['a', 'b']);
    const quote = new Function("a // it's the first\n", 'b', 'return a') as () => unknown;
    assert.deepEqual(parameterNames(quote), ['a', 'b']);
  });
});
