import { Injectable, Logger } from '@nestjs/common';

/** A stand-in for your mail service: it logs what it would send. The test replaces it. */
@Injectable()
export class Mailer {
  private readonly logger = new Logger(Mailer.name);

  async welcome(userId: string, locale: string): Promise<void> {
    this.logger.log(`welcome mail to ${userId} (${locale})`);
  }

  async digestBatches(customerId: number): Promise<string[][]> {
    return [[`news for ${customerId}`], [`offers for ${customerId}`]];
  }

  async send(batch: string[], options: { signal?: AbortSignal } = {}): Promise<void> {
    options.signal?.throwIfAborted();
    this.logger.log(`digest: ${batch.join(', ')}`);
  }
}
