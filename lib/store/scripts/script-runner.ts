import type { DocketKeys } from '../keys.js';
import { classifyRedisError } from '../redis-errors.js';
import type { ScriptClient, ScriptDefinition } from './script.js';

/**
 * The one way the engine runs a script: EVALSHA, and EVAL when Redis does not know the script
 * yet (after a restart or a failover); every failure is mapped by `error` (a lost connection
 * becomes `RedisUnavailableError`, a full Redis `RedisFullError`).
 */
export class ScriptRunner {
  constructor(
    private readonly client: ScriptClient,
    private readonly keys: DocketKeys,
    private readonly error: (error: unknown) => Error,
  ) {}

  async run<I, R>(script: ScriptDefinition<I, R>, input: I): Promise<R> {
    const keys = script.keys(this.keys, input);
    const args = script.args(this.keys, input);
    let reply: unknown;
    try {
      reply = await this.client.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (classifyRedisError(error) !== 'noscript') throw this.error(error);
      try {
        reply = await this.client.eval(script.text, keys.length, ...keys, ...args);
      } catch (again) {
        throw this.error(again);
      }
    }
    return script.decode(reply, input);
  }
}
