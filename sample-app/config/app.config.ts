import { registerAs } from '@nestjs/config';
import { oneOf, text, wholeNumber } from './env.js';

/** How the HTTP server listens and how it logs. */
export interface AppConfig {
  /** `PORT` (0 = any free port). @default 3000 */
  port: number;
  /** `HOST`. @default all interfaces */
  host?: string;
  /** `LOG_FORMAT`: `text` for people, `json` (one object a line) for a log collector. @default 'text' */
  logFormat: 'text' | 'json';
}

export const appConfig = registerAs('app', (): AppConfig => ({
  port: wholeNumber('PORT', 3000),
  host: text('HOST'),
  logFormat: oneOf('LOG_FORMAT', ['text', 'json'], 'text'),
}));
