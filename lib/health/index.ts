export * from './docket-health.indicator.js';
