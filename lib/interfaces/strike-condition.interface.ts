export type StrikeOperator = '==' | '!=' | '>' | '>=' | '<' | '<=' | 'between';

/** Which adds and queued tasks a strike blocks. */
export interface StrikeCondition {
  /** A task name or a reference to a decorated method; all tasks when absent. */
  task?: string | ((...args: any[]) => unknown);
  parameter?: string;
  /** @default '==' */
  operator?: StrikeOperator;
  value?: unknown;
}
