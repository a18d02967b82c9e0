export {
  assertNoTasks,
  assertTaskCount,
  assertTaskNotScheduled,
  assertTaskScheduled,
  type TaskMatch,
} from './assertions.js';
