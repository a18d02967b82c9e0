// Helpers of the observability tests: reading /metrics, polling health endpoints, a Redis of
// a test's own that keeps its data across a restart, a TCP proxy that can stall the worker's
// blocking connection, and a logger that keeps what it is given.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoggerService, LogLevel } from '@nestjs/common';
import { freePort, redisAnswers } from '../../utils.js';

/** One sample of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parse the Prometheus text exposition format (what `/metrics` answers). */
export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

/** GET `<base>/metrics` and parse it. */
export async function scrape(base: string): Promise<Sample[]> {
  const response = await fetch(`${base}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

/** The samples named `name` whose labels include `labels`. */
export function series(samples: Sample[], name: string, labels: Record<string, string>): Sample[] {
  return samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function total(samples: Sample[], name: string, labels: Record<string, string>): number {
  return series(samples, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/** How much each of `names` grew between two scrapes, for the series matching `labels`. */
export function deltas(
  before: Sample[],
  after: Sample[],
  names: string[],
  labels: Record<string, string>,
): Record<string, number> {
  return Object.fromEntries(
    names.map((name) => [name, total(after, name, labels) - total(before, name, labels)]),
  );
}

/** An HTTP answer with its parsed JSON body. */
export interface JsonAnswer {
  status: number;
  body: any;
}

/** Call a JSON endpoint. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<JsonAnswer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Poll `path` until it answers `status` (health changes have no event to wait on); fails after
 * `timeout` ms with the last answer. Resolves with the answer and when it came.
 */
export async function untilStatus(
  base: string,
  path: string,
  status: number,
  timeout: number,
): Promise<JsonAnswer & { at: number }> {
  const deadline = Date.now() + timeout;
  let last: JsonAnswer | undefined;
  for (;;) {
    try {
      last = await call(base, 'GET', path);
      if (last.status === status) return { ...last, at: Date.now() };
    } catch (error) {
      last = { status: 0, body: String(error) };
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${path} did not answer ${status} within ${timeout}ms; last: ${last.status} ${JSON.stringify(last.body)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A redis-server of a test's own whose data survives a restart (AOF, fsync on every write). */
export class PersistentRedis {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<PersistentRedis> {
    const redis = new PersistentRedis(
      await freePort(),
      mkdtempSync(join(tmpdir(), 'docket-observability-')),
    );
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Start the server (again) on its port and wait until it answers. */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        ...['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir],
        ...['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 10_000;
    for (;;) {
      const up = await redisAnswers({ host: '127.0.0.1', port: this.port });
      if (up) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`redis-server did not start on port ${this.port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Kill the server (SIGKILL, as a crash) and wait until it is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
  }

  /** Stop the server and remove its data. */
  async destroy(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A TCP proxy in front of Redis that can stall the connections that issued XREADGROUP (the
 * worker's blocking connection): their bytes are held, in both directions, until `release()`.
 * Every other connection of the app (commands, subscriber) keeps flowing.
 */
export class StallingProxy {
  private readonly pairs = new Set<{
    client: Socket;
    server: Socket;
    reader: boolean;
    held: { to: Socket; data: Buffer }[];
  }>();
  private stalled = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<StallingProxy> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const proxy = new StallingProxy(server, (server.address() as { port: number }).port);
    server.on('connection', (client) => proxy.accept(client, targetPort));
    return proxy;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** How many connections issued XREADGROUP so far. */
  get blockingConnections(): number {
    return [...this.pairs].filter((p) => p.reader).length;
  }

  private accept(client: Socket, targetPort: number): void {
    const server = createConnection({ host: '127.0.0.1', port: targetPort });
    const pair = { client, server, reader: false, held: [] as { to: Socket; data: Buffer }[] };
    this.pairs.add(pair);
    const forward = (from: Socket, to: Socket, upstream: boolean) =>
      from.on('data', (data: Buffer) => {
        if (upstream && /xreadgroup/i.test(data.toString('latin1'))) pair.reader = true;
        if (this.stalled && pair.reader) pair.held.push({ to, data });
        else to.write(data);
      });
    forward(client, server, true);
    forward(server, client, false);
    const close = () => {
      client.destroy();
      server.destroy();
      this.pairs.delete(pair);
    };
    client.on('error', close).on('close', close);
    server.on('error', close).on('close', close);
  }

  /** Hold every byte of the blocking connections from now on. */
  stall(): void {
    this.stalled = true;
  }

  /** Deliver what was held and let the blocking connections flow again. */
  release(): void {
    this.stalled = false;
    for (const pair of this.pairs) {
      for (const { to, data } of pair.held.splice(0)) to.write(data);
    }
  }

  async close(): Promise<void> {
    this.release();
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.server.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One line given to a `CapturingLogger`. */
export interface LogLine {
  level: LogLevel;
  message: string;
  context?: string;
  stack?: string;
}

/** A Nest `LoggerService` that keeps every line (for `useLogger`). */
export class CapturingLogger implements LoggerService {
  readonly lines: LogLine[] = [];

  private add(level: LogLevel, message: unknown, params: unknown[]): void {
    const strings = params.filter((p): p is string => typeof p === 'string');
    const context = strings.length > 0 ? strings[strings.length - 1] : undefined;
    const stack = level === 'error' && strings.length > 1 ? strings[0] : undefined;
    this.lines.push({ level, message: String(message), context, stack });
  }

  log(message: unknown, ...params: unknown[]): void {
    this.add('log', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.add('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.add('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.add('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.add('verbose', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.add('fatal', message, params);
  }
}
