import 'reflect-metadata';
import {
  Injectable,
  Module,
  type INestApplication,
  type INestApplicationContext,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import {
  Ctx,
  DeadLetters,
  DocketClient,
  DocketDashboardModule,
  DocketInspector,
  DocketModule,
  DocketTask,
  type TaskContext,
} from '../lib/index.js';

/** A customer of the made-up shop, as its tasks' arguments carry it. */
export interface Order {
  id: number;
  amount: bigint;
  customer: string;
}

/**
 * The shop's tasks. The scheduled ones never come due during the run; `charge` always fails
 * (its executions become dead letters) and `hold` runs until the worker shuts down.
 */
@Injectable()
export class ShopTasks {
  @DocketTask('emails.welcome')
  welcome(userId: string, locale: string): void {
    void userId;
    void locale;
  }

  @DocketTask('emails.digest')
  digest(customer: { id: number; name: string }): void {
    void customer;
  }

  @DocketTask('reports.monthly')
  monthly(customer: string, month: string): void {
    void customer;
    void month;
  }

  @DocketTask('billing.invoice')
  invoice(order: Order): void {
    void order;
  }

  @DocketTask('billing.charge')
  charge(order: Order): void {
    throw new Error(`card declined for order ${order.id} of ${order.customer}`);
  }

  @DocketTask('exports.hold')
  async hold(label: string, @Ctx() ctx: TaskContext): Promise<void> {
    void label;
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }
}

/** The client names the two processes' Redis connections carry (SLOWLOG tells them apart). */
export const DASHBOARD_CONNECTION = 'bench-dashboard';
const WORKER_CONNECTION = 'bench-worker';

/**
 * The worker of the docket, as an application context of its own: `concurrency` slots, its
 * own connections.
 */
export async function startWorker(
  url: string,
  name: string,
  concurrency: number,
): Promise<INestApplicationContext> {
  @Module({
    imports: [
      DocketModule.forRoot({
        url,
        name,
        connection: { connectionName: WORKER_CONNECTION },
        worker: { concurrency, shutdownTimeout: 500 },
      }),
    ],
    providers: [ShopTasks],
  })
  class ShopWorkerModule {}
  return NestFactory.createApplicationContext(ShopWorkerModule, {
    logger: false,
    abortOnError: false,
  });
}

/** The HTTP application that serves the dashboard, and what the benchmark reads through it. */
export interface DashboardApp {
  app: INestApplication;
  /** Where the dashboard is mounted: `<url>/docket`. */
  url: string;
  client: DocketClient;
  inspector: DocketInspector;
  deadLetters: DeadLetters;
}

/**
 * A producer-only application with the dashboard mounted as the sample app mounts it (`/docket`,
 * read-only, default refresh and sampling), on a free loopback port.
 */
export async function startDashboardApp(url: string, name: string): Promise<DashboardApp> {
  @Module({
    imports: [
      DocketModule.forRoot({
        url,
        name,
        connection: { connectionName: DASHBOARD_CONNECTION },
        worker: false,
      }),
      DocketDashboardModule.forRoot({ path: '/docket', readOnly: true }),
    ],
  })
  class ShopDashboardModule {}
  const app = await NestFactory.create(ShopDashboardModule, new ExpressAdapter(), {
    logger: false,
    abortOnError: false,
  });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  const { port } = app.getHttpServer().address() as { port: number };
  return {
    app,
    url: `http://127.0.0.1:${port}/docket`,
    client: app.get(DocketClient),
    inspector: app.get(DocketInspector),
    deadLetters: app.get(DeadLetters),
  };
}
