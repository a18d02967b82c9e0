import { Injectable } from '@nestjs/common';
import { DocketTask } from '../../lib/index.js';
import { Mailer, type SentMail } from './mailer.service.js';

const SUBJECTS: Record<string, string> = {
  en: 'Welcome aboard!',
  fr: 'Bienvenue à bord !',
  de: 'Willkommen an Bord!',
};

@Injectable()
export class EmailTasks {
  constructor(private readonly mailer: Mailer) {}

  /** Send the welcome mail; retried twice a second apart when the mailer fails. */
  @DocketTask({ retry: { attempts: 3, delay: 1_000 } })
  async sendWelcome(userId: string, locale = 'en'): Promise<SentMail> {
    return this.mailer.send(userId, SUBJECTS[locale] ?? SUBJECTS.en);
  }
}
