import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import type { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { DocketModuleOptions } from '../lib/index.js';
import { AppModule } from './app.module.js';

/** Docket options plus where to listen. */
export interface SampleAppOptions extends DocketModuleOptions {
  /** @default process.env.PORT ?? 3000 (0 = any free port) */
  port?: number;
  /** @default all interfaces */
  host?: string;
  /** Nest's logger levels, or false for none. @default Nest's default */
  logger?: LogLevel[] | false;
}

/** A listening sample app and the URL it answers on. */
export interface SampleApp {
  app: NestExpressApplication;
  url: string;
}

/** Create the sample app, start listening, and return it with its URL. */
export async function createSampleApp(options: SampleAppOptions = {}): Promise<SampleApp> {
  const { port = Number(process.env.PORT ?? 3000), host, logger, ...docket } = options;
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(docket),
    logger === undefined ? {} : { logger },
  );
  app.enableShutdownHooks();
  if (host === undefined) await app.listen(port);
  else await app.listen(port, host);
  const { port: bound } = app.getHttpServer().address() as AddressInfo;
  return { app, url: `http://${host ?? 'localhost'}:${bound}` };
}
