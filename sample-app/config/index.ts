export * from './app.config.js';
export * from './docket.config.js';
export * from './health.config.js';
