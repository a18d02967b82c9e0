// The scripts publish an execution's state changes only while some process listens to a
// state channel ({name}:states:on exists): a docket nobody waits on spends no PUBLISH per
// state, and a waiter that turned the channels on sees every state from then on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { useDocket, waitFor } from '../utils.js';
import { keyOf, rawRedis, withRaw } from './raw.js';

@Injectable()
class Tasks {
  @DocketTask()
  async echo(value: string): Promise<string> {
    return value;
  }
}

describe('state channels', { timeout: 30_000 }, () => {
  it('carry nothing while nobody listens, and every state once a waiter does', async (t) => {
    const docket = await useDocket(t, [Tasks], { worker: { minimumCheckInterval: 50 } });
    const heard: string[] = [];
    const listener = rawRedis();
    t.after(() => listener.disconnect());
    listener.on('pmessage', (_pattern: string, _channel: string, text: string) => {
      heard.push((JSON.parse(text) as { key: string; state: string }).key);
    });
    await listener.psubscribe(`{${docket.name}}:state:*`);

    // nobody waits: the task runs and ends without a state message
    await docket.client.add(Tasks.prototype.echo, { key: 'unheard' })('a');
    await docket.worker.runUntilFinished();
    assert.equal((await docket.client.getExecution('unheard'))?.state, 'completed');
    assert.equal(await withRaw((redis) => redis.exists(keyOf(docket.name, 'states:on'))), 0);

    // a waiter turns the channels on before it reads the state: it hears the rest
    const execution = await docket.client.add(Tasks.prototype.echo, { key: 'heard' })('b');
    const states: string[] = [];
    const events = (async () => {
      for await (const event of execution.subscribe()) {
        if (event.type === 'state') states.push(event.state);
      }
    })();
    const ttl = await waitFor(async () => {
      const left = await withRaw((redis) => redis.pttl(keyOf(docket.name, 'states:on')));
      return left > 0 && left;
    }, 'a subscriber to turn the state channels on');
    assert.ok(ttl > 0 && ttl <= 60_000, `the marker lives a while (pttl ${ttl})`);
    await docket.worker.runUntilFinished();
    await events;
    assert.deepEqual(states, ['queued', 'running', 'completed']);
    assert.ok(!heard.includes('unheard'), `no state of the first task: ${heard.join(', ')}`);
    assert.ok(heard.includes('heard'));
  });
});
