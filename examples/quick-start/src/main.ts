import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule);
  app.enableShutdownHooks(); // on SIGTERM the worker drains before the process exits
  await app.listen(process.env.PORT ?? 3000);
}

void bootstrap();
