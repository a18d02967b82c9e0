import { SetMetadata } from '@nestjs/common';
import { DOCKET_EVENT_METADATA } from '../docket.tokens.js';
import type { DocketEventListenerOptions } from './docket-metadata.accessor.js';
import type { TaskRef } from '../execution/task-args.type.js';
import type { DocketEventType } from '../interfaces/docket-event.interface.js';
import { checkEventTypes } from '../interfaces/event-types.js';

/**
 * Call this provider method with each `DocketEvent` of the given type(s) (of one task when
 * `task` is given) that a worker of this process produces: started, completed, failed,
 * retrying, dead, and cancelled for a running task. Each event reaches it at most once; a
 * listener that throws is logged and never affects the task. Events of other processes, and
 * `scheduled`, come through `DocketClient.events()`.
 */
export function OnDocketEvent(
  type: DocketEventType | DocketEventType[],
  options: { task?: TaskRef } = {},
): MethodDecorator {
  const types = checkEventTypes(Array.isArray(type) ? [...type] : [type], '@OnDocketEvent');
  if (types.length === 0) throw new TypeError('@OnDocketEvent: give at least one event type');
  const listener: DocketEventListenerOptions = { types, task: options.task };
  return SetMetadata(DOCKET_EVENT_METADATA, listener);
}
