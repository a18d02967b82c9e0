import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeMessage, endOf, isBadMessage } from '../../lib/worker/message.js';

const fields = (overrides: Record<string, string> = {}): string[] =>
  Object.entries({
    key: 'k1',
    task: 'send',
    args: '["ada",{"$t":"BigInt","v":"12345678901234567890"}]',
    when: '1700000000000',
    attempt: '2',
    generation: '3',
    ...overrides,
  }).flat();

describe('decodeMessage', () => {
  it('decodes a stream entry into a task message, typed arguments included', () => {
    const message = decodeMessage(['1-0', fields({ traceparent: 'tp' })], true);
    assert.ok(!isBadMessage(message));
    assert.deepEqual(message.args, ['ada', 12345678901234567890n]);
    assert.equal(message.when, 1_700_000_000_000);
    assert.equal(message.attempt, 2);
    assert.equal(message.generation, '3');
    assert.equal(message.traceparent, 'tp');
    assert.equal(message.redelivered, true);
    assert.deepEqual(endOf(message, 'completed', []), {
      key: 'k1',
      generation: '3',
      id: '1-0',
      outcome: 'completed',
      admission: [],
      attempt: 2,
      taskName: 'send',
      args: fields()[5],
    });
  });

  for (const [what, entry, reason] of [
    ['an odd field list', ['key', 'k', 'task'], 'odd field list'],
    ['a missing field', fields({ task: '' }), 'field "task" is missing'],
    ['a when that is not decimal', fields({ when: '0x10' }), '"when" is not epoch ms'],
    ['an attempt below 1', fields({ attempt: '0' }), '"attempt" is not a whole number'],
    [
      'a generation with a sign',
      fields({ generation: '-1' }),
      '"generation" is not a whole number',
    ],
    ['arguments that are not a list', fields({ args: '{}' }), 'args cannot be decoded'],
  ] as [string, string[], string][]) {
    it(`reads ${what} as a bad message that says why, keeping what identifies it`, () => {
      const message = decodeMessage(['9-0', entry], false);
      assert.ok(isBadMessage(message));
      assert.match(message.reason, new RegExp(reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.equal(message.id, '9-0');
    });
  }
});
