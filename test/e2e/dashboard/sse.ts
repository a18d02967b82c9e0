/** One server-sent event as a test reads it: its name (`message` unless given) and data. */
export interface SseEvent {
  type: string;
  data: string;
  id?: string;
  retry?: number;
}

interface Waiter {
  match: (event: SseEvent) => boolean;
  resolve: (event: SseEvent) => void;
}

/**
 * A client of a server-sent events stream, over `fetch` (Node has no `EventSource`): it keeps
 * every event it read, and resolves waits on the event they match, as it arrives.
 */
export class SseClient {
  readonly events: SseEvent[] = [];
  /** Resolves when the server ends the stream (or the client closes it). */
  readonly ended: Promise<void>;
  private readonly waiters = new Set<Waiter>();

  private constructor(
    readonly status: number,
    readonly headers: Headers,
    body: ReadableStream<Uint8Array> | null,
    private readonly abort: AbortController,
  ) {
    this.ended = body ? this.read(body) : Promise.resolve();
  }

  /** Open the stream at `url`; an answer that is not a stream is read as the error it is. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const abort = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: abort.signal,
    });
    return new SseClient(response.status, response.headers, response.body, abort);
  }

  /** The first event, read or to come, that `match` accepts; fails after `timeout` ms. */
  next(match: (event: SseEvent) => boolean, what: string, timeout = 10_000): Promise<SseEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`timed out after ${timeout}ms waiting for ${what}`));
      }, timeout);
      const waiter: Waiter = {
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /** The data of the events named `type`, parsed. */
  all<T = any>(type: string): T[] {
    return this.events.filter((e) => e.type === type).map((e) => JSON.parse(e.data) as T);
  }

  /** Go away, as a closed browser tab does. */
  close(): Promise<void> {
    this.abort.abort();
    return this.ended;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          this.parse(text.slice(0, end));
          text = text.slice(end + 2);
        }
      }
    } catch {
      // closed by the client
    }
  }

  private parse(block: string): void {
    const event: SseEvent = { type: 'message', data: '' };
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      fields++;
      if (name === 'event') event.type = value;
      else if (name === 'data') data.push(value);
      else if (name === 'id') event.id = value;
      else if (name === 'retry') event.retry = Number(value);
    }
    if (fields === 0) return;
    event.data = data.join('\n');
    this.events.push(event);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(event)) {
        this.waiters.delete(waiter);
        waiter.resolve(event);
      }
    }
  }
}
