import { Injectable, Logger } from '@nestjs/common';

/** One message the mailer sent. */
export interface SentMail {
  to: string;
  subject: string;
  sentAt: Date;
}

/** Stands in for a real mail provider: it logs and keeps what it sent. */
@Injectable()
export class Mailer {
  private readonly logger = new Logger(Mailer.name);
  readonly outbox: SentMail[] = [];

  async send(to: string, subject: string): Promise<SentMail> {
    const mail = { to, subject, sentAt: new Date() };
    this.outbox.push(mail);
    this.logger.log(`to ${to}: ${subject}`);
    return mail;
  }
}
