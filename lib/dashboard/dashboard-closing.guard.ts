import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  ServiceUnavailableException,
} from '@nestjs/common';
import { DashboardDocket } from './dashboard-docket.js';

/**
 * Answers 503 with `Connection: close` once the application is shutting down. Nest closes the
 * HTTP server before the docket's connections, and the server waits for busy keep-alive
 * connections: an open page, polling while Redis is away (each read waiting for it), would
 * keep `app.close()` waiting. Runs before every other guard of the dashboard.
 */
@Injectable()
export class DashboardClosingGuard implements CanActivate {
  constructor(private readonly docket: DashboardDocket) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.docket.closing) return true;
    // Express's response and Fastify's reply both have header(name, value)
    context
      .switchToHttp()
      .getResponse<{ header(name: string, value: string): unknown }>()
      .header('connection', 'close');
    throw new ServiceUnavailableException('the application is shutting down');
  }
}
