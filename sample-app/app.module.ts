import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { PrometheusModule } from '@willsoto/nestjs-prometheus';
import { register } from 'prom-client';
import { DocketDashboardModule, DocketModule, type DocketModuleOptions } from '../lib/index.js';
import {
  appConfig,
  dashboardConfig,
  docketConfig,
  healthConfig,
  type HealthConfig,
} from './config/index.js';
import { basicAuthGuard } from './dashboard/index.js';
import { HealthModule } from './health/index.js';
import { TasksController } from './tasks.controller.js';
import { EmailTasks, Mailer, ReportTasks } from './tasks/index.js';

/** What a caller (a test) sets over the configuration read from the environment. */
export interface AppOverrides {
  /** Over the `docket` config; a `worker` object is merged with the environment's. */
  docket?: DocketModuleOptions;
  /** Over the `health` config. */
  health?: Partial<HealthConfig>;
  /** The dashboard's password instead of `DASHBOARD_PASSWORD` (null: read-only). */
  dashboardPassword?: string | null;
}

/**
 * The sample application: an HTTP API that schedules tasks, the worker that runs them,
 * `/health/live`, `/health/ready`, `/metrics` and the dashboard at `/docket` (read-only unless
 * `DASHBOARD_PASSWORD` is set). Configuration comes from the environment
 * (and a `.env` file) through `@nestjs/config`.
 */
@Module({})
export class AppModule {
  static forRoot(overrides: AppOverrides = {}): DynamicModule {
    const config = ConfigModule.forRoot({
      isGlobal: true,
      cache: true,
      load: [appConfig, docketConfig, healthConfig, dashboardConfig],
    });
    // read after ConfigModule.forRoot, which loads a .env file into the environment
    const password =
      overrides.dashboardPassword === undefined
        ? dashboardConfig().password
        : (overrides.dashboardPassword ?? undefined);
    return {
      module: AppModule,
      imports: [
        config,
        DocketModule.forRootAsync({
          inject: [docketConfig.KEY],
          useFactory: (env: ConfigType<typeof docketConfig>) =>
            withOverrides(env, overrides.docket ?? {}),
        }),
        HealthModule.forRoot(overrides.health),
        // The dashboard: anyone who reaches the app may look; acting needs the password.
        password === undefined
          ? DocketDashboardModule.forRoot({ readOnly: true })
          : DocketDashboardModule.forRoot({ guard: basicAuthGuard(password) }),
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
