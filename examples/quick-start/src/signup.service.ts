import { Injectable } from '@nestjs/common';
import { DocketClient, type CancelOutcome, type Execution } from 'nestjs-docket';
import { EmailTasks } from './email.tasks.js';

const DAY = 24 * 3_600_000;

@Injectable()
export class SignupService {
  constructor(private readonly docket: DocketClient) {}

  /** Welcome the user now; send the customer's first digest in a day. */
  async signedUp(userId: string, customerId: number): Promise<Execution<void>> {
    // now, with a fresh key
    const welcome = await this.docket.add(EmailTasks.prototype.sendWelcome)(userId);
    // in a day, once per customer however often this runs (same key: 'already_scheduled')
    await this.docket.add(EmailTasks.prototype.sendDigest, {
      key: `digest:${customerId}`,
      delay: DAY,
    })(customerId);
    return welcome;
  }

  /** Move the digest to another time (or change its arguments). */
  digestAt(customerId: number, when: Date): Promise<Execution<{ sent: number }>> {
    return this.docket.replace(EmailTasks.prototype.sendDigest, {
      key: `digest:${customerId}`,
      when,
    })(customerId);
  }

  /** Never mind: the digest does not run (or stops, if it runs). */
  cancelDigest(customerId: number): Promise<CancelOutcome> {
    return this.docket.cancel(`digest:${customerId}`);
  }

  /** What became of an execution, or null when the key is unknown or expired. */
  async status(key: string) {
    const execution = await this.docket.getExecution(key);
    if (!execution) return null;
    const { taskName, state, when, attempt, progress, error } = execution;
    return { key, taskName, state, when, attempt, progress, error };
  }
}
