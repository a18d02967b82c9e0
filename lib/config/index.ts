export * from './docket-module-options.interface.js';
