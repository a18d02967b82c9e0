import type {
  LiveChanges,
  LiveHello,
  LiveSample,
  LiveUnavailable,
} from '../../dashboard-live.interface.js';

/** The live stream, addressed relative to the page like the API. */
const URL = `${document.body.dataset.base ?? './'}api/live`;

/** Whether the page may stream: the dashboard's `live` option, and a browser that can. */
const ENABLED = document.body.dataset.live !== 'false' && typeof EventSource !== 'undefined';

/** After a refusal, the first wait before the page opens the stream again, and the longest. */
const RETRY_FIRST = 5_000;
const RETRY_MOST = 60_000;

/** What the page does with the stream. */
export interface LiveHandlers {
  /** The stream opened (true) or was lost (false): the page reads on its own meanwhile. */
  mode(live: boolean): void;
  changes(message: LiveChanges): void;
  sample(message: LiveSample): void;
  /** The server cannot read the docket (Redis is away): no change may come meanwhile. */
  unavailable(message: LiveUnavailable): void;
}

/**
 * The page's `EventSource` on `api/live`. The browser reconnects a lost connection by itself;
 * after a refusal (an HTTP error: the guard, a shutdown, `live` off) it gives up, and this
 * opens the stream again after a wait that doubles up to a minute. A stream silent for more
 * than two heartbeats is taken for dead (a proxy dropped it without a word) and opened again.
 * While the server says it cannot read the docket, the stream counts as lost until a sample
 * comes again.
 */
export class LiveStream {
  private source: EventSource | null = null;
  private open = false;
  private heartbeat = 15_000;
  private delay = RETRY_FIRST;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly handlers: LiveHandlers) {}

  /** Whether changes arrive now. */
  get live(): boolean {
    return this.open;
  }

  connect(): void {
    if (!ENABLED || this.source) return;
    clearTimeout(this.retry);
    const source = new EventSource(URL);
    this.source = source;
    const on = <T>(type: string, handle: (data: T) => void) =>
      source.addEventListener(type, (event) => {
        this.alive();
        handle(JSON.parse((event as MessageEvent<string>).data) as T);
      });
    on<LiveHello>('hello', (hello) => {
      this.heartbeat = hello.heartbeat;
      this.delay = RETRY_FIRST;
      this.setMode(true);
    });
    on<LiveChanges>('changes', (message) => this.handlers.changes(message));
    on<LiveSample>('sample', (message) => {
      this.setMode(true);
      this.handlers.sample(message);
    });
    on<LiveUnavailable>('unavailable', (message) => {
      this.setMode(false);
      this.handlers.unavailable(message);
    });
    source.addEventListener('ping', () => this.alive());
    source.addEventListener('error', () => {
      this.setMode(false);
      if (source.readyState === EventSource.CLOSED) this.reconnectLater();
    });
  }

  /** Close the stream (the page is hidden: it holds no connection meanwhile). */
  disconnect(): void {
    clearTimeout(this.retry);
    this.close();
  }

  private close(): void {
    clearTimeout(this.watchdog);
    this.source?.close();
    this.source = null;
    this.setMode(false);
  }

  private reconnectLater(): void {
    this.close();
    this.retry = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, RETRY_MOST);
  }

  private alive(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => {
      this.close();
      this.connect();
    }, this.heartbeat * 2);
  }

  private setMode(live: boolean): void {
    if (this.open === live) return;
    this.open = live;
    this.handlers.mode(live);
  }
}
