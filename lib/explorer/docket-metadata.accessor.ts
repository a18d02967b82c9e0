import { Injectable } from '@nestjs/common';
import {
  DOCKET_CTX_METADATA,
  DOCKET_EVENT_METADATA,
  DOCKET_TASK_METADATA,
} from '../docket.tokens.js';
import type { TaskRef } from '../execution/task-args.type.js';
import type { DocketEventType } from '../interfaces/docket-event.interface.js';
import type { DocketTaskOptions } from '../interfaces/docket-task-options.interface.js';

/** What `@OnDocketEvent` records on a method. */
export interface DocketEventListenerOptions {
  types: DocketEventType[];
  task?: TaskRef;
}

/** The one reader of the metadata that `@DocketTask` and `@Ctx` write. */
@Injectable()
export class DocketMetadataAccessor {
  static taskOptions(method: unknown): DocketTaskOptions | undefined {
    if (typeof method !== 'function') return undefined;
    return Reflect.getMetadata(DOCKET_TASK_METADATA, method) as DocketTaskOptions | undefined;
  }

  static eventListener(method: unknown): DocketEventListenerOptions | undefined {
    if (typeof method !== 'function') return undefined;
    return Reflect.getMetadata(DOCKET_EVENT_METADATA, method) as
      DocketEventListenerOptions | undefined;
  }

  static ctxIndex(method: (...args: any[]) => unknown): number {
    const index = Reflect.getMetadata(DOCKET_CTX_METADATA, method) as number | undefined;
    return index ?? -1;
  }

  /** The task name a decorated method declares, or undefined for an undecorated one. */
  static taskName(method: unknown): string | undefined {
    const options = DocketMetadataAccessor.taskOptions(method);
    if (!options) return undefined;
    return options.name ?? (method as { name: string }).name;
  }
}
