import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  DocketConfigurationError,
  DocketDashboardModule,
  DocketModule,
} from '../../../lib/index.js';
import { REDIS_URL, uniqueName } from '../../utils.js';

async function boot(imports: unknown[]): Promise<void> {
  @Module({ imports: imports as [] })
  class AppModule {}
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('dashboard boot', () => {
  it('refuses an option that cannot work, naming it', () => {
    assert.throws(
      () => DocketDashboardModule.forRoot({ path: '/docket/:id' }),
      (error: Error) =>
        error instanceof DocketConfigurationError && /path "\/docket\/:id"/.test(error.message),
    );
    assert.throws(
      () => DocketDashboardModule.forRoot({ sampleInterval: 0 }),
      /"sampleInterval" must be a positive number/,
    );
  });

  it('fails at boot without a DocketModule', async () => {
    await assert.rejects(
      boot([DocketDashboardModule.forRoot({ readOnly: true })]),
      /DocketDashboardModule: no DocketModule in this application/,
    );
  });

  it('fails at boot when asked for another docket', async () => {
    const name = uniqueName('boot');
    await assert.rejects(
      boot([
        DocketModule.forRoot({ url: REDIS_URL, name, worker: false }),
        DocketDashboardModule.forRoot({ docket: 'billing', readOnly: true }),
      ]),
      new RegExp(`docket "billing" is not this application's docket \\("${name}"\\)`),
    );
    await boot([
      DocketModule.forRoot({ url: REDIS_URL, name, worker: false }),
      DocketDashboardModule.forRoot({ docket: name, readOnly: true }),
    ]);
  });

  it('finds a DocketModule that is not global', async () => {
    const name = uniqueName('boot');
    await boot([
      DocketModule.forRoot({ url: REDIS_URL, name, worker: false, isGlobal: false }),
      DocketDashboardModule.forRoot({ readOnly: true }),
    ]);
  });
});
