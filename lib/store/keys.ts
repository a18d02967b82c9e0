/** The consumer group of the docket's stream: every worker is a consumer of it. */
export const CONSUMER_GROUP = 'docket-workers';

/**
 * Every Redis key and channel of one docket. All share the hash tag `{name}` so that a docket
 * lives on one Cluster slot and multi-key scripts stay legal.
 */
export class DocketKeys {
  readonly prefix: string;
  readonly stream: string;
  readonly queue: string;
  readonly strikes: string;
  readonly workers: string;
  readonly dead: string;
  /** Set of the concurrency waiting lines that hold tasks. */
  readonly lines: string;
  /** Channel that tells running workers to abort a task; payload = task key. */
  readonly cancelChannel: string;
  /** Channel that tells schedulers an earlier future task exists; payload = due epoch ms. */
  readonly wakeChannel: string;
  /** Channel that announces a new entry of the strike log; payload = its id. */
  readonly strikesChannel: string;
  /** Zset of the lanes other than `stream` (lane → rank; see lua/includes/lanes.lua). */
  readonly lanes: string;
  /** Channel that announces a new lane; payload = its name. */
  readonly lanesChannel: string;
  /** Set of what is paused: `*` (the docket) or task names (see lua/includes/pause.lua). */
  readonly paused: string;
  /** Channel of the docket's events: a JSON array of events per message. */
  readonly eventsChannel: string;
  /** Exists (with a time to live) while some process listens to the events channel. */
  readonly eventsOn: string;
  /** Exists (with a time to live) while some process listens to executions' state channels. */
  readonly statesOn: string;
  /** Finished executions a dashboard keeps (zset: key → end time), and its marker. */
  readonly history: string;
  readonly historyOn: string;

  constructor(readonly name: string) {
    this.prefix = `{${name}}:`;
    this.stream = `${this.prefix}stream`;
    this.queue = `${this.prefix}queue`;
    this.strikes = `${this.prefix}strikes`;
    this.workers = `${this.prefix}workers`;
    this.dead = `${this.prefix}dead`;
    this.lines = `${this.prefix}lines`;
    this.cancelChannel = `${this.prefix}cancel`;
    this.wakeChannel = `${this.prefix}wake`;
    this.strikesChannel = `${this.prefix}strikes`;
    this.lanes = `${this.prefix}lanes`;
    this.lanesChannel = `${this.prefix}lanes`;
    this.paused = `${this.prefix}paused`;
    this.eventsChannel = `${this.prefix}events`;
    this.eventsOn = `${this.prefix}events:on`;
    this.statesOn = `${this.prefix}states:on`;
    this.history = `${this.prefix}history`;
    this.historyOn = `${this.prefix}history:on`;
  }

  /** The stream of a lane (`stream`, `stream:<p>`, `resumed:<p>`). */
  lane(name: string): string {
    return `${this.prefix}${name}`;
  }
  parked(key: string): string {
    return `${this.prefix}parked:${key}`;
  }
  runs(key: string): string {
    return `${this.prefix}runs:${key}`;
  }
  progress(key: string): string {
    return `${this.prefix}progress:${key}`;
  }
  results(key: string): string {
    return `${this.prefix}results:${key}`;
  }
  stateChannel(key: string): string {
    return `${this.prefix}state:${key}`;
  }
  progressChannel(key: string): string {
    return `${this.prefix}progress:${key}`;
  }
  workerTasks(worker: string): string {
    return `${this.prefix}worker-tasks:${worker}`;
  }
  taskWorkers(task: string): string {
    return `${this.prefix}task-workers:${task}`;
  }
  /** Lock taken by the one worker that seeds automatic tasks. */
  get seedLock(): string {
    return `${this.prefix}seed-lock`;
  }
  /**
   * The keys that outlive a docket's tasks (see `docketOfMarker`): one of them exists once the
   * docket has been used on a database.
   */
  get markers(): string[] {
    return [this.stream, this.queue, this.strikes, this.dead, this.workers];
  }
}

/** A SCAN pattern that finds every docket's marker keys (and a few others, filtered out). */
export const MARKER_PATTERN = '{*}:[sqdw]*';

const MARKER = /^\{([^\s{}]+)\}:(?:stream|queue|strikes|dead|workers)$/;

/** The name of the docket whose marker key `key` is, or undefined for any other key. */
export function docketOfMarker(key: string): string | undefined {
  return MARKER.exec(key)?.[1];
}
