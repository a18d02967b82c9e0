export * from './app.config.js';
export * from './docket.config.js';
export * from './health.config.js';
export * from './dashboard.config.js';
