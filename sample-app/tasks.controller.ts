import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { DocketClient, type Execution } from '../lib/index.js';
import { EmailTasks, ReportTasks } from './tasks/index.js';
import {
  executionView,
  parseReport,
  parseWait,
  parseWelcome,
  scheduledView,
  type ExecutionView,
  type ScheduledView,
} from './tasks.dto.js';

const FINISHED = new Set(['completed', 'failed', 'cancelled']);
/** How long a GET waits for the stored result of an execution that has already ended. */
const RESULT_READ_MS = 1_000;

/** Schedule tasks over HTTP and look at their executions. */
@Controller('tasks')
export class TasksController {
  constructor(private readonly docket: DocketClient) {}

  /** Welcome mail now, or `delayMs` from now; a repeated `key` is not scheduled twice. */
  @Post('welcome')
  @HttpCode(HttpStatus.ACCEPTED)
  async welcome(@Body() body: unknown): Promise<ScheduledView> {
    const { userId, locale, delayMs, key } = parseWelcome(body);
    const execution = await this.docket.add(EmailTasks.prototype.sendWelcome, {
      key,
      delay: delayMs,
    })(userId, locale ?? 'en');
    return scheduledView(execution);
  }

  /** A report, with progress; `replace` so that a repeated `key` reschedules it. */
  @Post('report')
  @HttpCode(HttpStatus.ACCEPTED)
  async report(@Body() body: unknown): Promise<ScheduledView> {
    const { customerId, sections, delayMs, key } = parseReport(body);
    const schedule = key
      ? this.docket.replace(ReportTasks.prototype.generateReport, { key, delay: delayMs })
      : this.docket.add(ReportTasks.prototype.generateReport, { delay: delayMs });
    return scheduledView(await schedule(customerId, sections));
  }

  /** The execution of `key`; with `?wait=ms`, once it has ended or `ms` have passed. */
  @Get(':key')
  async get(@Param('key') key: string, @Query('wait') wait?: string): Promise<ExecutionView> {
    const waitMs = parseWait(wait);
    const execution = await this.find(key);
    if (waitMs === 0 && !FINISHED.has(execution.state)) return executionView(execution);
    let result: { value: unknown } | undefined;
    try {
      result = { value: await execution.result({ timeout: waitMs || RESULT_READ_MS }) };
    } catch {
      // not finished in time, failed or cancelled: the state and error tell which
    }
    await execution.sync();
    return executionView(execution, execution.state === 'completed' ? result : undefined);
  }

  /** Cancel `key`: a waiting task never starts, a running one is aborted. */
  @Delete(':key')
  @HttpCode(HttpStatus.ACCEPTED)
  async cancel(@Param('key') key: string): Promise<ExecutionView> {
    const execution = await this.find(key);
    await this.docket.cancel(key);
    await execution.sync();
    return executionView(execution);
  }

  private async find(key: string): Promise<Execution> {
    const execution = await this.docket.getExecution(key);
    if (!execution) throw new NotFoundException(`no execution has the key "${key}"`);
    return execution;
  }
}
