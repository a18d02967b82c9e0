import type { DocketMetrics, TaskCounter, TaskLabels } from './docket-metrics.js';

type PromClient = typeof import('prom-client');
type Counter = import('prom-client').Counter<string>;
type Histogram = import('prom-client').Histogram<string>;
type Gauge = import('prom-client').Gauge<string>;

const COUNTERS: Record<TaskCounter, string> = {
  added: 'tasks added (scheduled or already scheduled)',
  replaced: 'tasks replaced',
  scheduled: 'executions scheduled',
  cancelled: 'executions cancelled',
  started: 'executions started',
  redelivered: 'executions started again after their worker vanished',
  stricken: 'adds and queued tasks blocked by a strike',
  superseded: 'stale messages skipped because their key was rescheduled',
  completed: 'executions that ended (any outcome)',
  succeeded: 'executions that returned',
  failed: 'executions that threw (retried or not)',
  retried: 'retries scheduled',
  perpetuated: 'successors of perpetual and cron tasks scheduled',
};

/** Reads the depth gauges of one docket at scrape time. */
export interface DepthSource {
  docket: string;
  depths(): Promise<{ queue: number; schedule: number; strikes: number }>;
}

/**
 * The docket's metrics on prom-client's default registry (the one PrometheusModule serves).
 * Metrics are created once per process and shared by every docket (label `docket`), so two
 * dockets never register a name twice.
 */
class PrometheusMetrics {
  private static shared?: PrometheusMetrics;
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
    for (const [counter, help] of Object.entries(COUNTERS) as [TaskCounter, string][]) {
      const name = `docket_tasks_${counter}_total`;
      this.counters.set(
        counter,
        get(name, () => new prom.Counter({ name, help, labelNames: taskLabels })),
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
  const labels = (l: TaskLabels) => ({ docket, task: l.task, worker: l.worker ?? '' });
  return {
    count: (counter, l, by = 1) => m.counters.get(counter)!.inc(labels(l), by),
    disruption: (worker) => m.disruptions.inc({ docket, worker }),
    duration: (l, seconds) => m.duration.observe(labels(l), seconds),
    punctuality: (l, seconds) => m.punctuality.observe(labels(l), Math.max(0, seconds)),
    running: (l, delta) => m.running.inc(labels(l), delta),
    close: () => m.sources.delete(source),
  };
}
