import 'reflect-metadata';
import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  Module,
  UnauthorizedException,
  type INestApplication,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import {
  Ctx,
  DocketClient,
  DocketDashboardModule,
  DocketModule,
  DocketTask,
  type DocketDashboardOptions,
  type DocketWorkerOptions,
  type TaskContext,
} from '../../../lib/index.js';
import { REDIS_URL, uniqueName } from '../../utils.js';

/** The cookie that the fixture's guard lets act. */
export const ADMIN_COOKIE = { name: 'docket_admin', value: 'let-me-in' };

/** Lets a request act when it carries the admin cookie (a stand-in for a real session). */
@Injectable()
export class AdminCookieGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const { headers } = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
    const cookie = `${ADMIN_COOKIE.name}=${ADMIN_COOKIE.value}`;
    if (!(headers.cookie ?? '').split(/;\s*/).includes(cookie)) {
      throw new UnauthorizedException('sign in as an admin to act on tasks');
    }
    return true;
  }
}

/**
 * What the test steers the tasks with: each `crunch` step waits for a credit the test gives,
 * and `flaky` fails until `healed`.
 */
@Injectable()
export class Controls {
  healed = false;
  private readonly credits = new Map<string, number>();
  private readonly waiters = new Map<string, () => void>();

  /** Let the task of `key` take `steps` more steps. */
  release(key: string, steps = 1): void {
    this.credits.set(key, (this.credits.get(key) ?? 0) + steps);
    this.waiters.get(key)?.();
  }

  async step(key: string, signal: AbortSignal): Promise<void> {
    while (!this.credits.get(key)) {
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason ?? new Error('aborted'));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiters.set(key, () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
    }
    this.credits.set(key, this.credits.get(key)! - 1);
  }
}

function wobble(attempt: number): never {
  throw new RangeError(`wobble ${attempt}`);
}

@Injectable()
export class DashboardTasks {
  constructor(private readonly controls: Controls) {}

  /** Reports progress one step at a time, each step when the test releases it. */
  @DocketTask()
  async crunch(steps: number, @Ctx() ctx: TaskContext): Promise<number> {
    await ctx.progress.setTotal(steps);
    await ctx.progress.setMessage('crunching');
    for (let i = 0; i < steps; i++) {
      await this.controls.step(ctx.key, ctx.signal);
      await ctx.progress.increment();
    }
    return steps;
  }

  @DocketTask()
  async flaky(order: { id: number; amount: bigint }): Promise<string> {
    if (!this.controls.healed) throw new Error(`payment gateway down for order ${order.id}`);
    return 'paid';
  }

  /** Fails its first two attempts (from a named function, for the stack), then succeeds. */
  @DocketTask({ retry: { attempts: 3, delay: 0 } })
  async wobbly(@Ctx() ctx: TaskContext): Promise<string> {
    if (ctx.execution.attempt < 3) wobble(ctx.execution.attempt);
    return 'steady';
  }

  @DocketTask()
  async quick(n: number): Promise<number> {
    return n * 2;
  }

  /** Typed arguments and a typed result, for the detail page. */
  @DocketTask()
  async stamp(at: Date, amount: bigint, tags: Set<string>): Promise<{ at: Date; total: bigint }> {
    return { at, total: amount * BigInt(tags.size) };
  }

  @DocketTask()
  async report(customer: string, @Ctx() ctx: TaskContext): Promise<void> {
    await ctx.progress.setTotal(10);
    for (let i = 0; i < 10; i++) {
      await this.controls.step(ctx.key, ctx.signal);
      await ctx.progress.increment();
    }
    void customer;
  }
}

export interface DashboardApp {
  app: INestApplication;
  url: string;
  name: string;
  client: DocketClient;
  controls: Controls;
  close(): Promise<void>;
}

/**
 * A Nest HTTP app (Express unless told) with a docket (its own name, a worker) and the
 * dashboard at `/docket` (after any global prefix) behind `AdminCookieGuard`, listening on a
 * free loopback port.
 */
export async function startDashboardApp(
  options: {
    platform?: 'express' | 'fastify';
    /** Redis of the docket; the test run's by default. */
    url?: string;
    globalPrefix?: string;
    dashboard?: DocketDashboardOptions;
    /** Worker options besides the fixture's. */
    worker?: DocketWorkerOptions;
  } = {},
): Promise<DashboardApp> {
  const name = uniqueName('dash');

  @Module({
    imports: [
      DocketModule.forRoot({
        url: options.url ?? REDIS_URL,
        name,
        heartbeatInterval: 500,
        worker: {
          concurrency: 4,
          shutdownTimeout: 500,
          minimumCheckInterval: 200,
          ...options.worker,
        },
      }),
      DocketDashboardModule.forRoot({
        path: '/docket',
        guard: AdminCookieGuard,
        sampleInterval: 250,
        history: 60_000,
        refreshInterval: 300,
        ...options.dashboard,
      }),
    ],
    providers: [Controls, DashboardTasks],
  })
  class FixtureModule {}

  const adapter = options.platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(FixtureModule, adapter, { logger: false });
  if (options.globalPrefix) app.setGlobalPrefix(options.globalPrefix);
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const { port } = app.getHttpServer().address() as { port: number };
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    name,
    client: app.get(DocketClient),
    controls: app.get(Controls),
    close: () => app.close(),
  };
}

/** The admin cookie as a request header value. */
export const ADMIN = `${ADMIN_COOKIE.name}=${ADMIN_COOKIE.value}`;

/** Call the dashboard's JSON API (as admin unless other headers are given). */
export async function callApi(
  docket: DashboardApp,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = { cookie: ADMIN },
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${docket.url}/docket/api/${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}
