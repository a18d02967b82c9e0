import { Injectable } from '@nestjs/common';
import { Ctx, DocketTask, type TaskContext } from '../../lib/index.js';
import { pause } from './pause.js';

/** What `generateReport` returns. */
export interface Report {
  customerId: number;
  sections: string[];
  generatedAt: Date;
}

/** How long the sample spends on one section of a report. */
export const SECTION_MS = 200;

@Injectable()
export class ReportTasks {
  /**
   * A slow task: one section after the other, reporting progress, and stopping at once when
   * cancelled or timed out (`ctx.signal`).
   */
  @DocketTask({ timeout: 60_000 })
  async generateReport(customerId: number, sections = 5, @Ctx() ctx: TaskContext): Promise<Report> {
    await ctx.progress.setTotal(sections);
    const done: string[] = [];
    for (let i = 1; i <= sections; i++) {
      await ctx.progress.setMessage(`section ${i} of ${sections}`);
      await pause(SECTION_MS, ctx.signal);
      done.push(`section ${i} for customer ${customerId}`);
      await ctx.progress.increment();
    }
    await ctx.progress.setMessage(null);
    return { customerId, sections: done, generatedAt: new Date() };
  }
}
