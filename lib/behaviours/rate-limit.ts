import type { RateLimitOptions } from '../interfaces/docket-task-options.interface.js';
import { positive, ruleTemplate, type PlanContext } from './plan-checks.js';
import type { RuleTemplate } from '../explorer/task-definition.js';

/**
 * Rate limit: at most `limit` starts per sliding `per` window; the claim script defers the
 * excess to when a slot frees, or drops it (`cancelled`) with `drop: true`.
 */
export function rateLimitRule(context: PlanContext, options: RateLimitOptions): RuleTemplate {
  const per = positive(context, 'rateLimit.per', options.per);
  const limit = positive(context, 'rateLimit.limit', options.limit, true);
  return ruleTemplate(
    context,
    'rate',
    options,
    { l: limit, p: per, d: options.drop === true },
    per,
  );
}
