import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import type { FinishedState, LiveState } from '../public-api.js';
import { isoOrNull } from '../util/dates.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import type {
  DeadLetterView,
  FinishedRowView,
  PageView,
  TaskRowView,
} from './dashboard-views.interface.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import { deadLetterFilter } from './dead-letter-filter.js';
import { argsView, deadLetterView, waitingView } from './row-views.js';

/** The query of a list page: `?state=&task=&q=&offset=&limit=`. */
export interface ListQuery {
  state?: unknown;
  task?: unknown;
  q?: unknown;
  offset?: unknown;
  limit?: unknown;
}

/** The states of `?state=`: one, `waiting` (queued and scheduled, the default) or `all`. */
export const STATES: Record<string, LiveState[]> = {
  waiting: ['queued', 'scheduled'],
  all: ['running', 'queued', 'scheduled'],
  running: ['running'],
  queued: ['queued'],
  scheduled: ['scheduled'],
};

/** The states of the history's `?state=`: one, or `all` (the default). */
export const FINISHED: Record<string, FinishedState[]> = {
  all: ['completed', 'failed', 'cancelled'],
  completed: ['completed'],
  failed: ['failed'],
  cancelled: ['cancelled'],
};

/** The default page size, and the largest. */
export const PAGE_SIZE = 50;
const MAX_PAGE = 500;

export function text(value: unknown, name: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw new BadRequestException(`give "${name}" once, as text`);
  return value.trim() || undefined;
}

function whole(value: unknown, name: string, fallback: number, max: number): number {
  const given = text(value, name);
  if (given === undefined) return fallback;
  const n = Number(given);
  if (!Number.isInteger(n) || n < 0) {
    throw new BadRequestException(`"${name}" must be a whole number ≥ 0`);
  }
  return Math.min(n, max);
}

/** The list pages: live executions and dead letters, filtered and cut into pages on the server. */
@Injectable()
export class DashboardListsService {
  constructor(
    private readonly docket: DashboardDocket,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  private page(query: ListQuery): { offset: number; limit: number } {
    return {
      offset: whole(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER),
      limit: Math.max(1, whole(query.limit, 'limit', PAGE_SIZE, MAX_PAGE)),
    };
  }

  /** A page of the live executions in `state` that pass the task filter and the search. */
  async tasks(query: ListQuery): Promise<PageView<TaskRowView>> {
    const state = text(query.state, 'state') ?? 'waiting';
    const states = STATES[state];
    if (!states) {
      throw new BadRequestException(`"state" is one of ${Object.keys(STATES).join(', ')}`);
    }
    const { offset, limit } = this.page(query);
    // the search reads arguments: not offered when the dashboard shows none
    const search = this.options.showArguments ? text(query.q, 'q') : undefined;
    const list = await this.docket.inspector.tasks({
      states,
      task: text(query.task, 'task'),
      search,
      offset,
      limit,
    });
    return {
      total: list.total,
      offset,
      limit,
      items: list.tasks.map((task) => ({
        ...waitingView(task, this.options.showArguments),
        worker: task.worker ?? null,
        startedAt: isoOrNull(task.startedAt),
      })),
    };
  }

  /**
   * A page of the history of finished executions (newest end first) in `state` that pass the
   * task filter and the search; empty when the dashboard keeps none (`keepFinished: 0`).
   */
  async history(query: ListQuery): Promise<PageView<FinishedRowView>> {
    const state = text(query.state, 'state') ?? 'all';
    const states = FINISHED[state];
    if (!states) {
      throw new BadRequestException(`"state" is one of ${Object.keys(FINISHED).join(', ')}`);
    }
    const { offset, limit } = this.page(query);
    if (this.options.keepFinished === 0) return { total: 0, offset, limit, items: [] };
    const show = this.options.showArguments;
    const list = await this.docket.inspector.history({
      states,
      task: text(query.task, 'task'),
      // with no arguments shown, the search leaves them out (key, task name and error only)
      search: text(query.q, 'q'),
      searchArguments: show,
      offset,
      limit,
    });
    return {
      total: list.total,
      offset,
      limit,
      items: list.tasks.map((task) => ({
        key: task.key,
        taskName: task.taskName,
        args: argsView(show, task.args),
        attempt: task.attempt,
        state: task.state,
        worker: task.worker ?? null,
        startedAt: isoOrNull(task.startedAt),
        completedAt: isoOrNull(task.completedAt),
        error: task.error ?? null,
      })),
    };
  }

  /** A page of the dead letters (newest first) that pass the task filter and the search. */
  async deadLetters(query: ListQuery): Promise<PageView<DeadLetterView>> {
    const { offset, limit } = this.page(query);
    const filter = { task: text(query.task, 'task'), q: text(query.q, 'q') };
    if (filter.task === undefined && filter.q === undefined) {
      // unfiltered: only the letters up to the end of the page are read
      const page = await this.docket.deadLetters.newest(offset, limit);
      return {
        total: page.total,
        offset,
        limit,
        items: page.letters.map((letter) => deadLetterView(letter, this.options.showArguments)),
      };
    }
    const passes = deadLetterFilter(filter, this.options.showArguments);
    const letters = (await this.docket.deadLetters.entries()).reverse().filter(passes);
    return {
      total: letters.length,
      offset,
      limit,
      items: letters
        .slice(offset, offset + limit)
        .map((letter) => deadLetterView(letter, this.options.showArguments)),
    };
  }
}
