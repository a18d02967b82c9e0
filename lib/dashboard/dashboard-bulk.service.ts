import { Inject, Injectable } from '@nestjs/common';
import {
  RedisFullError,
  RedisUnavailableError,
  type CancelOutcome,
  type ListedTask,
} from '../public-api.js';
import {
  type BulkAction,
  type BulkRequest,
  MOST_SKIPPED,
  cancelCursor,
  parseBulkRequest,
} from './bulk-request.js';
import { DashboardDocket } from './dashboard-docket.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import type { BulkView } from './dashboard-views.interface.js';
import { DOCKET_DASHBOARD_OPTIONS } from './dashboard.constants.js';
import { badRequest } from './dashboard.service.js';
import { deadLetterFilter } from './dead-letter-filter.js';

/** How many cancels are in flight at once (each is one small script). */
const IN_FLIGHT = 50;
/** A sweep of the dead letters reads them in pieces of this many, at most SCAN_BUDGET a request. */
const SCAN_PIECE = 1_000;
const SCAN_BUDGET = 10_000;

/** What one request touched and skipped (by reason). */
class Tally {
  touched = 0;
  skipped = 0;
  readonly reasons: Record<string, number> = {};

  skip(reason: string, count = 1): void {
    if (count <= 0) return;
    this.skipped += count;
    this.reasons[reason] = (this.reasons[reason] ?? 0) + count;
  }

  view(action: BulkAction, cursor: string | null = null): BulkView {
    const { touched, skipped, reasons } = this;
    return { action, touched, skipped, reasons, more: cursor !== null, cursor };
  }
}

/**
 * The bulk actions: cancel live tasks, retry or purge dead letters, over a selection or over a
 * list's filter. A request does a bounded amount of work (at most BULK_MAX items, a bounded
 * read of the dead letters); over a filter, its answer says whether more is left and gives
 * the cursor to go on with.
 */
@Injectable()
export class DashboardBulkService {
  constructor(
    private readonly docket: DashboardDocket,
    @Inject(DOCKET_DASHBOARD_OPTIONS) private readonly options: ResolvedDashboardOptions,
  ) {}

  async run(body: unknown): Promise<BulkView> {
    const request = parseBulkRequest(body, this.options.showArguments);
    try {
      if (request.action === 'cancel') {
        return 'keys' in request
          ? (await this.cancel(request.keys)).tally.view('cancel')
          : await this.cancelMatching(request);
      }
      if ('ids' in request) {
        const tally = new Tally();
        await this.onLetters(request.action, request.ids, tally);
        return tally.view(request.action);
      }
      return await this.sweepLetters(request);
    } catch (error) {
      return badRequest(error);
    }
  }

  /** Cancel `keys`, IN_FLIGHT at a time; each key's outcome in order. */
  private async cancel(keys: readonly string[]): Promise<{ tally: Tally; outcomes: string[] }> {
    const tally = new Tally();
    const outcomes: string[] = [];
    for (let i = 0; i < keys.length; i += IN_FLIGHT) {
      const done = await Promise.all(
        keys.slice(i, i + IN_FLIGHT).map((key) =>
          this.docket.client
            .cancel(key)
            .catch((error: unknown): CancelOutcome | 'invalid_key' | 'unreadable' => {
              if (error instanceof TypeError) return 'invalid_key'; // too long, say
              // Redis away or full fails the request; a record that cannot be read (a
              // wrong-typed key) is this key's alone
              if (error instanceof RedisUnavailableError || error instanceof RedisFullError) {
                throw error;
              }
              return 'unreadable';
            }),
        ),
      );
      outcomes.push(...done);
    }
    for (const outcome of outcomes) {
      if (outcome === 'cancelled') tally.touched++;
      else tally.skip(outcome);
    }
    return { tally, outcomes };
  }

  /**
   * Cancel the first `limit` live tasks that pass the filter. A cancelled task that waited
   * leaves the list at once; a cancelled running task stays listed until its worker ends it,
   * so the cursor carries the keys of those (and the next request passes over them while they
   * are still listed as running): a task that ends meanwhile never makes the sweep skip one.
   */
  private async cancelMatching(
    request: Extract<BulkRequest, { action: 'cancel'; filter: unknown }>,
  ): Promise<BulkView> {
    const { filter, skip, limit } = request;
    const skipped = new Set(skip);
    const list = await this.docket.inspector.tasks({
      ...filter,
      offset: 0,
      limit: Math.min(1_000, limit + skipped.size),
    });
    const passed = (task: ListedTask) => task.state === 'running' && skipped.has(task.key);
    const rows = list.tasks.filter((task) => !passed(task)).slice(0, limit);
    const { tally, outcomes } = await this.cancel(rows.map((task) => task.key));
    const seen = new Set(list.tasks.map((task) => task.key));
    const whole = list.tasks.length === list.total;
    // still running (or maybe beyond what was listed), and the running ones cancelled now
    const stay = [
      ...skip.filter((key) =>
        seen.has(key) ? list.tasks.some((t) => t.key === key && passed(t)) : !whole,
      ),
      ...rows
        .filter((task, i) => task.state === 'running' && outcomes[i] === 'cancelled')
        .map((t) => t.key),
    ];
    const passedOver = list.tasks.filter(passed).length;
    const more =
      rows.length > 0 && list.total - passedOver - rows.length > 0 && stay.length <= MOST_SKIPPED;
    return tally.view('cancel', more ? cancelCursor(stay) : null);
  }

  /** Retry or delete the dead letters `ids`, counting each one that is not. */
  private async onLetters(action: 'retry' | 'purge', ids: string[], tally: Tally): Promise<void> {
    const letters = this.docket.deadLetters;
    if (ids.length === 0) return;
    if (action === 'purge') {
      const deleted = await letters.delete(ids);
      tally.touched += deleted;
      tally.skip('gone', ids.length - deleted);
      return;
    }
    const { retried, skipped } = await letters.retryIds(ids);
    tally.touched += retried.length;
    for (const { reason } of skipped) tally.skip(reason);
  }

  /**
   * Retry or delete the dead letters that pass the filter, oldest first, from the cursor up
   * to the newest letter when the sweep began: at most `limit` of them, after reading at most
   * SCAN_BUDGET letters.
   */
  private async sweepLetters(
    request: Extract<BulkRequest, { action: 'retry' | 'purge'; filter: unknown }>,
  ): Promise<BulkView> {
    const { action, limit } = request;
    const tally = new Tally();
    const until = request.until ?? (await this.docket.deadLetters.newestId());
    if (until === null) return tally.view(action);
    const passes = deadLetterFilter(request.filter, this.options.showArguments);
    const chosen: string[] = [];
    let position = request.after;
    let read = 0;
    let done = false;
    while (chosen.length < limit && read < SCAN_BUDGET) {
      const piece = await this.docket.deadLetters.scan(
        position,
        until,
        Math.min(SCAN_PIECE, SCAN_BUDGET - read),
      );
      read += piece.letters.length;
      let consumed = 0;
      for (const letter of piece.letters) {
        if (chosen.length === limit) break;
        position = letter.id;
        consumed++;
        if (passes(letter)) chosen.push(letter.id);
      }
      if (consumed === piece.letters.length && piece.next === null) {
        done = true;
        break;
      }
    }
    await this.onLetters(action, chosen, tally);
    return tally.view(action, done ? null : `${position ?? '0-0'}..${until}`);
  }
}
