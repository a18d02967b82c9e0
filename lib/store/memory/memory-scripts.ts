import type { ScriptName } from '../scripts.js';
import type { MemoryServer, Reply } from './memory-server.js';

/**
 * The engine's scripts for the `memory://` backend: each does what its Lua twin in
 * `lib/redis/commands/` does (same keys, arguments and reply; the contract is documented
 * there), as one synchronous function, so it is atomic like a script on Redis.
 */
type Script = (server: MemoryServer, keys: string[], argv: string[]) => Reply;

type Call = (command: string, ...args: (string | number)[]) => Reply;

const caller =
  (server: MemoryServer): Call =>
  (command, ...args) =>
    server.call(command, ...args);

/**
 * Lua's `tonumber` of a string when it is a finite number; null where Lua gives nil (blank,
 * words, trailing junk) or an infinity or NaN.
 */
function luaNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const trimmed = text.trim();
  if (
    trimmed === '' ||
    !/^([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|[+-]?inf(inity)?|nan)$/i.test(
      trimmed,
    )
  ) {
    return null;
  }
  const value = Number(trimmed.replace(/^\+/, ''));
  // a finite number only: Lua reads 'inf' and '1e400' as infinities, which callers refuse
  return Number.isFinite(value) ? value : null;
}

const str = (reply: Reply): string | null => (typeof reply === 'string' ? reply : null);
const arr = (reply: Reply): Reply[] => (Array.isArray(reply) ? reply : []);

interface Rule {
  t: 'cooldown' | 'debounce' | 'rate' | 'conc';
  k: string;
  w?: number;
  s?: number;
  l?: number;
  p?: number;
  d?: boolean;
  m?: number;
}

// -- _common.lua ------------------------------------------------------------------------------

