export * from './docket-health.indicator.js';
export type { DocketMetrics, TaskCounter, TaskLabels } from './docket-metrics.js';
