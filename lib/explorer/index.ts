export * from './ctx.decorator.js';
export * from './docket-task.decorator.js';
export * from './on-docket-event.decorator.js';