function scheduleRun(
  r: Call,
  prefix: string,
  key: string,
  task: string,
  args: string,
  when: string,
  attempt: string,
  now: string,
  traceparent: string | null,
  tracestate: string | null,
): [string, number] {
  const runs = `${prefix}runs:${key}`;
  const fresh = r('EXISTS', runs) === 0;
  const generation = r('HINCRBY', runs, 'generation', 1) as number;
  const fields: (string | number)[] = [
    'key',
    key,
    'task',
    task,
    'args',
    args,
    'when',
    when,
    'attempt',
    attempt,
    'generation',
    generation,
  ];
  if (traceparent) {
    fields.push('traceparent', traceparent);
    if (tracestate) fields.push('tracestate', tracestate);
  }
  if (!fresh) {
    r(
      'HDEL',
      runs,
      'worker',
      'startedAt',
      'completedAt',
      'error',
      'cancel',
      'streamId',
      'waiting',
      'reserved',
      'reservedMax',
      'traceparent',
      'tracestate',
    );
    r('PERSIST', runs);
  }
  if (traceparent) r('HSET', runs, 'traceparent', traceparent, 'tracestate', tracestate ?? '');
  let state: string;
  if (Number(when) <= Number(now)) {
    state = 'queued';
    const id = r('XADD', `${prefix}stream`, '*', ...fields) as string;
    r('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when);
    r('HSET', runs, 'attempt', attempt, 'streamId', id);
  } else {
    state = 'scheduled';
    const queue = `${prefix}queue`;
    r('HSET', `${prefix}parked:${key}`, ...fields);
    r('ZADD', queue, when, key);
    r('HSET', runs, 'state', state, 'task', task, 'args', args, 'when', when, 'attempt', attempt);
    const first = arr(r('ZRANGE', queue, 0, 0));
    if (first[0] === key) r('PUBLISH', `${prefix}wake`, when);
  }
  publishState(r, prefix, key, { state, when: Number(when) });
  return [state, generation];
}

/** Announce a key's new state on <prefix>state:<key> (the fields after type and key). */
function publishState(r: Call, prefix: string, key: string, fields: Record<string, unknown>): void {
  r('PUBLISH', `${prefix}state:${key}`, JSON.stringify({ type: 'state', key, ...fields }));
}

function leaveLine(r: Call, prefix: string, line: string, key: string): void {
  r('LREM', line, 0, key);
  if (r('EXISTS', line) === 0) r('SREM', `${prefix}lines`, line);
}

function releaseSlot(
  r: Call,
  prefix: string,
  slots: string,
  max: number,
  key: string,
  now: string,
): void {
  r('ZREM', slots, key);
  const waiters = `${slots}:waiters`;
  while ((r('ZCARD', slots) as number) < max) {
    const next = str(r('LPOP', waiters));
    if (next === null) break;
    if (r('EXISTS', waiters) === 0) r('SREM', `${prefix}lines`, waiters);
    const runs = `${prefix}runs:${next}`;
    const run = arr(r('HMGET', runs, 'state', 'waiting', 'task', 'args', 'when', 'attempt'));
    if (run[0] === 'queued' && run[1] === waiters) {
      r('ZADD', slots, now, next);
      scheduleRun(
        r,
        prefix,
        next,
        str(run[2]) ?? '',
        str(run[3]) ?? '',
        str(run[4]) ?? now,
        str(run[5]) ?? '1',
        now,
        '',
        '',
      );
      r('HSET', runs, 'reserved', slots, 'reservedMax', max);
    }
  }
}

// -- the scripts --------------------------------------------------------------------------------

/** What schedule-4 does for one key (`schedule_key` of _common.lua); returns its reply. */
function scheduleKey(
  r: Call,
  prefix: string,
  group: string,
  key: string,
  task: string,
  args: string,
  when: string,
  attempt: string,
  now: string,
  mode: string,
  traceparent: string,
  tracestate: string,
): string[] {
  const runs = `${prefix}runs:${key}`;
  const stream = `${prefix}stream`;
  const run = arr(
    r(
      'HMGET',
      runs,
      'state',
      'streamId',
      'waiting',
      'when',
      'generation',
      'task',
      'args',
      'attempt',
    ),
  ).map(str);
  const state = run[0];
  if (mode === 'add' && (state === 'scheduled' || state === 'queued' || state === 'running')) {
    return [
      'already_scheduled',
      state,
      run[3] ?? when,
      run[4] ?? '0',
      run[5] ?? task,
      run[6] ?? args,
      run[7] ?? '1',
    ];
  }
  if (state) {
    if (run[1]) {
      r('XACK', stream, group, run[1]);
      r('XDEL', stream, run[1]);
    }
    if (run[2]) leaveLine(r, prefix, run[2], key);
    r('ZREM', `${prefix}queue`, key);
    r('DEL', `${prefix}parked:${key}`, `${prefix}results:${key}`, `${prefix}progress:${key}`);
  }
  const [newState, generation] = scheduleRun(
    r,
    prefix,
    key,
    task,
    args,
    when,
    attempt,
    now,
    traceparent,
    tracestate,
  );
  return ['scheduled', newState, when, String(generation), task, args, attempt];
}

const schedule: Script = (server, _KEYS, ARGV) =>
  scheduleKey(caller(server), ARGV[8], ARGV[7], ...(ARGV.slice(0, 7) as Seven), ARGV[9], ARGV[10]);

const scheduleMany: Script = (server, _KEYS, ARGV) => {
  const r = caller(server);
  const [now, group, prefix] = ARGV;
  const out: string[] = [];
  for (let i = 3; i < ARGV.length; i += 8) {
    const [key, task, args, when, attempt, mode, traceparent, tracestate] = ARGV.slice(i, i + 8);
    out.push(
      ...scheduleKey(
        r,
        prefix,
        group,
        key,
        task,
        args,
        when,
        attempt,
        now,
        mode,
        traceparent,
        tracestate,
      ),
    );
  }
  return out;
};

/** key, task, args, when, attempt, now, mode: schedule-4's first seven arguments. */
type Seven = [string, string, string, string, string, string, string];

const moveDue: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [now, prefix, limit] = ARGV;
  const due = arr(r('ZRANGEBYSCORE', KEYS[0], '-inf', now, 'LIMIT', 0, limit)) as string[];
  for (const key of due) {
    const parked = `${prefix}parked:${key}`;
    const fields = arr(r('HGETALL', parked)) as string[];
    if (fields.length > 0) {
      const id = r('XADD', KEYS[1], '*', ...fields) as string;
      const runs = `${prefix}runs:${key}`;
      r('HSET', runs, 'state', 'queued', 'streamId', id);
      r('DEL', parked);
      const when = str(r('HGET', runs, 'when'));
      publishState(r, prefix, key, { state: 'queued', when: Number(when) });
    }
    r('ZREM', KEYS[0], key);
  }
  const nextDue = arr(r('ZRANGE', KEYS[0], 0, 0, 'WITHSCORES'));
  return [due.length, str(nextDue[1]) ?? '-1'];
};

