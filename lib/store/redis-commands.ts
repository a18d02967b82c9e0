import type { Cluster, Redis } from 'ioredis';
import type { ScriptClient } from './scripts/script.js';

/** An argument of a command. */
export type CommandArg = string | number;

/**
 * The part of a Redis client the store uses: commands by name (lower case, so that a Cluster
 * client routes them by their key) with raw replies, scripts, pub/sub and the connection's
 * life. ioredis' `Redis` and `Cluster` and the memory:// client all satisfy it as they are.
 */
export interface RedisCommands extends ScriptClient {
  /** 'wait' before the first connect, 'ready' when commands can be sent, 'end' when closed. */
  readonly status: string;
  call(command: string, ...args: CommandArg[]): Promise<unknown>;
  /** A new client with the same settings (for blocking reads and subscriptions). */
  duplicate(): RedisCommands;
  connect(): Promise<unknown>;
  disconnect(): void;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  psubscribe(...patterns: string[]): Promise<unknown>;
  on(event: string, listener: (...args: any[]) => void): unknown;
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  /** A Cluster client's master nodes (for commands that read one node's keys, such as SCAN). */
  nodes?(role: 'master'): RedisCommands[];
}

// ioredis' clients are RedisCommands as they are (checked by the compiler, no cast).
export const ioredisFits = (client: Redis | Cluster): RedisCommands => client;
