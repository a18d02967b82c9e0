// Redis deployments for the reliability tests and the chaos run: standalone (optionally with
// AOF, TLS or a config of its own), a 3-master Cluster, and a Sentinel group. Every server runs
// on free loopback ports, in a temporary directory, as a child process that is killed when this
// process exits (also on a crash), so a failing test never leaves servers behind.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort, redisAnswers } from '../../utils.js';

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** Whether a program is on the PATH. */
export function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim() !== '';
}

/** Whether this redis-server was built with TLS (Debian's is). */
export function redisHasTls(): boolean {
  if (!hasBinary('redis-server')) return false;
  // Without TLS support the directive is unknown; with it, the missing files stop the start.
  const probe = spawnSync(
    'redis-server',
    ['--port', '0', '--tls-port', '1', '--tls-cert-file', '/nonexistent'],
    { encoding: 'utf8', timeout: 5_000 },
  );
  return /TLS/.test(`${probe.stdout}${probe.stderr}`) && !/Bad directive/i.test(probe.stdout);
}

/** A temporary directory (removed by `removeDir`). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `docket-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** `count` distinct free loopback ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/** Resolve once a server answers PING with these client options; fail after `timeout` ms. */
export async function waitForPing(options: RedisOptions, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const up = await redisAnswers(options);
    if (up) return;
    if (Date.now() > deadline) {
      throw new Error(`redis on port ${options.port} did not answer PING within ${timeout}ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One redis-server (or sentinel) process that can be stopped and started again as it was. */
export class RedisServer {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  /** How many times the server was started. */
  starts = 0;

  constructor(
    readonly port: number,
    readonly dir: string,
    /** Arguments after `redis-server` (a config file first for sentinels). */
    private readonly args: string[],
    /** Client options that reach it (for the readiness check). */
    readonly clientOptions: RedisOptions,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && !this.child.signalCode;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Start the process and wait until it answers PING. */
  async start(timeout = 15_000): Promise<void> {
    if (this.running) return;
    const child = spawn('redis-server', this.args, { stdio: 'ignore', cwd: this.dir });
    children.add(child);
    this.child = child;
    this.starts++;
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        children.delete(child);
        resolve();
      }),
    );
    const failed = this.exited.then(() => {
      throw new Error(`redis-server on port ${this.port} exited at start (see ${this.dir})`);
    });
    await Promise.race([waitForPing(this.clientOptions, timeout), failed]);
  }

  /** Stop the process (SIGKILL by default) and wait until it is gone. */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** A plain client of this server (for raw commands); `disconnect()` it. */
  client(extra: RedisOptions = {}): Redis {
    const client = new Redis({ ...this.clientOptions, ...extra });
    client.on('error', () => undefined);
    return client;
  }
}

export interface StandaloneOptions {
  /** `appendonly yes` + `appendfsync always`: data survives a kill. */
  aof?: boolean;
  /** Extra `redis-server` arguments. */
  args?: string[];
  /** Use this port (default: a free one). */
  port?: number;
  /** Client options for the readiness check (TLS, credentials). */
  clientOptions?: RedisOptions;
  /** Replace the default `--port P` (for TLS-only servers). */
  noPlainPort?: boolean;
}

/** Start one redis-server in a directory of its own. */
export async function startStandalone(options: StandaloneOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = tempDir('redis');
  const args = [
    ...(options.noPlainPort ? ['--port', '0'] : ['--port', String(port)]),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--logfile',
    join(dir, 'redis.log'),
    ...(options.aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ...(options.args ?? []),
  ];
  const server = new RedisServer(port, dir, args, {
    host: '127.0.0.1',
    port,
    ...options.clientOptions,
  });
  await server.start();
  return server;
}

/** A three-master Redis Cluster (no replicas). */
export class RedisCluster {
  constructor(
    readonly nodes: RedisServer[],
    readonly dir: string,
  ) {}

  get url(): string {
    return `redis+cluster://${this.nodes
      .slice(0, 2)
      .map((n) => `127.0.0.1:${n.port}`)
      .join(',')}`;
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
    removeDir(this.dir);
  }
}

export async function startCluster(masters = 3): Promise<RedisCluster> {
  const dir = tempDir('cluster');
  const ports = await freePorts(masters * 2);
  const nodes: RedisServer[] = [];
  try {
    for (let i = 0; i < masters; i++) {
      const port = ports[i];
      const node = new RedisServer(
        port,
        dir,
        [
          '--port',
          String(port),
          '--cluster-port',
          String(ports[masters + i]),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '3000',
          '--save',
          '',
          '--appendonly',
          'no',
          '--dir',
          dir,
          '--logfile',
          join(dir, `redis-${port}.log`),
        ],
        { host: '127.0.0.1', port },
      );
      nodes.push(node);
    }
    await Promise.all(nodes.map((n) => n.start()));
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0) {
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    }
    const deadline = Date.now() + 20_000;
    for (const node of nodes) {
      const client = node.client();
      try {
        for (;;) {
          const info = await client.cluster('INFO');
          if (/cluster_state:ok/.test(String(info))) break;
          if (Date.now() > deadline) throw new Error(`cluster_state not ok: ${String(info)}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        client.disconnect();
      }
    }
    return new RedisCluster(nodes, dir);
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    removeDir(dir);
    throw error;
  }
}