const claim: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [prefix, group, worker, now] = ARGV;
  const ttl = Number(ARGV[4]);
  const nowN = Number(now);
  const stream = KEYS[0];

  const ack = (id: string) => {
    r('XACK', stream, group, id);
    r('XDEL', stream, id);
  };
  const releaseAll = (rules: Rule[], key: string) => {
    for (const rule of rules) {
      if (rule.t === 'conc' && r('ZSCORE', rule.k, key) !== null) {
        releaseSlot(r, prefix, rule.k, rule.m!, key, now);
      }
    }
  };
  const cancel = (runs: string, key: string) => {
    r('HSET', runs, 'state', 'cancelled', 'completedAt', now);
    r('HDEL', runs, 'streamId', 'cancel', 'waiting');
    if (ttl > 0) r('PEXPIRE', runs, ttl);
    else r('DEL', runs);
    publishState(r, prefix, key, { state: 'cancelled', completedAt: nowN });
  };
  type Verdict = ['drop'] | ['defer', number | string] | ['wait', string] | null;
  const admit = (rules: Rule[], key: string): Verdict => {
    for (const rule of rules) {
      if (rule.t === 'cooldown') {
        const holder = str(r('GET', rule.k));
        if (holder === null) r('SET', rule.k, key, 'PX', rule.w!);
        else if (holder !== key) return ['drop'];
      } else if (rule.t === 'debounce') {
        const settle = rule.s!;
        const winner = `${rule.k}:winner`;
        const last = `${rule.k}:last`;
        const current = str(r('GET', winner));
        if (current === null) {
          r('SET', winner, key, 'PX', settle * 10);
          r('SET', last, now, 'PX', settle * 10);
          return ['defer', nowN + settle];
        } else if (current === key) {
          const seen = Number(str(r('GET', last)) ?? '0');
          if (nowN - seen < settle) {
            r('PEXPIRE', winner, settle * 10);
            return ['defer', seen + settle];
          }
          r('DEL', winner, last);
        } else {
          r('SET', last, now, 'PX', settle * 10);
          r('PEXPIRE', winner, settle * 10);
          return ['drop'];
        }
      } else if (rule.t === 'rate') {
        r('ZREMRANGEBYSCORE', rule.k, '-inf', nowN - rule.p!);
        if ((r('ZCARD', rule.k) as number) >= rule.l!) {
          if (rule.d) return ['drop'];
          const oldest = arr(r('ZRANGE', rule.k, 0, 0, 'WITHSCORES'));
          return ['defer', Number(oldest[1]) + rule.p!];
        }
      } else if (rule.t === 'conc') {
        r('ZREMRANGEBYSCORE', rule.k, '-inf', nowN - rule.s!);
        if (r('ZSCORE', rule.k, key) === null && (r('ZCARD', rule.k) as number) >= rule.m!) {
          return ['wait', `${rule.k}:waiters`];
        }
      }
    }
    for (const rule of rules) {
      if (rule.t === 'rate') {
        r('ZADD', rule.k, now, `${key}:${now}`);
        r('PEXPIRE', rule.k, rule.p!);
      } else if (rule.t === 'conc') {
        r('ZADD', rule.k, now, key);
        r('PEXPIRE', rule.k, rule.s! * 4);
      }
    }
    return null;
  };

  const out: string[] = [];
  for (let i = 5; i < ARGV.length; i += 4) {
    const [key, generation, id, admission] = ARGV.slice(i, i + 4);
    const rules = admission !== '' ? (JSON.parse(admission) as Rule[]) : [];
    const runs = `${prefix}runs:${key}`;
    let current = arr(
      r('HMGET', runs, 'generation', 'state', 'cancel', 'task', 'args', 'attempt'),
    ).map(str);
    let ahead: string | null = null;
    if (generation === '0' && current[0] === null) {
      // a message from a producer that writes only the stream: it gets its runs hash now
      const entry = arr(r('XRANGE', stream, id, id))[0];
      const f: Record<string, string> = {};
      if (Array.isArray(entry)) {
        const fields = arr(entry[1]) as string[];
        for (let j = 0; j < fields.length; j += 2) f[fields[j]] = fields[j + 1];
      }
      // a `when` that is not a finite number counts as now
      const due = luaNumber(f.when);
      r('HSET', runs, 'generation', '0', 'state', 'queued', 'task', f.task ?? '');
      r('HSET', runs, 'args', f.args ?? '[]', 'when', due !== null ? f.when : now);
      r('HSET', runs, 'attempt', f.attempt ?? '1');
      current = ['0', 'queued', null, f.task ?? '', f.args ?? '[]', f.attempt ?? '1'];
      if (due !== null && due > nowN) ahead = f.when;
    }
    const state = current[1];
    if (
      current[0] !== generation ||
      state === 'completed' ||
      state === 'failed' ||
      state === 'cancelled'
    ) {
      ack(id);
      releaseAll(rules, key);
      out.push('superseded');
    } else if (current[2] === '1') {
      ack(id);
      releaseAll(rules, key);
      cancel(runs, key);
      out.push('cancelled');
    } else {
      // a foreign producer's future task waits in the queue for its time, as a rule would defer it
      const verdict: Verdict = ahead !== null ? ['defer', ahead] : admit(rules, key);
      if (verdict?.[0] === 'drop') {
        ack(id);
        cancel(runs, key);
        out.push('cancelled');
      } else if (verdict?.[0] === 'defer') {
        ack(id);
        scheduleRun(
          r,
          prefix,
          key,
          current[3] ?? '',
          current[4] ?? '',
          String(verdict[1]),
          current[5] ?? '1',
          now,
          '',
          '',
        );
        out.push('deferred');
      } else if (verdict?.[0] === 'wait') {
        ack(id);
        r('RPUSH', verdict[1], key);
        r('SADD', `${prefix}lines`, verdict[1]);
        r('HSET', runs, 'waiting', verdict[1]);
        r('HDEL', runs, 'streamId');
        out.push('waiting');
      } else {
        // not acknowledged: the message stays pending while it runs, for redelivery
        r('HSET', runs, 'state', 'running', 'worker', worker, 'startedAt', now);
        r('HDEL', runs, 'streamId', 'reserved', 'reservedMax');
        r('DEL', `${prefix}progress:${key}`);
        publishState(r, prefix, key, { state: 'running', worker, startedAt: nowN });
        out.push('run');
      }
    }
  }
  return out;
};

