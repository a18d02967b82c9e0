import { SetMetadata } from '@nestjs/common';
import { DOCKET_TASK_METADATA } from '../docket.tokens.js';
import type { DocketTaskOptions } from '../interfaces/docket-task-options.interface.js';

/**
 * Declare a provider method as a docket task. The task's name is the method's name unless
 * given; its arguments are the method's parameters but the one marked `@Ctx()`.
 */
export function DocketTask(nameOrOptions?: string | DocketTaskOptions): MethodDecorator {
  const options: DocketTaskOptions =
    typeof nameOrOptions === 'string' ? { name: nameOrOptions } : { ...nameOrOptions };
  return SetMetadata(DOCKET_TASK_METADATA, options);
}
