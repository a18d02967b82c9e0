import type { DocketInspector, StrikeCondition } from '../public-api.js';
import { describeValue, valueType } from '../util/typed-value.js';
import type { StrikeView } from './dashboard-views.interface.js';

/** The strikes in effect as the dashboard shows them (values typed as the CLI writes them). */
export async function strikeViews(inspector: DocketInspector): Promise<StrikeView[]> {
  return (await inspector.strikes()).map(({ id, condition }) => ({
    id,
    task: typeof condition.task === 'string' ? condition.task : null,
    parameter: condition.parameter ?? null,
    operator: condition.operator ?? '==',
    value: condition.parameter ? describeValue(condition.value) : null,
    type: condition.parameter ? valueType(condition.value) : null,
  }));
}

/** The condition a listed strike was given with, or undefined when it is not in effect. */
export async function strikeCondition(
  inspector: DocketInspector,
  id: string,
): Promise<StrikeCondition | undefined> {
  return (await inspector.strikes()).find((strike) => strike.id === id)?.condition;
}