const finish: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [prefix, group, now] = ARGV;
  const ttl = Number(ARGV[3]);
  const deadTtl = Number(ARGV[4]);
  const out: string[] = [];
  for (let i = 7; i < ARGV.length; i += 13) {
    const [key, generation, id] = ARGV.slice(i, i + 3);
    let outcome = ARGV[i + 3];
    const [result, err, retryWhen, attempt, task, args, admission, nextWhen, nextArgs] = ARGV.slice(
      i + 4,
      i + 13,
    );
    if (id !== '') {
      r('XACK', KEYS[0], group, id);
      r('XDEL', KEYS[0], id);
    }
    if (admission !== '') {
      for (const rule of JSON.parse(admission) as Rule[]) {
        if (rule.t === 'conc') releaseSlot(r, prefix, rule.k, rule.m!, key, now);
      }
    }
    if (outcome === 'dead') {
      r(
        'XADD',
        KEYS[1],
        'MINID',
        '~',
        Number(now) - deadTtl,
        '*',
        'key',
        key,
        'task',
        task,
        'args',
        args,
        'error',
        err,
        'attempt',
        attempt,
        'deadAt',
        now,
      );
      outcome = 'failed';
    }
    const runs = `${prefix}runs:${key}`;
    const current = key !== '' && generation !== '' ? str(r('HGET', runs, 'generation')) : null;
    if (current === null || current !== generation) {
      out.push('superseded');
    } else if (outcome === 'retry') {
      const trace = arr(r('HMGET', runs, 'traceparent', 'tracestate')).map(str);
      scheduleRun(r, prefix, key, task, args, retryWhen, attempt, now, trace[0], trace[1]);
      out.push('ok');
    } else {
      const progress = `${prefix}progress:${key}`;
      if (ttl > 0) {
        r('HSET', runs, 'state', outcome, 'completedAt', now);
        if (err !== '') r('HSET', runs, 'error', err);
        r('HDEL', runs, 'cancel');
        r('PEXPIRE', runs, ttl);
        r('PEXPIRE', progress, ttl);
        if (result !== '') r('SET', `${prefix}results:${key}`, result, 'PX', ttl);
      } else {
        r('DEL', runs, progress);
      }
      const event: Record<string, unknown> = {
        state: outcome,
        completedAt: Number(now),
      };
      if (err !== '') event.error = err;
      publishState(r, prefix, key, event);
      if (nextWhen !== '' && outcome !== 'cancelled') {
        const trace = arr(r('HMGET', runs, 'traceparent', 'tracestate')).map(str);
        scheduleRun(
          r,
          prefix,
          key,
          task,
          nextArgs !== '' ? nextArgs : args,
          nextWhen,
          '1',
          now,
          trace[0],
          trace[1],
        );
      }
      out.push('ok');
    }
  }
  let read: Reply = [];
  const want = Number(ARGV[6]) || 0;
  if (ARGV[5] !== '' && want > 0) {
    try {
      const reply = r(
        'XREADGROUP',
        'GROUP',
        group,
        ARGV[5],
        'COUNT',
        want,
        'STREAMS',
        KEYS[0],
        '>',
      );
      if (Array.isArray(reply) && Array.isArray(reply[0])) read = reply[0][1];
    } catch {
      // no group: nothing is read along, as with redis.pcall
    }
  }
  return [out, read];
};

