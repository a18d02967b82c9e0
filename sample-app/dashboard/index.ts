export * from './basic-auth.guard.js';
