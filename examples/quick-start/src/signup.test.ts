import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Test } from '@nestjs/testing';
import {
  DocketClient,
  DocketModule,
  DocketWorker,
  assertNoTasks,
  assertTaskScheduled,
} from 'nestjs-docket';
import { EmailTasks } from './email.tasks.js';
import { Mailer } from './mailer.js';
import { SignupService } from './signup.service.js';

describe('signing up', () => {
  it('welcomes now, sends the digest when it is due', async () => {
    const sent: string[] = [];
    const fakeMailer = {
      welcome: async (userId: string) => void sent.push(`welcome ${userId}`),
      digestBatches: async () => [['news'], ['offers']],
      send: async (batch: string[]) => void sent.push(`digest ${batch.join()}`),
    };
    const moduleRef = await Test.createTestingModule({
      imports: [
        // in process, no Redis; this file's own docket; the worker runs when the test says
        DocketModule.forRoot({ url: 'memory://signup-test', worker: { autoStart: false } }),
      ],
      providers: [EmailTasks, SignupService, { provide: Mailer, useValue: fakeMailer }],
    }).compile();
    await moduleRef.init();
    try {
      const docket = moduleRef.get(DocketClient);
      const worker = moduleRef.get(DocketWorker);
      const signups = moduleRef.get(SignupService);

      await signups.signedUp('ada', 42);
      await assertTaskScheduled(docket, EmailTasks.prototype.sendWelcome, { args: ['ada'] });
      await assertTaskScheduled(docket, 'emails.digest', { key: 'digest:42', args: [42] });

      const digest = await signups.digestAt(42, new Date()); // due now instead of tomorrow
      await worker.runUntilFinished(); // until nothing is queued, scheduled or running
      await assertNoTasks(docket);
      assert.deepEqual(sent, ['welcome ada', 'digest news', 'digest offers']);
      assert.deepEqual(await digest.result(), { sent: 2 });
    } finally {
      await moduleRef.close(); // nothing is left open: the test process exits by itself
    }
  });
});
