import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stripVTControlCharacters } from 'node:util';
import { describeState, stateTime } from '../../lib/cli/commands/watch.js';
import { clock } from '../../lib/cli/format.js';

describe('docket watch: the time and line of a state', () => {
  it('takes the time of a state from the state, and of a live event from its arrival', () => {
    const startedAt = new Date(2001, 1, 3, 4, 5, 6);
    const completedAt = new Date(2001, 1, 3, 4, 7, 8);
    const arrived = new Date(2030, 0, 1, 12, 0, 0);
    const done = { state: 'completed' as const, startedAt, completedAt };
    assert.equal(stateTime(done, arrived), completedAt);
    assert.equal(stateTime({ state: 'running', startedAt }, arrived), startedAt);
    assert.equal(stateTime({ state: 'scheduled', when: arrived }), undefined);
    assert.equal(stateTime({ state: 'scheduled', when: completedAt }, arrived), arrived);
    assert.equal(stateTime({ state: 'queued', when: startedAt }), startedAt);
    assert.equal(
      stripVTControlCharacters(describeState(done, 1, stateTime(done))),
      `${clock(completedAt)} completed after 2m 2s`,
    );
  });
});
