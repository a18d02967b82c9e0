import { Logger } from '@nestjs/common';
import { createSampleApp } from './create-sample-app.js';

async function bootstrap(): Promise<void> {
  const { url } = await createSampleApp();
  const logger = new Logger('SampleApp');
  logger.log(`listening on ${url}`);
  logger.log(
    `try: curl -X POST ${url}/tasks/welcome -H 'content-type: application/json' -d '{"userId":"ada"}'`,
  );
}

bootstrap().catch((error: unknown) => {
  new Logger('SampleApp').error((error as Error).message, (error as Error).stack);
  process.exit(1);
});
