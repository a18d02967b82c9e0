import type { CooldownOptions } from '../interfaces/docket-task-options.interface.js';
import { positive, ruleTemplate, type PlanContext } from './plan-checks.js';
import type { RuleTemplate } from '../explorer/task-definition.js';

/** Cooldown: the first add runs; repeats within `window` are dropped (`cancelled`). */
export function cooldownRule(context: PlanContext, options: CooldownOptions): RuleTemplate {
  const window = positive(context, 'cooldown.window', options.window);
  return ruleTemplate(context, 'cooldown', options, { w: window }, window);
}
