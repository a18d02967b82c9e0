import { Module, type DynamicModule } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TerminusModule } from '@nestjs/terminus';
import { appConfig, healthConfig, type HealthConfig } from '../config/index.js';
import { HEALTH_OPTIONS } from './health.constants.js';
import { HealthController } from './health.controller.js';

/** `/health/live` and `/health/ready` on terminus. */
@Module({})
export class HealthModule {
  /** `overrides` go over the environment's `health` config (tests use them). */
  static forRoot(overrides: Partial<HealthConfig> = {}): DynamicModule {
    return {
      module: HealthModule,
      imports: [
        TerminusModule.forRootAsync({
          inject: [healthConfig.KEY, appConfig.KEY],
          useFactory: (
            health: ConfigType<typeof healthConfig>,
            app: ConfigType<typeof appConfig>,
          ) => ({
            gracefulShutdownTimeoutMs: overrides.shutdownDelay ?? health.shutdownDelay,
            errorLogStyle: app.logFormat === 'json' ? 'json' : 'pretty',
          }),
        }),
      ],
      controllers: [HealthController],
      providers: [
        {
          provide: HEALTH_OPTIONS,
          inject: [healthConfig.KEY],
          useFactory: (health: ConfigType<typeof healthConfig>): HealthConfig => ({
            ...health,
            ...overrides,
          }),
        },
      ],
    };
  }
}
