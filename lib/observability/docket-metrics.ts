/** Counters of the docket, by the suffix of their name (`docket_tasks_<suffix>_total`). */
export type TaskCounter =
  | 'added'
  | 'replaced'
  | 'scheduled'
  | 'cancelled'
  | 'started'
  | 'redelivered'
  | 'stricken'
  | 'superseded'
  | 'completed'
  | 'succeeded'
  | 'failed'
  | 'retried'
  | 'perpetuated'
  | 'quarantined';

/** Labels of a task metric; never keys or arguments, so cardinality stays bounded. */
export interface TaskLabels {
  task: string;
  worker?: string;
}

/** Where the engine reports what happens; a no-op unless prom-client is installed. */
export interface DocketMetrics {
  count(counter: TaskCounter, labels: TaskLabels, by?: number): void;
  disruption(worker: string): void;
  duration(labels: TaskLabels, seconds: number): void;
  punctuality(labels: TaskLabels, seconds: number): void;
  running(labels: TaskLabels, delta: number): void;
  /** Stop reading depth gauges for this docket. */
  close(): void;
}

export const NO_METRICS: DocketMetrics = {
  count: () => undefined,
  disruption: () => undefined,
  duration: () => undefined,
  punctuality: () => undefined,
  running: () => undefined,
  close: () => undefined,
};
