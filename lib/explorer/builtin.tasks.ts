import { Injectable } from '@nestjs/common';
import { Ctx } from './ctx.decorator.js';
import { DocketTask } from './docket-task.decorator.js';
import type { TaskContext } from '../interfaces/task-context.interface.js';
import { sleep } from '../util/time.js';

/** Tasks every docket has, for smoke tests and the CLI. */
@Injectable()
export class BuiltinTasks {
  /** Log `message` with the task's key and how long it waited. */
  @DocketTask()
  async trace(message: string = 'Howdy!', @Ctx() ctx?: TaskContext): Promise<string> {
    const waited = ctx ? Date.now() - ctx.execution.when.getTime() : 0;
    ctx?.logger.log(`${message}: "${ctx.key}" waited ${waited}ms, running on ${ctx.worker}`);
    return message;
  }

  /** Fail with `message`. */
  @DocketTask()
  async fail(message: string = 'Alas!'): Promise<never> {
    throw new Error(message);
  }

  /** Wait `seconds`, or until the task is aborted. */
  @DocketTask()
  async sleep(seconds: number = 1, @Ctx() ctx?: TaskContext): Promise<void> {
    ctx?.logger.log(`sleeping for ${seconds}s`);
    await sleep(seconds * 1_000, ctx?.signal);
  }
}
