export * from './execution.js';
export type { TaskArgs, TaskRef, TaskResult } from './task-args.type.js';
