import { Inject, Injectable } from '@nestjs/common';
import { DOCKET_STORE } from '../docket.tokens.js';
import { decodeArgs } from '../execution/codec.js';
import type { DeadLetter } from '../interfaces/snapshot.interface.js';
import type { DocketStore } from '../store/docket-store.js';
import { decodeOrRaw } from './docket-inspector.js';

/** The dead letters of a docket: list, retry, purge. */
@Injectable()
export class DeadLetters {
  constructor(@Inject(DOCKET_STORE) private readonly store: DocketStore) {}

  /** Messages that could not run and executions that failed their last attempt. */
  async list(): Promise<DeadLetter[]> {
    return (await this.store.deadLetters()).map((letter) => ({
      key: letter.key,
      taskName: letter.taskName,
      args: decodeOrRaw(letter.args),
      error: letter.error,
      attempt: letter.attempt,
      deadAt: new Date(letter.deadAt),
    }));
  }

  /**
   * Schedule dead letters again, now, with their key and arguments; returns how many were
   * scheduled. A letter whose arguments cannot be decoded stays, and so does one whose key is
   * live again.
   */
  async retry(target: string | { all: true }): Promise<number> {
    const letters = await this.store.deadLetters();
    const ids = letters
      .filter((letter) => typeof target !== 'string' || letter.key === target)
      .filter((letter) => letter.key && letter.taskName && decodable(letter.args))
      .map((letter) => letter.id);
    return (await this.store.retryDeadLetters(ids, Date.now())).length;
  }

  /** Delete every dead letter; returns how many there were. */
  purge(): Promise<number> {
    return this.store.purgeDeadLetters();
  }
}

function decodable(text: string): boolean {
  try {
    decodeArgs(text);
    return true;
  } catch {
    return false;
  }
}
