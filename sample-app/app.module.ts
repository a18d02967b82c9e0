import { Module, type DynamicModule } from '@nestjs/common';
import { DocketModule, type DocketModuleOptions } from '../lib/index.js';
import { TasksController } from './tasks.controller.js';
import { EmailTasks, Mailer, ReportTasks } from './tasks/index.js';

/** The sample application: an HTTP API that schedules tasks, and a worker that runs them. */
@Module({})
export class AppModule {
  /** `options` go to `DocketModule.forRoot` over the sample's defaults. */
  static forRoot(options: DocketModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DocketModule.forRoot({
          name: process.env.DOCKET_NAME ?? 'sample',
          url: process.env.DOCKET_URL ?? 'redis://localhost:6379/0',
          ...options,
        }),
      ],
      controllers: [TasksController],
      providers: [Mailer, EmailTasks, ReportTasks],
    };
  }
}
