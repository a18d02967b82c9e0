import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DocketModuleOptions } from '../lib/index.js';
import { AppModule } from './app.module.js';
import { appConfig, type HealthConfig } from './config/index.js';

/**
 * What a caller sets over the environment's configuration: docket options, where to listen,
 * the logger, and the health checks.
 */
export interface SampleAppOptions extends DocketModuleOptions {
  /** @default PORT ?? 3000 (0 = any free port) */
  port?: number;
  /** @default HOST ?? all interfaces */
  host?: string;
  /** Nest's logger levels, or false for none. @default LOG_FORMAT's console logger, all levels */
  logger?: LogLevel[] | false;
  /** Over `HEALTH_*`. */
  health?: Partial<HealthConfig>;
  /** Over `DASHBOARD_PASSWORD` (null: a read-only dashboard). */
  dashboardPassword?: string | null;
}

/** A listening sample app and the URL it answers on. */
export interface SampleApp {
  app: NestExpressApplication;
  url: string;
}

/** Create the sample app, start listening, and return it with its URL. */
export async function createSampleApp(options: SampleAppOptions = {}): Promise<SampleApp> {
  const { port, host, logger, health, dashboardPassword, ...docket } = options;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ docket, health, dashboardPassword }),
    {
      // a boot error (a bad environment variable, say) rejects instead of exiting the process
      abortOnError: false,
      // without a logger given, boot messages wait for the configured one (LOG_FORMAT)
      ...(logger === undefined ? { bufferLogs: true } : { logger }),
    },
  );
  try {
    const config = app.get<ConfigType<typeof appConfig>>(appConfig.KEY);
    if (logger === undefined) {
      app.useLogger(new ConsoleLogger({ json: config.logFormat === 'json' }));
    }
    // SIGTERM/SIGINT drain the worker (up to its shutdownTimeout) before the process exits
    app.enableShutdownHooks();
    const listenHost = host ?? config.host;
    if (listenHost === undefined) await app.listen(port ?? config.port);
    else await app.listen(port ?? config.port, listenHost);
    const { port: bound } = app.getHttpServer().address() as AddressInfo;
    return { app, url: `http://${listenHost ?? 'localhost'}:${bound}` };
  } catch (error) {
    await app.close();
    throw error;
  }
}
