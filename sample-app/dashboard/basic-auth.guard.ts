import { timingSafeEqual } from 'node:crypto';
import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  type Type,
  UnauthorizedException,
} from '@nestjs/common';

const USER = 'admin';

/** What the guard reads and sets (Express and Fastify alike). */
interface HttpRequest {
  headers: Record<string, string | string[] | undefined>;
}
interface HttpResponse {
  header(name: string, value: string): unknown;
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The sample's guard of the dashboard's actions: HTTP basic auth, user `admin` and the given
 * password (`DASHBOARD_PASSWORD`). A browser asks for the credentials on the first action. In
 * your own application, use the guard that protects your other admin routes.
 */
export function basicAuthGuard(password: string): Type<CanActivate> {
  @Injectable()
  class BasicAuthGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const http = context.switchToHttp();
      const header = http.getRequest<HttpRequest>().headers.authorization;
      const [scheme, encoded] = typeof header === 'string' ? header.split(' ') : [];
      if (scheme === 'Basic' && encoded !== undefined) {
        const decoded = Buffer.from(encoded, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon > 0 && same(decoded.slice(0, colon), USER)) {
          if (same(decoded.slice(colon + 1), password)) return true;
        }
      }
      http.getResponse<HttpResponse>().header('WWW-Authenticate', 'Basic realm="docket dashboard"');
      throw new UnauthorizedException(
        'the dashboard actions need user admin and DASHBOARD_PASSWORD',
      );
    }
  }
  return BasicAuthGuard;
}
