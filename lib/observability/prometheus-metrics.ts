import type { DocketMetrics, TaskCounter, TaskLabels } from './docket-metrics.js';

type PromClient = typeof import('prom-client');
type Counter = import('prom-client').Counter<string>;
type Histogram = import('prom-client').Histogram<string>;
type Gauge = import('prom-client').Gauge<string>;

const COUNTERS: Record<TaskCounter, string> = {
  added: 'tasks added (scheduled or already scheduled)',
  replaced: 'tasks replaced',
  scheduled: 'executions scheduled',
  cancelled: 'executions that ended cancelled (before they started, or while they ran)',
  started: 'executions started',
  redelivered: 'executions started again after their worker vanished',
  stricken: 'adds and queued tasks blocked by a strike',
  superseded: 'stale messages skipped because their key was rescheduled',
  completed: 'executions that ended (any outcome)',
  succeeded: 'executions that returned',
  failed: 'executions that threw (retried or not)',
  retried: 'retries scheduled',
  perpetuated: 'successors of perpetual and cron tasks scheduled',
  quarantined:
    'attempts dead-lettered as poison: started maxRedeliveries + 1 times, never finished',
};

/** Reads the depth gauges of one docket at scrape time. */
export interface DepthSource {
  docket: string;
  depths(): Promise<{ queue: number; schedule: number; strikes: number }>;
  /** What is paused: `*` for the whole docket, and task names. */
  paused(): Promise<string[]>;
}

/**
 * What happened to one series (docket, task, worker) since prom-client last heard of it.
 * prom-client builds a key string from the labels on every call; the hot path adds numbers
 * here instead, and `flush` hands each series over in a few calls: before any task metric is
 * read (a scrape), and every FLUSH_EVERY ms.
 */
interface Series {
  readonly labels: { docket: string; task: string; worker: string };
  readonly counts: Map<TaskCounter, number>;
  running: number;
  durations: number[];
  punctualities: number[];
  pending: boolean;
  runningShown: boolean;
}

/** How often (ms) pending series are handed over when nothing reads them. */
const FLUSH_EVERY = 1_000;

/**
 * The docket's metrics on prom-client's default registry (the one PrometheusModule serves).
 * Metrics are created once per process and shared by every docket (label `docket`), so two
 * dockets never register a name twice.
 */
class PrometheusMetrics {
  private static shared?: PrometheusMetrics;
  private pending: Series[] = [];
  readonly counters = new Map<TaskCounter, Counter>();
  readonly disruptions: Counter;
  readonly duration: Histogram;
  readonly punctuality: Histogram;
  readonly running: Gauge;
  readonly sources = new Set<DepthSource>();

