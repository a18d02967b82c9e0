import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Random bytes for default keys, drawn from the OS 4 KiB at a time instead of 16 bytes per key. */
const KEY_RANDOM = Buffer.alloc(4096);
let keyRandomAt = KEY_RANDOM.length;
/** Time and counter of the last default key: keys made in one millisecond count up from a random start. */
const keyClock = { msecs: -Infinity, seq: 0 };

/** A fresh UUIDv7 (RFC 9562: 48-bit ms time, 74 random bits), increasing within this process. */
export function newTaskKey(): string {
  if (keyRandomAt + 16 > KEY_RANDOM.length) {
    randomFillSync(KEY_RANDOM);
    keyRandomAt = 0;
  }
  const random = KEY_RANDOM.subarray(keyRandomAt, keyRandomAt + 16);
  keyRandomAt += 16;
  const now = Date.now();
  if (now > keyClock.msecs) {
    keyClock.msecs = now;
    // a random 31-bit start for the counter of this millisecond
    keyClock.seq = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else if ((keyClock.seq = (keyClock.seq + 1) | 0) === 0) {
    keyClock.msecs++; // the counter wrapped: borrow the next millisecond
  }
  return uuidv7({ random, msecs: keyClock.msecs, seq: keyClock.seq });
}
