import { it } from 'node:test';
import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../../lib/index.js';
import { createDocket, rawRedis } from '../../utils.js';
import { sleep } from './helpers.js';

@Injectable()
class T {
  log: string[] = [];
  @DocketTask({ concurrency: { max: 1, argument: 'customerId' } })
  async perCustomer(customerId: number, label: string): Promise<void> {
    this.log.push(`start ${customerId}:${label}`);
    await sleep(60);
    this.log.push(`end ${customerId}:${label}`);
  }
}

it('debug', async () => {
  const docket = await createDocket([T]);
  const t = docket.module.get(T);
  const add = docket.client.add(T.prototype.perCustomer);
  const keys: string[] = [];
  for (const label of ['a', 'b', 'c']) {
    keys.push((await add(1, label)).key);
    keys.push((await add(2, label)).key);
  }
  await docket.worker.runUntilFinished();
  console.log(t.log);
  const r = rawRedis();
  for (const k of await r.keys(`{${docket.name}}:*`)) console.log(k, await r.type(k));
  for (const k of keys) console.log(k, await r.hgetall(`{${docket.name}}:runs:${k}`));
  r.disconnect();
  await docket.close();
});