  private constructor(prom: PromClient) {
    const registry = prom.register;
    const get = <T>(name: string, make: () => T): T =>
      (registry.getSingleMetric(name) as T | undefined) ?? make();
    const taskLabels = ['docket', 'task', 'worker'];
    // A scrape (or any read of a task metric) first takes in what is pending.
    const flush = () => this.flush();
    for (const [counter, help] of Object.entries(COUNTERS) as [TaskCounter, string][]) {
      const name = `docket_tasks_${counter}_total`;
      this.counters.set(
        counter,
        get(name, () => new prom.Counter({ name, help, labelNames: taskLabels, collect: flush })),
      );
    }
    this.disruptions = get(
      'docket_redis_disruptions_total',
      () =>
        new prom.Counter({
          name: 'docket_redis_disruptions_total',
          help: 'Redis errors met by the loops (each followed by a reconnection delay)',
          labelNames: ['docket', 'worker'],
        }),
    );
    this.duration = get(
      'docket_task_duration_seconds',
      () =>
        new prom.Histogram({
          name: 'docket_task_duration_seconds',
          help: 'time executions took',
          labelNames: taskLabels,
          collect: flush,
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
        }),
    );
    this.punctuality = get(
      'docket_task_punctuality_seconds',
      () =>
        new prom.Histogram({
          name: 'docket_task_punctuality_seconds',
          help: 'how late executions started after they were due',
          labelNames: taskLabels,
          collect: flush,
          buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 60, 300],
        }),
    );
    this.running = get(
      'docket_tasks_running',
      () =>
        new prom.Gauge({
          name: 'docket_tasks_running',
          help: 'executions running in this process',
          labelNames: taskLabels,
          collect: flush,
        }),
    );
    const sources = this.sources;
    const depthGauge = (name: string, help: string, pick: 'queue' | 'schedule' | 'strikes') =>
      get(
        name,
        () =>
          new prom.Gauge({
            name,
            help,
            labelNames: ['docket'],
            async collect() {
              this.reset();
              for (const source of sources) {
                try {
                  this.set({ docket: source.docket }, (await source.depths())[pick]);
                } catch {
                  // Redis away at scrape time: the gauge is left out rather than wrong
                }
              }
            },
          }),
      );
    depthGauge('docket_queue_depth', 'tasks due and waiting for a worker', 'queue');
    depthGauge('docket_schedule_depth', 'tasks scheduled for the future', 'schedule');
    depthGauge('docket_strikes_in_effect', 'strikes in effect', 'strikes');
    get(
      'docket_paused',
      () =>
        new prom.Gauge({
          name: 'docket_paused',
          help: '1 for what is paused: the whole docket (task "*") or a task',
          labelNames: ['docket', 'task'],
          async collect() {
            this.reset();
            for (const source of sources) {
              try {
                for (const task of await source.paused())
                  this.set({ docket: source.docket, task }, 1);
              } catch {
                // Redis away at scrape time: the gauge is left out rather than wrong
              }
            }
          },
        }),
    );
    setInterval(flush, FLUSH_EVERY).unref();
  }

  /** Note that `series` has something to hand over. */
  touch(series: Series): void {
    if (series.pending) return;
    series.pending = true;
    this.pending.push(series);
  }

  /** Hand every pending series over to prom-client. */
  flush(): void {
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    for (const series of pending) {
      series.pending = false;
      const { labels } = series;
      for (const [counter, by] of series.counts) {
        if (by > 0) this.counters.get(counter)!.inc(labels, by);
      }
      series.counts.clear();
      if (series.running !== 0) this.running.inc(labels, series.running);
      series.running = 0;
      for (const seconds of series.durations) this.duration.observe(labels, seconds);
      for (const seconds of series.punctualities) this.punctuality.observe(labels, seconds);
      if (series.durations.length > 0) series.durations = [];
      if (series.punctualities.length > 0) series.punctualities = [];
    }
  }

  static get(prom: PromClient): PrometheusMetrics {
    PrometheusMetrics.shared ??= new PrometheusMetrics(prom);
    return PrometheusMetrics.shared;
  }
}

/** Metrics of one docket on prom-client, or undefined when prom-client is not installed. */
export async function prometheusMetrics(
  docket: string,
  source: DepthSource,
): Promise<DocketMetrics | undefined> {
  let prom: PromClient;
  try {
    prom = await import('prom-client');
  } catch {
    return undefined;
  }
  const m = PrometheusMetrics.get((prom as { default?: PromClient }).default ?? prom);
  m.sources.add(source);
  // The series of this docket by task, then by worker ('' for a producer).
  const byTask = new Map<string, Map<string, Series>>();
  const series = (l: TaskLabels): Series => {
    const worker = l.worker ?? '';
    let byWorker = byTask.get(l.task);
    if (!byWorker) byTask.set(l.task, (byWorker = new Map()));
    let found = byWorker.get(worker);
    if (!found) {
      found = {
        labels: { docket, task: l.task, worker },
        counts: new Map(),
        running: 0,
        durations: [],
        punctualities: [],
        pending: false,
        runningShown: false,
      };
      byWorker.set(worker, found);
    }
    return found;
  };
  return {
    count: (counter, l, by = 1) => {
      const s = series(l);
      s.counts.set(counter, (s.counts.get(counter) ?? 0) + by);
      m.touch(s);
    },
    disruption: (worker) => m.disruptions.inc({ docket, worker }),
    duration: (l, seconds) => {
      const s = series(l);
      s.durations.push(seconds);
      m.touch(s);
    },
    punctuality: (l, seconds) => {
      const s = series(l);
      s.punctualities.push(Math.max(0, seconds));
      m.touch(s);
    },
    running: (l, delta) => {
      const s = series(l);
      // The gauge shows the series (at 0) from its first task on, as before.
      if (!s.runningShown) {
        s.runningShown = true;
        m.running.inc(s.labels, 0);
      }
      s.running += delta;
      m.touch(s);
    },
    close: () => {
      m.flush();
      m.sources.delete(source);
    },
  };
}
