export * from './execution.js';
export type { TaskArgs, TaskRef } from './task-args.type.js';
