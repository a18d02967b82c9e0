import type { TaskRef } from '../execution/task-args.type.js';
import { UnknownTaskError } from '../errors/unknown-task.error.js';
import { DocketMetadataAccessor } from './docket-metadata.accessor.js';

/**
 * The name of a task given by name or by a reference to its `@DocketTask` method. A reference
 * to an undecorated method, or something that is neither, is an `UnknownTaskError`.
 */
export function taskNameOf(task: TaskRef): string {
  if (typeof task === 'function') {
    const name = DocketMetadataAccessor.taskName(task);
    if (name === undefined) {
      throw new UnknownTaskError(
        `${task.name || 'this function'} is not a task: decorate the method with @DocketTask()`,
      );
    }
    return name;
  }
  if (typeof task !== 'string' || task.length === 0) {
    throw new UnknownTaskError(`a task is a name or a @DocketTask method, not ${String(task)}`);
  }
  return task;
}
