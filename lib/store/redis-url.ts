import type { ClusterNode, ClusterOptions, RedisOptions } from 'ioredis';
import { DocketConfigurationError } from '../errors/docket-configuration.error.js';

/** Where and how to connect, as read from a docket URL. */
export type RedisTarget =
  | { kind: 'standalone'; options: RedisOptions }
  | { kind: 'sentinel'; options: RedisOptions }
  | { kind: 'cluster'; nodes: ClusterNode[]; options: ClusterOptions }
  | { kind: 'memory'; id: string };

const SCHEMES =
  'redis://, rediss://, redis+sentinel://host:port,…/<service>[/<db>], redis+cluster://host:port,… or memory://';

/** Split `scheme://[userinfo@]rest` at the last "@", so a password may hold "@" or "/". */
function splitUserinfo(url: string): { head: string; userinfo?: string; rest: string } {
  const start = url.indexOf('://');
  if (start < 0) return { head: '', rest: url };
  const body = url.slice(start + 3);
  const at = body.lastIndexOf('@');
  if (at < 0) return { head: url.slice(0, start + 3), rest: body };
  return { head: url.slice(0, start + 3), userinfo: body.slice(0, at), rest: body.slice(at + 1) };
}

/** Query parameters whose value is a secret. */
const SECRET_PARAMETER = /^(pass(word)?|secret|token|auth|key)$/i;

/**
 * The URL with its password replaced, for messages and logs, whatever its shape: a userinfo
 * part (also without a scheme, or before a missing host) and secret query parameters
 * (`?password=…`) are masked.
 */
export function redactUrl(url: string): string {
  if (typeof url !== 'string') return String(url);
  const query = url.indexOf('?');
  const base = query < 0 ? url : url.slice(0, query);
  const search = query < 0 ? '' : url.slice(query);
  const masked = search.replace(/([?&;])([^=&;]*)=([^&;#]*)/g, (whole, sep, name, value) =>
    SECRET_PARAMETER.test(decodeURIComponent(name)) && value !== '' ? `${sep}${name}=***` : whole,
  );
  const { head, userinfo, rest } = splitUserinfo(base);
  if (userinfo === undefined) {
    // no scheme: `user:pass@host` is still a userinfo
    const at = base.lastIndexOf('@');
    if (base.includes('://') || at < 0) return base + masked;
    const colon = base.indexOf(':');
    const user = colon >= 0 && colon < at ? base.slice(0, colon) : '';
    return `${user}:***@${base.slice(at + 1)}${masked}`;
  }
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? '' : userinfo.slice(0, colon);
  return `${head}${user}:***@${rest}${masked}`;
}

function fail(url: string, problem: string): never {
  throw new DocketConfigurationError(
    `DocketModule: invalid url "${redactUrl(url)}": ${problem}. Use ${SCHEMES}.`,
  );
}

function parseHosts(
  url: string,
  list: string,
  defaultPort: number,
): { host: string; port: number }[] {
  const hosts = list
    .split(',')
    .filter((part) => part.length > 0)
    .map((part) => {
      const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(part);
      if (!m) fail(url, `"${part}" is not host:port`);
      const port = m[2] === undefined ? defaultPort : Number(m[2]);
      if (!Number.isInteger(port) || port < 1 || port > 65_535) fail(url, `bad port in "${part}"`);
      return { host: m[1].replace(/^\[|\]$/g, ''), port };
    });
  if (hosts.length === 0) fail(url, 'no host given');
  return hosts;
}

function parseDb(url: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const db = Number(text);
  if (!Number.isInteger(db) || db < 0) fail(url, `database "${text}" is not a number`);
  return db;
}

/** Parse a docket URL into connection options; throws a configuration error naming the problem. */
export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) fail(url, 'it has no scheme');
  const split = splitUserinfo(url);
  const rest = split.userinfo === undefined ? split.rest : `${split.userinfo}@${split.rest}`;
  const auth = split.userinfo ?? '';
  const afterAuth = split.rest;
  const [userPart, ...passParts] = auth.split(':');
  const username =
    auth && passParts.length > 0 ? decodeURIComponent(userPart) || undefined : undefined;
  const password = auth
    ? decodeURIComponent(passParts.length > 0 ? passParts.join(':') : userPart) || undefined
    : undefined;
  const [hostPart, ...pathParts] = afterAuth.split('?')[0].split('/');

  switch (scheme) {
    case 'redis':
    case 'rediss': {
      const [host] = parseHosts(url, hostPart || 'localhost', 6379);
      const options: RedisOptions = {
        host: host.host,
        port: host.port,
        username,
        password,
        db: parseDb(url, pathParts[0]) ?? 0,
      };
      if (scheme === 'rediss') options.tls = {};
      return { kind: 'standalone', options };
    }
    case 'redis+sentinel':
    case 'rediss+sentinel': {
      const sentinels = parseHosts(url, hostPart, 26379);
      const service = pathParts[0];
      if (!service) fail(url, 'the sentinel service name is missing (…/<service>[/<db>])');
      const options: RedisOptions = {
        sentinels,
        name: decodeURIComponent(service),
        // follow a failover at once instead of writing to the old master until it steps down
        failoverDetector: true,
        username,
        password,
        db: parseDb(url, pathParts[1]) ?? 0,
      };
      if (scheme === 'rediss+sentinel') {
        options.tls = {};
        options.enableTLSForSentinelMode = true;
      }
      return { kind: 'sentinel', options };
    }
    case 'redis+cluster':
    case 'rediss+cluster': {
      const nodes = parseHosts(url, hostPart, 6379);
      if (pathParts.some((p) => p !== '' && p !== '0'))
        fail(url, 'Redis Cluster has only database 0');
      const redisOptions: RedisOptions = { username, password };
      if (scheme === 'rediss+cluster') redisOptions.tls = {};
      return { kind: 'cluster', nodes, options: { redisOptions } };
    }
    case 'memory':
      return { kind: 'memory', id: rest || 'default' };
    default:
      fail(url, `unknown scheme "${scheme}://"`);
  }
}
