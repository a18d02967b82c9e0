import type { DocketConnection } from './connection.js';
import type { DocketKeys } from './keys.js';
import type { StoreWarning } from './docket-channels.js';
import type { Subscriptions } from './subscriptions.js';

/** How long the marker lives without a renewal, and how often a listening process renews it. */
export const STATES_TTL = 60_000;
export const STATES_RENEW_EVERY = 20_000;

/**
 * The scripts publish an execution's state changes on `state:<key>` only while `states:on`
 * exists (see lua/includes/states.lua): this keeps it there while this process listens to a
 * state channel. `watch()` makes sure it is set before the caller subscribes and reads the
 * state, so every change after that read is published: it sets it unless this process set or
 * renewed it less than STATES_RENEW_EVERY ago (so a waiter costs no round trip more while
 * others wait or waited lately). While some channel is watched it is renewed; when a
 * renewal finds it gone (it lapsed, or Redis lost it) or the subscriber reconnected, it is set
 * again and the listeners hear that messages may have been missed, so that each waiter reads
 * its state again. A reconnect also makes the next waiter set it, even if nobody listened
 * meanwhile (the server may have come back empty).
 */
export class StateWatch {
  private watchers = 0;
  private renewal: NodeJS.Timeout | undefined;
  private telling = false;
  /** When this process last set or renewed the marker (epoch ms). */
  private setAt = -Infinity;
  /** A set in flight, which watchers that come meanwhile share. */
  private setting: Promise<void> | undefined;

  constructor(
    private readonly connection: DocketConnection,
    private readonly keys: DocketKeys,
    private readonly subscriptions: Subscriptions,
    private readonly warn: StoreWarning,
  ) {
    subscriptions.onReconnect(() => {
      // The server may have restarted empty: the next waiter sets the marker again.
      this.setAt = -Infinity;
      if (this.watchers > 0 && !this.telling) void this.turnOn().then(() => this.tellMissed());
    });
  }

  /** Turn the state channels on; resolves once they are. Call the result when done. */
  async watch(): Promise<() => void> {
    this.watchers += 1;
    if (this.watchers === 1) {
      this.renewal = setInterval(() => void this.renew(), STATES_RENEW_EVERY);
      this.renewal.unref();
    }
    let done = false;
    const unwatch = (): void => {
      if (done) return;
      done = true;
      this.watchers -= 1;
      if (this.watchers === 0) {
        clearInterval(this.renewal);
        this.renewal = undefined;
      }
    };
    try {
      await this.ensureSet();
    } catch (error) {
      unwatch();
      throw this.connection.error(error);
    }
    return unwatch;
  }

  private ensureSet(): Promise<void> {
    if (Date.now() - this.setAt < STATES_RENEW_EVERY) return Promise.resolve();
    this.setting ??= this.set().finally(() => (this.setting = undefined));
    return this.setting;
  }

  private async set(): Promise<void> {
    await this.connection.commands.call('set', this.keys.statesOn, '1', 'PX', STATES_TTL);
    this.setAt = Date.now();
  }

  private async turnOn(): Promise<void> {
    try {
      await this.set();
    } catch (error) {
      this.warn(`state channels: cannot turn them on: ${(error as Error)?.message ?? error}`);
    }
  }

  private async renew(): Promise<void> {
    try {
      const renewed = await this.connection.commands.call(
        'pexpire',
        this.keys.statesOn,
        STATES_TTL,
      );
      if (Number(renewed) === 1) {
        this.setAt = Date.now();
        return;
      }
      await this.set();
      this.tellMissed();
    } catch (error) {
      this.warn(`state channels: cannot renew them: ${(error as Error)?.message ?? error}`);
    }
  }

  private tellMissed(): void {
    this.telling = true;
    try {
      this.subscriptions.missed();
    } finally {
      this.telling = false;
    }
  }
}
