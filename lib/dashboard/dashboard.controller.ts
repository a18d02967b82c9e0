import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  type MessageEvent,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Sse,
  UseGuards,
  applyDecorators,
  type Type,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { DashboardActionGuard } from './dashboard-action.guard.js';
import { DashboardClosingGuard } from './dashboard-closing.guard.js';
import type { ResolvedDashboardOptions } from './dashboard-options.interface.js';
import { DashboardService } from './dashboard.service.js';
import { DashboardTaskService } from './dashboard-task.service.js';
import { DashboardListsService, type ListQuery } from './dashboard-lists.service.js';
import { DashboardBulkService } from './dashboard-bulk.service.js';
import { DashboardLive } from './dashboard-live.service.js';
import { unlessRedisIsDown } from './redis-down.js';
import type {
  BulkView,
  ExplanationView,
  FailuresView,
  OverviewView,
  PausedView,
  RunningView,
  ScheduledView,
  StrikeView,
  DeadLetterView,
  PageView,
  TaskDetailView,
  TaskRowView,
  FinishedRowView,
  WorkerView,
} from './dashboard-views.interface.js';
import { DASHBOARD_SCRIPT, DASHBOARD_STYLES, renderPage } from './ui/index.js';

const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'self'; form-action 'none'; frame-ancestors 'self'";

type Json = Record<string, unknown>;

/**
 * The dashboard's controller, made for one path and its guards (decorators take constants, so
 * each `forRoot` gets its own class). The page, its two assets, JSON reads under `api/`, the
 * live stream `api/live`, and POST actions under `api/` behind `DashboardActionGuard` and the
 * user's guard.
 */