/** A master, one replica and sentinels watching them as `mymaster`. */
export class SentinelGroup {
  constructor(
    readonly master: RedisServer,
    readonly replica: RedisServer,
    readonly sentinels: RedisServer[],
    readonly dir: string,
    readonly service = 'mymaster',
  ) {}

  get url(): string {
    return `redis+sentinel://${this.sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${this.service}`;
  }

  /** The port of the master the sentinels name now. */
  async masterPort(): Promise<number> {
    const sentinel = this.sentinels[0].client();
    try {
      const [, port] = (await sentinel.call(
        'SENTINEL',
        'GET-MASTER-ADDR-BY-NAME',
        this.service,
      )) as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.master, this.replica, ...this.sentinels].map((s) => s.stop()));
    removeDir(this.dir);
  }
}

export async function startSentinelGroup(sentinelCount = 2): Promise<SentinelGroup> {
  const dir = tempDir('sentinel');
  const [masterPort, replicaPort, ...sentinelPorts] = await freePorts(2 + sentinelCount);
  const node = (port: number, extra: string[] = []) =>
    new RedisServer(
      port,
      dir,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--dbfilename',
        `dump-${port}.rdb`,
        '--logfile',
        join(dir, `redis-${port}.log`),
        ...extra,
      ],
      { host: '127.0.0.1', port },
    );
  const master = node(masterPort);
  const replica = node(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
  const sentinels = sentinelPorts.map((port) => {
    const conf = join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `logfile ${join(dir, `sentinel-${port}.log`)}`,
        `sentinel monitor mymaster 127.0.0.1 ${masterPort} 1`,
        'sentinel down-after-milliseconds mymaster 1000',
        'sentinel failover-timeout mymaster 3000',
        'sentinel parallel-syncs mymaster 1',
        '',
      ].join('\n'),
    );
    return new RedisServer(port, dir, [conf, '--sentinel'], { host: '127.0.0.1', port });
  });
  const group = new SentinelGroup(master, replica, sentinels, dir);
  try {
    await master.start();
    await replica.start();
    await Promise.all(sentinels.map((s) => s.start()));
    // Ready when the replica is in sync and every sentinel knows it (a failover needs one).
    const deadline = Date.now() + 20_000;
    for (const sentinel of sentinels) {
      const client = sentinel.client();
      try {
        for (;;) {
          const replicas = (await client.call('SENTINEL', 'REPLICAS', 'mymaster')) as string[][];
          const ok = replicas.some((fields) => {
            const f: Record<string, string> = {};
            for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i]] = fields[i + 1];
            return (
              f.port === String(replicaPort) &&
              !/s_down|disconnected/.test(f.flags ?? '') &&
              f['master-link-status'] === 'ok'
            );
          });
          if (ok) break;
          if (Date.now() > deadline) throw new Error('the sentinels did not see the replica');
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } finally {
        client.disconnect();
      }
    }
    return group;
  } catch (error) {
    await group.stop();
    throw error;
  }
}

/** A CA and a certificate for 127.0.0.1/localhost signed by it, made with openssl. */
export interface TlsFiles {
  dir: string;
  ca: string;
  cert: string;
  key: string;
}

export function makeCertificates(): TlsFiles {
  const dir = tempDir('tls');
  const run = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
  };
  run('genrsa', '-out', 'ca.key', '2048');
  run(
    'req',
    '-x509',
    '-new',
    '-nodes',
    '-key',
    'ca.key',
    '-sha256',
    '-days',
    '2',
    '-subj',
    '/CN=docket-test-ca',
    '-out',
    'ca.crt',
  );
  run('genrsa', '-out', 'server.key', '2048');
  run('req', '-new', '-key', 'server.key', '-subj', '/CN=127.0.0.1', '-out', 'server.csr');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.crt',
    '-days',
    '2',
    '-sha256',
    '-extfile',
    'ext.cnf',
  );
  return {
    dir,
    ca: join(dir, 'ca.crt'),
    cert: join(dir, 'server.crt'),
    key: join(dir, 'server.key'),
  };
}
