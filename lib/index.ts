export * from './public-api.js';
export * from './dashboard/index.js';
export * from './testing/index.js';
