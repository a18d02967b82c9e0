import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** The benchmark's own redis-server on a free loopback port, and a connection for stats. */
export interface BenchRedis {
  url: string;
  port: number;
  version: string;
  /** A connection of its own for FLUSHALL and INFO (its commands are accounted for). */
  stats: Redis;
  stop(): Promise<void>;
}

let server: ChildProcess | undefined;

/** Kill the server at once (for the process 'exit' handler, which cannot wait). */
export function killRedisNow(): void {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export function redisVersion(): string {
  const out = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (out.error || out.status !== 0) {
    throw new Error('redis-server not found: install it (apt-get install -y redis-server)');
  }
  return /v=(\S+)/.exec(out.stdout)?.[1] ?? out.stdout.trim();
}

export async function startRedis(): Promise<BenchRedis> {
  const version = redisVersion();
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  server = child;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}/0`;
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis(url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    const up = await probe.connect().then(
      () => true,
      () => false,
    );
    probe.disconnect();
    if (up) break;
    if (attempt >= 100) {
      killRedisNow();
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const stats = new Redis(url);
  return {
    url,
    port,
    version,
    stats,
    async stop(): Promise<void> {
      stats.disconnect();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(killRedisNow, 2_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function infoFields(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields.set(line.slice(0, colon), line.slice(colon + 1));
  }
  return fields;
}

/**
 * Commands the server has run since its stats were reset, all of them: `INFO commandstats`
 * counts the commands run inside Lua scripts too. The INFO that reads them is counted in the
 * next reading (see COMMANDS_PER_READING).
 */
export async function commandCalls(stats: Redis): Promise<number> {
  let total = 0;
  for (const [name, value] of infoFields(await stats.info('commandstats'))) {
    if (!name.startsWith('cmdstat_')) continue;
    total += Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
  }
  return total;
}

/** What one `commandCalls` adds to the count: its own INFO. */
export const COMMANDS_PER_READING = 1;

/** Bytes Redis uses for data and overhead (`used_memory`). */
export async function usedMemory(stats: Redis): Promise<number> {
  return Number(infoFields(await stats.info('memory')).get('used_memory') ?? NaN);
}

/** CPU time the server has used, user + system, in microseconds (`INFO cpu`). */
export async function redisCpuMicros(stats: Redis): Promise<number> {
  const fields = infoFields(await stats.info('cpu'));
  const seconds = Number(fields.get('used_cpu_user')) + Number(fields.get('used_cpu_sys'));
  return seconds * 1e6;
}

/** Empty the server between runs, so each run starts from the same state. */
export async function flush(stats: Redis): Promise<void> {
  await stats.flushall();
  await stats.config('RESETSTAT');
}
