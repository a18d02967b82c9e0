import type { ProgressEvent, StateEvent } from '../interfaces/execution.interface.js';
import type { DocketConnection } from './connection.js';
import type { DocketChannels, Unsubscribe } from './docket-store.js';
import type { DocketEvent } from '../interfaces/docket-event.interface.js';
import {
  parseDocketEvents,
  parseProgressEvent,
  parseStateEvent,
  UnreadablePayloadError,
} from './event-payloads.js';
import type { DocketKeys } from './keys.js';
import { StateWatch } from './state-watch.js';
import { Subscriptions } from './subscriptions.js';

/** How the store reports what it drops (an unreadable payload) or a handler that threw. */
export type StoreWarning = (message: string) => void;

/**
 * The docket's pub/sub channels over Redis: subscriptions multiplexed on one connection (the
 * docket-wide state pattern on one of its own), payloads read into events before a handler
 * sees them.
 */
export class RedisDocketChannels implements DocketChannels {
  private readonly subscriptions: Subscriptions;
  private readonly states: StateWatch;

  constructor(
    private readonly connection: DocketConnection,
    private readonly keys: DocketKeys,
    private readonly warn: StoreWarning,
  ) {
    this.subscriptions = new Subscriptions(connection, (channel, error) =>
      warn(`a handler of ${channel} threw: ${(error as Error)?.message ?? error}`),
    );
    this.states = new StateWatch(connection, keys, this.subscriptions, warn);
  }

  get listening(): boolean {
    return this.subscriptions.listening;
  }

  onReconnect(listener: () => void): () => void {
    return this.subscriptions.onReconnect(listener);
  }

  onCancel(handler: (key: string) => void): Promise<Unsubscribe> {
    return this.subscriptions.subscribe(this.keys.cancelChannel, handler);
  }

  onWake(handler: (due: number) => void): Promise<Unsubscribe> {
    return this.subscriptions.subscribe(this.keys.wakeChannel, (text) => {
      const due = Number(text);
      if (Number.isFinite(due)) handler(due);
      else this.warn(`ignored a wake-up that is not a time: ${text.slice(0, 64)}`);
    });
  }

  /** A new lane was used (a first task of a priority): readers look at the lanes again. */
  onLane(handler: () => void): Promise<Unsubscribe> {
    return this.subscriptions.subscribe(this.keys.lanesChannel, () => handler());
  }

  onEvents(handler: (event: DocketEvent) => void): Promise<Unsubscribe> {
    return this.subscriptions.subscribe(this.keys.eventsChannel, (text) =>
      this.parsed(text, parseDocketEvents, (events) => {
        for (const event of events) handler(event);
      }),
    );
  }

  onStrike(handler: () => void): Promise<Unsubscribe> {
    return this.subscriptions.subscribe(this.keys.strikesChannel, () => handler());
  }

  async onExecution(
    key: string,
    handler: (event: StateEvent | ProgressEvent) => void,
  ): Promise<Unsubscribe> {
    // the scripts publish states only while some process listens (see StateWatch)
    const unwatch = await this.states.watch();
    let undo: Unsubscribe[];
    try {
      undo = await Promise.all([
        this.subscriptions.subscribe(this.keys.stateChannel(key), (text) =>
          this.parsed(text, parseStateEvent, handler),
        ),
        this.subscriptions.subscribe(this.keys.progressChannel(key), (text) =>
          this.parsed(text, parseProgressEvent, handler),
        ),
      ]);
    } catch (error) {
      unwatch();
      throw error;
    }
    return async () => {
      unwatch();
      await Promise.all(undo.map((stop) => stop()));
    };
  }

  async onAnyState(handler: (event: StateEvent) => void): Promise<Unsubscribe> {
    const unwatch = await this.states.watch();
    const client = this.connection.duplicate();
    client.on('pmessage', (_pattern: string, _channel: string, text: string) =>
      this.parsed(text, parseStateEvent, handler),
    );
    const pattern = `${this.keys.prefix.replace(/[*?[\]\\]/g, '\\$&')}state:*`;
    try {
      await this.connection.ready(client);
      await client.psubscribe(pattern);
    } catch (error) {
      unwatch();
      this.connection.release(client);
      throw this.connection.error(error, client);
    }
    return async () => {
      unwatch();
      this.connection.release(client);
    };
  }

  /** Hand a payload to `handler` when it reads; warn and drop it otherwise. Never throws. */
  private parsed<T>(text: string, parse: (text: string) => T, handler: (event: T) => void): void {
    let event: T;
    try {
      event = parse(text);
    } catch (error) {
      const why = error instanceof UnreadablePayloadError ? error.message : String(error);
      this.warn(
        `ignored a message that is not a docket event (${why}): ${String(text).slice(0, 64)}`,
      );
      return;
    }
    try {
      handler(event);
    } catch (error) {
      this.warn(`a handler of docket events threw: ${(error as Error)?.message ?? error}`);
    }
  }
}