export function createDashboardController(options: ResolvedDashboardOptions): Type<unknown> {
  const viewGuards = [DashboardClosingGuard, ...(options.viewGuard ? [options.viewGuard] : [])];
  const Act = () =>
    applyDecorators(
      HttpCode(200),
      UseGuards(DashboardActionGuard, ...(options.guard ? [options.guard] : [])),
    );

  const Page = () =>
    applyDecorators(
      Header('content-type', 'text/html; charset=utf-8'),
      Header('cache-control', 'no-store'),
      Header('content-security-policy', PAGE_POLICY),
      Header('x-content-type-options', 'nosniff'),
    );

  @Controller(options.path)
  @UseGuards(...viewGuards)
  class DocketDashboardController {
    constructor(
      private readonly dashboard: DashboardService,
      private readonly tasks: DashboardTaskService,
      private readonly lists: DashboardListsService,
      private readonly bulkActions: DashboardBulkService,
      private readonly liveStreams: DashboardLive,
    ) {}

    @Get()
    @Page()
    page(@Req() request: { originalUrl?: string; url?: string }): string {
      return renderPage(this.dashboard.options, request.originalUrl ?? request.url ?? '/');
    }

    /** The detail page of one execution (the page reads it from `api/task?key=`). */
    @Get('tasks/:key')
    @Page()
    taskPage(
      @Req() request: { originalUrl?: string; url?: string },
      @Param('key') key: string,
    ): string {
      const url = request.originalUrl ?? request.url ?? '/';
      return renderPage(this.dashboard.options, url, key);
    }

    @Get('assets/dashboard.js')
    @Header('content-type', 'text/javascript; charset=utf-8')
    @Header('cache-control', 'no-cache')
    @Header('x-content-type-options', 'nosniff')
    script(): string {
      return DASHBOARD_SCRIPT;
    }

    @Get('assets/dashboard.css')
    @Header('content-type', 'text/css; charset=utf-8')
    @Header('cache-control', 'no-cache')
    @Header('x-content-type-options', 'nosniff')
    styles(): string {
      return DASHBOARD_STYLES;
    }

    /**
     * What changes, as server-sent events (see DashboardLive): the page reads a view again
     * when its events say it changed. Guarded like every read.
     */
    @Sse('api/live')
    live(): Observable<MessageEvent> {
      if (!this.dashboard.options.live) {
        throw new NotFoundException('live updates are off (DocketDashboardModule live: false)');
      }
      return this.liveStreams.stream();
    }

    @Get('api/overview')
    @Header('cache-control', 'no-store')
    overview(@Query('since') since?: string): Promise<OverviewView> {
      const after = Number(since);
      return unlessRedisIsDown(() => this.dashboard.overview(Number.isFinite(after) ? after : 0));
    }

    @Get('api/running')
    @Header('cache-control', 'no-store')
    running(): Promise<RunningView[]> {
      return unlessRedisIsDown(() => this.dashboard.running());
    }

    @Get('api/scheduled')
    @Header('cache-control', 'no-store')
    scheduled(): Promise<{ total: number; tasks: ScheduledView[] }> {
      return unlessRedisIsDown(() => this.dashboard.scheduled());
    }

    @Get('api/failures')
    @Header('cache-control', 'no-store')
    failures(): Promise<FailuresView> {
      return unlessRedisIsDown(() => this.dashboard.failures());
    }

    @Get('api/tasks/:key/explain')
    @Header('cache-control', 'no-store')
    explain(@Param('key') key: string): Promise<ExplanationView> {
      return unlessRedisIsDown(() => this.dashboard.explain(key));
    }

    /** The same by query, for any key (a path cannot carry the keys `.` and `..`). */
    @Get('api/explain')
    @Header('cache-control', 'no-store')
    explainByQuery(@Query('key') key: unknown): Promise<ExplanationView> {
      return unlessRedisIsDown(() => this.dashboard.explain(key));
    }

    /** A page of live executions: `?state=&task=&q=&offset=&limit=`. */
    @Get('api/tasks')
    @Header('cache-control', 'no-store')
    taskList(@Query() query: ListQuery): Promise<PageView<TaskRowView>> {
      return unlessRedisIsDown(() => this.lists.tasks(query));
    }

    /** A page of finished executions, newest end first: `?state=&task=&q=&offset=&limit=`. */
    @Get('api/history')
    @Header('cache-control', 'no-store')
    history(@Query() query: ListQuery): Promise<PageView<FinishedRowView>> {
      return unlessRedisIsDown(() => this.lists.history(query));
    }

    /** A page of dead letters, newest first: `?task=&q=&offset=&limit=`. */
    @Get('api/dead-letters')
    @Header('cache-control', 'no-store')
    deadLetters(@Query() query: ListQuery): Promise<PageView<DeadLetterView>> {
      return unlessRedisIsDown(() => this.lists.deadLetters(query));
    }

    @Get('api/tasks/:key')
    @Header('cache-control', 'no-store')
    task(@Param('key') key: string): Promise<TaskDetailView> {
      return unlessRedisIsDown(() => this.tasks.detail(key));
    }

    /** The same by query, for any key. */
    @Get('api/task')
    @Header('cache-control', 'no-store')
    taskByQuery(@Query('key') key: unknown): Promise<TaskDetailView> {
      return unlessRedisIsDown(() => this.tasks.detail(key));
    }

    @Get('api/strikes')
    @Header('cache-control', 'no-store')
    strikes(): Promise<StrikeView[]> {
      return unlessRedisIsDown(() => this.dashboard.strikes());
    }

    @Get('api/workers')
    @Header('cache-control', 'no-store')
    workers(): Promise<WorkerView[]> {
      return unlessRedisIsDown(() => this.dashboard.workersRunning());
    }

    @Post('api/cancel')
    @Act()
    cancel(@Body() body: Json = {}): Promise<{ key: string; state: string | null }> {
      return unlessRedisIsDown(() => this.dashboard.cancel(body.key));
    }

    @Post('api/retry')
    @Act()
    retry(@Body() body: Json = {}): Promise<{ retried: number }> {
      return unlessRedisIsDown(() => this.dashboard.retry(body));
    }

    @Post('api/run-now')
    @Act()
    runNow(@Body() body: Json = {}): Promise<{ key: string; state: string }> {
      return unlessRedisIsDown(() => this.tasks.runNow(body.key));
    }

    /** Move a scheduled or queued task to another time: `{ key, at }` (ISO 8601 or epoch ms). */
    @Post('api/replace-at')
    @Act()
    replaceAt(@Body() body: Json = {}): Promise<{ key: string; state: string; when: string }> {
      return unlessRedisIsDown(() => this.tasks.replaceAt(body.key, body.at));
    }

    @Post('api/retry-task')
    @Act()
    retryTask(@Body() body: Json = {}): Promise<{ key: string; retried: number }> {
      return unlessRedisIsDown(() => this.tasks.retry(body.key));
    }

    /**
     * Cancel live tasks, retry or purge dead letters: a selection (`keys`, `ids`) or a list's
     * `filter`, a bounded piece per request (see DashboardBulkService).
     */
    @Post('api/bulk')
    @Act()
    bulk(@Body() body: unknown = {}): Promise<BulkView> {
      return unlessRedisIsDown(() => this.bulkActions.run(body));
    }

    @Post('api/strike')
    @Act()
    strike(@Body() body: Json = {}): Promise<{ strikes: StrikeView[] }> {
      return unlessRedisIsDown(() => this.dashboard.strike(body));
    }

    @Post('api/restore')
    @Act()
    restore(@Body() body: Json = {}): Promise<{ strikes: StrikeView[] }> {
      return unlessRedisIsDown(() => this.dashboard.restore(body));
    }

    @Post('api/pause')
    @Act()
    pause(@Body() body: unknown = {}): Promise<{ paused: PausedView }> {
      return unlessRedisIsDown(() => this.dashboard.setPaused(body, true));
    }

    @Post('api/resume')
    @Act()
    resume(@Body() body: unknown = {}): Promise<{ paused: PausedView }> {
      return unlessRedisIsDown(() => this.dashboard.setPaused(body, false));
    }
  }

  return DocketDashboardController;
}
