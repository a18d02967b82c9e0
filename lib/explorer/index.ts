export * from './ctx.decorator.js';
export * from './docket-task.decorator.js';
