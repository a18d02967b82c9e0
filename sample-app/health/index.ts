export * from './health.constants.js';
export * from './health.controller.js';
export * from './health.module.js';
