import type { DocketEvent, DocketEventType } from '../public-api.js';
import type { LiveChanges, LiveEvent, LiveState, LiveView } from './dashboard-live.interface.js';

/**
 * Which views of the page an event changes. Every event changes the counts (the overview) and
 * may concern the page of its execution (`task`); the lists are those where the execution
 * appears or leaves (the queued & scheduled list also lists running tasks on demand; a
 * scheduled key may be a retried dead letter, which leaves the failures; an end joins the
 * history, and a key scheduled again leaves it).
 */
const VIEWS: Record<DocketEventType, readonly LiveView[]> = {
  scheduled: ['overview', 'scheduled', 'failures', 'history', 'task'],
  started: ['overview', 'running', 'scheduled', 'workers', 'task'],
  completed: ['overview', 'running', 'scheduled', 'workers', 'history', 'task'],
  failed: ['overview', 'running', 'scheduled', 'workers', 'failures', 'history', 'task'],
  retrying: ['overview', 'running', 'scheduled', 'workers', 'task'],
  cancelled: ['overview', 'running', 'scheduled', 'workers', 'history', 'task'],
  dead: ['overview', 'failures', 'task'],
};

const STATES: Record<DocketEventType, LiveState> = {
  scheduled: 'waiting',
  started: 'running',
  completed: 'completed',
  failed: 'failed',
  retrying: 'waiting',
  cancelled: 'cancelled',
  dead: 'failed',
};

/** An event as the stream carries it: its type, key, task and where it leaves the execution. */
export function liveEvent(event: DocketEvent): LiveEvent {
  return { type: event.type, key: event.key, task: event.taskName, state: STATES[event.type] };
}

/**
 * The events gathered between two messages of the stream: every view they change, and the
 * first `limit` events (a burst is told as a count of the others, which the page needs only to
 * know that something it shows may have changed).
 */
export class ChangeBatch {
  private readonly views = new Set<LiveView>();
  private events: LiveEvent[] = [];
  private more = 0;

  constructor(private readonly limit: number) {}

  get empty(): boolean {
    return this.views.size === 0;
  }

  add(event: DocketEvent): void {
    for (const view of VIEWS[event.type] ?? []) this.views.add(view);
    if (this.events.length < this.limit) this.events.push(liveEvent(event));
    else this.more++;
  }

  /** The message of what was gathered, and start again; null when nothing was. */
  take(): LiveChanges | null {
    if (this.empty) return null;
    const message: LiveChanges = { views: [...this.views], events: this.events, more: this.more };
    this.views.clear();
    this.events = [];
    this.more = 0;
    return message;
  }
}
