export * from './email.tasks.js';
export * from './mailer.service.js';
export * from './report.tasks.js';
