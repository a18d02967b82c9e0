import { NotFoundException } from '@nestjs/common';
import type { DocketInspector } from '../public-api.js';
import { isoOrNull } from '../util/dates.js';
import { unknownTask } from '../util/unknown-task.js';
import type { ExplanationView } from './dashboard-views.interface.js';

/** Why the task of `key` is where it is; 404 when Redis has no record of it. */
export async function explanationView(
  inspector: DocketInspector,
  key: string,
): Promise<ExplanationView> {
  const why = await inspector.explain(key);
  if (why.state === 'missing') {
    throw new NotFoundException(unknownTask(key));
  }
  const view: ExplanationView = { key, state: why.state, reason: why.reason, detail: why.detail };
  if (why.since) view.since = isoOrNull(why.since) ?? undefined;
  if (why.until) view.until = isoOrNull(why.until) ?? undefined;
  return view;
}