const cancel: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [key, group, now] = ARGV;
  const ttl = Number(ARGV[3]);
  const prefix = ARGV[4];
  const runs = KEYS[3];
  const found = arr(r('HMGET', runs, 'state', 'task')).map(str);
  const state = found[0];
  const task = found[1] ?? '';
  if (state === null) return ['missing', ''];
  if (state === 'running') {
    r('HSET', runs, 'cancel', '1');
    r('PUBLISH', `${prefix}cancel`, key);
    return [state, task];
  }
  if (state !== 'scheduled' && state !== 'queued') return [state, task];
  const run = arr(r('HMGET', runs, 'streamId', 'waiting', 'reserved', 'reservedMax')).map(str);
  if (run[0]) {
    r('XACK', KEYS[0], group, run[0]);
    r('XDEL', KEYS[0], run[0]);
  }
  if (run[1]) leaveLine(r, prefix, run[1], key);
  if (run[2]) releaseSlot(r, prefix, run[2], Number(run[3]), key, now);
  r('ZREM', KEYS[1], key);
  r('DEL', KEYS[2], `${prefix}progress:${key}`);
  if (ttl > 0) {
    r('HSET', runs, 'state', 'cancelled', 'completedAt', now);
    r('HDEL', runs, 'streamId', 'waiting', 'reserved', 'reservedMax');
    r('PEXPIRE', runs, ttl);
  } else {
    r('DEL', runs);
  }
  publishState(r, prefix, key, { state: 'cancelled', completedAt: Number(now) });
  return [state, task];
};

const heartbeat: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [worker] = ARGV;
  const now = Number(ARGV[1]);
  const window = Number(ARGV[2]);
  const prefix = ARGV[3];
  const lifetime = Number(ARGV[4]);
  r('ZADD', KEYS[0], now, worker);
  r('ZREMRANGEBYSCORE', KEYS[0], '-inf', now - window);
  if (ARGV.length > 5) {
    r('DEL', KEYS[1]);
    for (const task of ARGV.slice(5)) {
      r('SADD', KEYS[1], task);
      const taskWorkers = `${prefix}task-workers:${task}`;
      r('ZADD', taskWorkers, now, worker);
      r('ZREMRANGEBYSCORE', taskWorkers, '-inf', now - lifetime);
      r('PEXPIRE', taskWorkers, lifetime);
    }
    r('PEXPIRE', KEYS[1], lifetime);
  }
  return 1;
};

