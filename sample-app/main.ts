import { Logger } from '@nestjs/common';
import { createSampleApp } from './create-sample-app.js';
import { startTracing } from './tracing.js';

async function bootstrap(): Promise<void> {
  // before the app: the docket resolves the tracer when its module initialises
  await startTracing();
  const { url } = await createSampleApp();
  const logger = new Logger('SampleApp');
  logger.log(
    `listening on ${url}; probes at ${url}/health/live and ${url}/health/ready, metrics at ${url}/metrics`,
  );
  logger.log(
    process.env.DASHBOARD_PASSWORD
      ? `dashboard at ${url}/docket (actions: user admin, password DASHBOARD_PASSWORD)`
      : `dashboard at ${url}/docket, read-only (set DASHBOARD_PASSWORD to allow its actions)`,
  );
  if (!process.env.DOCKET_URL) {
    logger.log(
      'tasks run in this process on memory:// (nothing is kept after it stops); ' +
        'set DOCKET_URL=redis://localhost:6379/0 to run them on Redis',
    );
  }
  logger.log(
    `try: curl -X POST ${url}/tasks/welcome -H 'content-type: application/json' -d '{"userId":"ada"}'`,
  );
}

bootstrap().catch((error: unknown) => {
  new Logger('SampleApp').error((error as Error).message, (error as Error).stack);
  process.exit(1);
});
