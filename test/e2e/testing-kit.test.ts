import assert from 'node:assert/strict';
import { AssertionError } from 'node:assert';
import { describe, it } from 'node:test';
import { Injectable } from '@nestjs/common';
import {
  DocketTask,
  assertNoTasks,
  assertTaskCount,
  assertTaskNotScheduled,
  assertTaskScheduled,
} from '../../lib/index.js';
import { deferred, useDocket } from '../utils.js';

@Injectable()
class Mailer {
  readonly sent: string[] = [];

  @DocketTask()
  async sendWelcome(userId: string, locale: string): Promise<void> {
    this.sent.push(`${userId}/${locale}`);
  }

  @DocketTask({ name: 'reminders.send' })
  async remind(userId: string): Promise<void> {
    this.sent.push(`remind ${userId}`);
  }
}

/** Expect `promise` to fail as an AssertionError whose message matches every pattern. */
async function failsWith(promise: Promise<void>, ...patterns: RegExp[]): Promise<string> {
  const error = await promise.then(
    () => assert.fail('the assertion passed'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof AssertionError, `not an AssertionError: ${String(error)}`);
  for (const pattern of patterns) assert.match(error.message, pattern);
  return error.message;
}

describe('testing kit', () => {
  it('assertTaskScheduled matches by task, exact arguments and key; failures list what is scheduled', async (t) => {
    const { client } = await useDocket(t, [Mailer]);
    await failsWith(
      assertTaskScheduled(client, Mailer.prototype.sendWelcome),
      /expected sendWelcome\(…\) to be scheduled; no tasks scheduled on docket "t-/,
    );
    await client.add(Mailer.prototype.sendWelcome, { key: 'w-ada', delay: 60_000 })('ada', 'fr');
    await client.add(Mailer.prototype.remind)('bob');

    await assertTaskScheduled(client, Mailer.prototype.sendWelcome);
    await assertTaskScheduled(client, 'sendWelcome', { args: ['ada', 'fr'], key: 'w-ada' });
    await assertTaskScheduled(client, Mailer.prototype.remind, { args: ['bob'] });
    await assertTaskScheduled(client, 'reminders.send');

    const message = await failsWith(
      assertTaskScheduled(client, Mailer.prototype.sendWelcome, { args: ['ada', 'en'] }),
      /expected sendWelcome\('ada', 'en'\) to be scheduled; scheduled on docket "t-[0-9a-f]+":/,
      / {2}- sendWelcome\('ada', 'fr'\) key w-ada at \d{4}-/,
      / {2}- reminders\.send\('bob'\) key /,
    );
    // queued now comes before due in a minute
    assert.ok(message.indexOf('reminders.send') < message.indexOf("sendWelcome('ada', 'fr')"));
    await failsWith(
      assertTaskScheduled(client, 'sendWelcome', { key: 'w-bob' }),
      /sendWelcome\(…\) with key w-bob/,
    );
  });

  it('assertTaskNotScheduled passes when nothing matches and names what does', async (t) => {
    const { client } = await useDocket(t, [Mailer]);
    await assertTaskNotScheduled(client, Mailer.prototype.sendWelcome);
    await client.add(Mailer.prototype.sendWelcome, { key: 'w1' })('ada', 'fr');
    await assertTaskNotScheduled(client, Mailer.prototype.sendWelcome, { args: ['bob', 'fr'] });
    await assertTaskNotScheduled(client, Mailer.prototype.remind);
    await failsWith(
      assertTaskNotScheduled(client, Mailer.prototype.sendWelcome, { args: ['ada', 'fr'] }),
      /expected sendWelcome\('ada', 'fr'\) not to be scheduled, found 1: sendWelcome\('ada', 'fr'\) key w1/,
    );
  });

  it('assertTaskCount counts all tasks or those of one task; assertNoTasks', async (t) => {
    const { client } = await useDocket(t, [Mailer]);
    await assertNoTasks(client);
    await assertTaskCount(client, 0);
    await client.add(Mailer.prototype.sendWelcome)('ada', 'fr');
    await client.add(Mailer.prototype.sendWelcome, { delay: 60_000 })('bob', 'en');
    await client.add(Mailer.prototype.remind)('cy');

    await assertTaskCount(client, 3);
    await assertTaskCount(client, Mailer.prototype.sendWelcome, 2);
    await assertTaskCount(client, 'reminders.send', 1);
    await failsWith(
      assertTaskCount(client, Mailer.prototype.sendWelcome, 1),
      /expected 1 scheduled sendWelcome tasks, found 2; scheduled on docket/,
      /sendWelcome\('bob', 'en'\)/,
    );
    await failsWith(assertTaskCount(client, 5), /expected 5 scheduled tasks, found 3/);
    await failsWith(
      assertNoTasks(client),
      /expected no tasks, found 3; scheduled on docket "t-[0-9a-f]+":\n {2}- /,
    );
    await assert.rejects(
      assertTaskCount(client, Mailer.prototype.remind, -1),
      /assertTaskCount needs a count/,
    );
    await assert.rejects(assertTaskScheduled(client, 'noSuchTask'), /noSuchTask/);
  });

  it('counts past a thousand tasks and lists the first twenty in a failure', async (t) => {
    const { client } = await useDocket(t, [Mailer]);
    const add = client.add(Mailer.prototype.remind, { delay: 60_000 });
    await Promise.all(Array.from({ length: 1_200 }, (_, i) => add(`user-${i}`)));
    await assertTaskCount(client, 1_200);
    await assertTaskScheduled(client, Mailer.prototype.remind, { args: ['user-1199'] });
    const message = await failsWith(
      assertNoTasks(client),
      /expected no tasks, found 1200;/,
      /\n {2}… and 1180 more$/,
    );
    assert.equal(message.split('\n').length, 1 + 20 + 1);
  });

  it('lists a key rescheduled while it runs once', async (t) => {
    const started = deferred();
    const release = deferred();
    @Injectable()
    class Slow {
      @DocketTask()
      async slow(label: string): Promise<void> {
        if (label === 'first') {
          started.resolve();
          await release.promise;
        }
      }
    }
    const { client, worker } = await useDocket(t, [Slow]);
    await client.add(Slow.prototype.slow, { key: 'k1' })('first');
    const running = worker.runUntilFinished();
    await started.promise;
    await client.replace(Slow.prototype.slow, { key: 'k1', delay: 60_000 })('second');
    await assertTaskCount(client, 1);
    await assertTaskScheduled(client, Slow.prototype.slow, { key: 'k1', args: ['second'] });
    release.resolve();
    await client.cancel('k1');
    await running;
  });

  it('the documented pattern: no auto start, assert, runUntilFinished, assert again', async (t) => {
    const { client, worker, module } = await useDocket(t, [Mailer]);
    await client.add(Mailer.prototype.sendWelcome, { key: 'welcome:ada' })('ada', 'fr');
    await assertTaskScheduled(client, Mailer.prototype.sendWelcome, {
      key: 'welcome:ada',
      args: ['ada', 'fr'],
    });
    await worker.runUntilFinished();
    await assertNoTasks(client);
    assert.deepEqual(module.get(Mailer).sent, ['ada/fr']);
  });
});