const unregister: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  for (const task of arr(r('SMEMBERS', KEYS[1])) as string[]) {
    r('ZREM', `${ARGV[1]}task-workers:${task}`, ARGV[0]);
  }
  r('ZREM', KEYS[0], ARGV[0]);
  r('DEL', KEYS[1]);
  return 1;
};

const clear: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [prefix, group, now] = ARGV;
  const ttl = Number(ARGV[3]);
  let removed = 0;
  const cancelKey = (key: string) => {
    const runs = `${prefix}runs:${key}`;
    r('DEL', `${prefix}progress:${key}`);
    if (ttl > 0) {
      r('HSET', runs, 'state', 'cancelled', 'completedAt', now);
      r('HDEL', runs, 'streamId', 'cancel', 'waiting', 'reserved', 'reservedMax');
      r('PEXPIRE', runs, ttl);
    } else {
      r('DEL', runs);
    }
    publishState(r, prefix, key, { state: 'cancelled', completedAt: Number(now) });
    removed++;
  };
  for (const key of arr(r('ZRANGE', KEYS[1], 0, -1)) as string[]) {
    r('DEL', `${prefix}parked:${key}`);
    cancelKey(key);
  }
  r('DEL', KEYS[1]);
  for (const line of arr(r('SMEMBERS', `${prefix}lines`)) as string[]) {
    for (const key of arr(r('LRANGE', line, 0, -1)) as string[]) {
      if (r('HGET', `${prefix}runs:${key}`, 'waiting') === line) cancelKey(key);
    }
    r('DEL', line);
  }
  r('DEL', `${prefix}lines`);
  for (const entry of arr(r('XRANGE', KEYS[0], '-', '+'))) {
    const [id, fields] = entry as [string, string[]];
    let key: string | undefined;
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === 'key') key = fields[i + 1];
    const state = key !== undefined ? str(r('HGET', `${prefix}runs:${key}`, 'state')) : null;
    if (state !== 'running') {
      r('XACK', KEYS[0], group, id);
      r('XDEL', KEYS[0], id);
      if (state === 'queued') cancelKey(key!);
    }
  }
  return removed;
};

const progress: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const run = arr(r('HMGET', KEYS[1], 'generation', 'state'));
  if (run[0] !== ARGV[1] || run[1] !== 'running') return [];
  const [, , op, operand, now, channel] = ARGV;
  if (op === 'total') r('HSET', KEYS[0], 'total', operand);
  else if (op === 'increment') r('HINCRBY', KEYS[0], 'current', operand);
  else if (operand === '') r('HDEL', KEYS[0], 'message');
  else r('HSET', KEYS[0], 'message', operand);
  r('HSET', KEYS[0], 'updatedAt', now);
  const p = arr(r('HMGET', KEYS[0], 'current', 'total', 'message', 'updatedAt')).map(str);
  const event: Record<string, unknown> = {
    type: 'progress',
    key: ARGV[0],
    current: Number(p[0] ?? '0'),
    total: Number(p[1] ?? '100'),
    updatedAt: Number(p[3]),
  };
  if (p[2] !== null) event.message = p[2];
  r('PUBLISH', channel, JSON.stringify(event));
  return [p[0] ?? '0', p[1] ?? '100', p[2] ?? '', p[3]];
};

const strike: Script = (server, KEYS, ARGV) => {
  const r = caller(server);
  const [op, task, parameter, operator, value, channel] = ARGV;
  const id = r(
    'XADD',
    KEYS[0],
    '*',
    'op',
    op,
    'task',
    task,
    'parameter',
    parameter,
    'operator',
    operator,
    'value',
    value,
  ) as string;
  r('PUBLISH', channel, id);
  return id;
};

export const MEMORY_SCRIPTS: Record<ScriptName, Script> = {
  schedule,
  scheduleMany,
  moveDue,
  claim,
  finish,
  cancel,
  heartbeat,
  unregister,
  clear,
  progress,
  strike,
};
