import { Injectable, Logger } from '@nestjs/common';

/** One message the mailer sent. */
export interface SentMail {
  to: string;
  subject: string;
  sentAt: Date;
}

/** The provider refused the recipient. */
export class MailRejectedError extends Error {
  override name = 'MailRejectedError';
}

/**
 * Stands in for a real mail provider: it logs and keeps what it sent. Like a real one it
 * bounces some recipients: those on the reserved `.invalid` domain (RFC 2606), which makes a
 * failing, retried task easy to see (`{"userId":"nobody.invalid"}`).
 */
@Injectable()
export class Mailer {
  private readonly logger = new Logger(Mailer.name);
  readonly outbox: SentMail[] = [];

  async send(to: string, subject: string): Promise<SentMail> {
    if (to.endsWith('.invalid')) throw new MailRejectedError(`${to}: no such recipient`);
    const mail = { to, subject, sentAt: new Date() };
    this.outbox.push(mail);
    this.logger.log(`to ${to}: ${subject}`);
    return mail;
  }
}
