import { Logger } from '@nestjs/common';
import type { AdmissionRule } from '../store/admission.js';
import type { DocketStore } from '../store/docket-store.js';

/** What the lease keeper needs from the worker. */
export interface LeaseKeeperEnv {
  store: Pick<DocketStore, 'renewLeases' | 'onReconnect'>;
  consumer: string;
  redeliveryTimeout: number;
  /** What the worker holds now: messages (running or read ahead) and running tasks. */
  leased(): { ids: string[]; running: { key: string; admission: readonly AdmissionRule[] }[] };
  /** A running task whose cancel flag is set (its cancel was announced while unheard). */
  cancelled(key: string): void;
  disrupted(error: unknown): void;
}

/**
 * Keeps what the worker holds from being redelivered: every `redeliveryTimeout / 4` the
 * messages' idle times start again and the running tasks' concurrency slots are renewed; the
 * answer names running tasks that were cancelled meanwhile. Also runs after the subscriber
 * reconnected, to find cancels announced while it could not hear them.
 */
export class LeaseKeeper {
  private readonly logger = new Logger('DocketWorker');
  private timer?: NodeJS.Timeout;
  private undoReconnect?: () => unknown;

  constructor(private readonly env: LeaseKeeperEnv) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.renew(), this.env.redeliveryTimeout / 4);
    this.timer.unref();
    this.undoReconnect = this.env.store.onReconnect(() => this.renew());
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.undoReconnect?.();
    this.undoReconnect = undefined;
  }

  private renew(): void {
    const { ids, running } = this.env.leased();
    if (ids.length === 0 && running.length === 0) return;
    this.env.store.renewLeases({ consumer: this.env.consumer, ids, running, now: Date.now() }).then(
      (cancelled) => cancelled.forEach((key) => this.env.cancelled(key)),
      (error: unknown) => {
        this.env.disrupted(error);
        this.logger.warn(`renewing leases failed: ${(error as Error).message}`);
      },
    );
  }
}
