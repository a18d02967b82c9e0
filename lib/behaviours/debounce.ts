import type { DebounceOptions } from '../interfaces/docket-task-options.interface.js';
import { positive, ruleTemplate, type PlanContext } from './plan-checks.js';
import type { RuleTemplate } from '../explorer/task-definition.js';

/** Debounce: a burst of adds for one argument value runs once, `settle` after the last add. */
export function debounceRule(context: PlanContext, options: DebounceOptions): RuleTemplate {
  const settle = positive(context, 'debounce.settle', options.settle);
  return ruleTemplate(context, 'debounce', options, { s: settle });
}
