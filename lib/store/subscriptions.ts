import type { DocketConnection } from './connection.js';

type Handler = (message: string) => void;

/**
 * Pub/sub channels multiplexed over the docket's one subscriber client. A channel is
 * subscribed while at least one handler listens to it; a handler that throws is isolated
 * (reported to `onHandlerError`), never thrown into the client.
 */
export class Subscriptions {
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly pending = new Map<string, Promise<unknown>>();
  private attached = false;
  private readonly reconnectListeners = new Set<() => void>();

  constructor(
    private readonly connection: DocketConnection,
    private readonly onHandlerError: (channel: string, error: unknown) => void,
  ) {}

  private attach(): void {
    if (this.attached) return;
    this.attached = true;
    const client = this.connection.subscriber;
    client.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) {
        try {
          handler(message);
        } catch (error) {
          this.onHandlerError(channel, error);
        }
      }
    });
    let wasReady = false;
    client.on('ready', () => {
      if (wasReady) this.missed();
      wasReady = true;
    });
  }

  /** Tell the reconnect listeners that messages may have been missed, as after a reconnect. */
  missed(): void {
    for (const listener of this.reconnectListeners) listener();
  }

  /** Whether messages can arrive now (the subscriber is connected). */
  get listening(): boolean {
    return this.attached && this.connection.subscriber.status === 'ready';
  }

  /** Call `listener` after the subscriber reconnected (messages may have been missed). */
  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /** Listen to `channel`; resolves once Redis confirmed the subscription. Returns the undo. */
  async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
    this.attach();
    let set = this.handlers.get(channel);
    const first = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    try {
      if (first) {
        const subscribing = this.connection
          .ready(this.connection.subscriber)
          .then(() => this.connection.subscriber.subscribe(channel));
        this.pending.set(channel, subscribing);
        await subscribing.finally(() => this.pending.delete(channel));
      } else {
        await this.pending.get(channel);
      }
    } catch (error) {
      await this.remove(channel, handler);
      throw this.connection.error(error, this.connection.subscriber);
    }
    return () => this.remove(channel, handler);
  }

  private async remove(channel: string, handler: Handler): Promise<void> {
    const set = this.handlers.get(channel);
    if (!set?.delete(handler) || set.size > 0) return;
    this.handlers.delete(channel);
    if (this.connection.subscriber.status === 'ready') {
      await this.connection.subscriber.unsubscribe(channel).catch(() => undefined);
    }
  }
}
