/** Metadata key that `@DocketTask` writes on a method. */
export const DOCKET_TASK_METADATA = 'docket:task';
export const DOCKET_EVENT_METADATA = 'docket:event';
/** Metadata key that `@Ctx` writes on a method: the index of the context parameter. */
export const DOCKET_CTX_METADATA = 'docket:ctx';
/** The resolved options (defaults merged, checked). */
export const DOCKET_OPTIONS = Symbol('DOCKET_OPTIONS');
/** Options given from outside the application's module (the CLI's `docket worker` flags). */
export const DOCKET_OPTION_DEFAULTS = Symbol('DOCKET_OPTION_DEFAULTS');
/** The docket store (store/docket-store.ts). */
export const DOCKET_STORE = Symbol('DOCKET_STORE');
/** Where the engine reports metrics (a no-op without prom-client). */
export const DOCKET_METRICS = Symbol('DOCKET_METRICS');
/** OpenTelemetry spans (no-ops without an SDK). */
export const DOCKET_TRACING = Symbol('DOCKET_TRACING');
/** Compiles a task's options at boot (behaviours/plan.ts), given to the explorer. */
export const DOCKET_PLAN_COMPILER = Symbol('DOCKET_PLAN_COMPILER');
