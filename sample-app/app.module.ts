import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { register } from 'prom-client';
import { DocketModule, type DocketModuleOptions } from '../lib/index.js';
import { appConfig, docketConfig, healthConfig, type HealthConfig } from './config/index.js';
import { HealthModule } from './health/index.js';
import { TasksController } from './tasks.controller.js';
import { EmailTasks, Mailer, ReportTasks } from './tasks/index.js';

/** What a caller (a test) sets over the configuration read from the environment. */
export interface AppOverrides {
  /** Over the `docket` config; a `worker` object is merged with the environment's. */
  docket?: DocketModuleOptions;
  /** Over the `health` config. */
  health?: Partial<HealthConfig>;
}

/**
 * The sample application: an HTTP API that schedules tasks, the worker that runs them,
 * `/health/live`, `/health/ready` and `/metrics`. Configuration comes from the environment
 * (and a `.env` file) through `@nestjs/config`.
 */
@Module({})
export class AppModule {
  static forRoot(overrides: AppOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({
          isGlobal: true,
          cache: true,
          load: [appConfig, docketConfig, healthConfig],
        }),
        DocketModule.forRootAsync({
          inject: [docketConfig.KEY],
          useFactory: (env: ConfigType<typeof docketConfig>) =>
            withOverrides(env, overrides.docket ?? {}),
        }),
        HealthModule.forRoot(overrides.health),
        PrometheusModule.register({
          path: '/metrics',
          // Node.js and process metrics can be registered once per process; a second app in
          // the same process (as in the tests) serves the ones the first registered.
          defaultMetrics: {
            enabled: register.getSingleMetric('process_cpu_user_seconds_total') === undefined,
          },
        }),
      ],
      controllers: [TasksController],
      providers: [Mailer, EmailTasks, ReportTasks],
    };
  }
}

function withOverrides(
  env: DocketModuleOptions,
  overrides: DocketModuleOptions,
): DocketModuleOptions {
  const merged = { ...env, ...overrides };
  if (overrides.worker !== undefined && overrides.worker !== false && env.worker !== false) {
    merged.worker = { ...env.worker, ...overrides.worker };
  }
  return merged;
}
