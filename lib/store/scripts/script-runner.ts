import type { DocketKeys } from '../keys.js';
import { classifyRedisError } from '../redis-errors.js';
import type { ScriptArg, ScriptClient, ScriptDefinition } from './script.js';

/** How Redis 6.2 answers a script whose first line is `#!lua flags=…` (7.0 reads it). */
const NO_SHEBANG = /Error compiling script[\s\S]*near '#'/;

/**
 * The one way the engine runs a script: EVALSHA, and EVAL when Redis does not know the script
 * yet (after a restart or a failover); every failure is mapped by `error` (a lost connection
 * becomes `RedisUnavailableError`, a full Redis `RedisFullError`). On Redis 6.2, which knows no
 * script flags, scripts run without their `#!lua` line.
 */
export class ScriptRunner {
  /** Redis refused a `#!lua` line once: it is older than 7.0. */
  private legacy = false;

  constructor(
    private readonly client: ScriptClient,
    private readonly keys: DocketKeys,
    private readonly error: (error: unknown) => Error,
  ) {}

  async run<I, R>(script: ScriptDefinition<I, R>, input: I): Promise<R> {
    const keys = script.keys(this.keys, input);
    const args = script.args(this.keys, input);
    try {
      return script.decode(await this.send(script, keys, args), input);
    } catch (error) {
      if (this.legacy || !NO_SHEBANG.test((error as Error)?.message ?? '')) throw error;
      this.legacy = true;
      return script.decode(await this.send(script, keys, args), input);
    }
  }

  private async send(
    script: ScriptDefinition<unknown, unknown>,
    keys: string[],
    args: ScriptArg[],
  ): Promise<unknown> {
    const [text, sha] = this.legacy
      ? [script.legacyText, script.legacySha]
      : [script.text, script.sha];
    try {
      return await this.client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (classifyRedisError(error) !== 'noscript') throw this.mapped(error);
      try {
        return await this.client.eval(text, keys.length, ...keys, ...args);
      } catch (again) {
        throw this.mapped(again);
      }
    }
  }

  /** Errors as the caller sees them; a refused `#!lua` line as it is (run() retries). */
  private mapped(error: unknown): unknown {
    return NO_SHEBANG.test((error as Error)?.message ?? '') ? error : this.error(error);
  }
}
