import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from 'nestjs-docket';
import { Mailer } from './mailer.js';

@Injectable()
export class EmailTasks {
  constructor(private readonly mailer: Mailer) {}

  @DocketTask() // the task's name is the method's name: 'sendWelcome'
  async sendWelcome(userId: string, locale = 'en'): Promise<void> {
    await this.mailer.welcome(userId, locale);
  }

  @DocketTask({
    name: 'emails.digest',
    retry: { attempts: 5, delay: 1_000, backoff: 'exponential' },
    timeout: 30_000,
  })
  async sendDigest(customerId: number, @Ctx() ctx: TaskContext): Promise<{ sent: number }> {
    const batches = await this.mailer.digestBatches(customerId);
    await ctx.progress.setTotal(batches.length);
    for (const batch of batches) {
      ctx.signal.throwIfAborted(); // aborted on timeout, cancel and shutdown
      await this.mailer.send(batch, { signal: ctx.signal });
      await ctx.progress.increment();
    }
    return { sent: batches.length };
  }
}
