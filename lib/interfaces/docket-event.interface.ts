import type { TaskRef } from '../execution/task-args.type.js';

/** What happened to an execution: the kinds of `DocketEvent`. */
export type DocketEventType =
  'scheduled' | 'started' | 'completed' | 'failed' | 'retrying' | 'cancelled' | 'dead';

/** Every `DocketEventType`, in the order an execution meets them. */
export const DOCKET_EVENT_TYPES: readonly DocketEventType[] = [
  'scheduled',
  'started',
  'completed',
  'failed',
  'retrying',
  'cancelled',
  'dead',
];

/**
 * One thing that happened to an execution. `failed` and `dead` carry the `error`; an
 * execution that fails its last attempt gives `failed` and then, as it is dead-lettered,
 * `dead`; `retrying` is a failed attempt that will run again (its `attempt` is the one that
 * failed).
 */
export interface DocketEvent {
  type: DocketEventType;
  key: string;
  taskName: string;
  attempt: number;
  /** The worker that started or ended it (not on `scheduled`, nor a cancel before a start). */
  worker?: string;
  at: Date;
  /** `"<Name>: <message>"`: on `failed`, `dead`, and `retrying` when known. */
  error?: string;
  /** How long the attempt ran: on the ends of a started attempt. */
  durationMs?: number;
}

/** Which events `DocketClient.events()` passes on: of one task, of some types, or all. */
export interface DocketEventFilter {
  task?: TaskRef;
  types?: DocketEventType[];
}
