import { randomFillSync } from 'node:crypto';

/** Random bytes for default keys, drawn from the OS 4 KiB at a time instead of 16 bytes per key. */
const KEY_RANDOM = Buffer.alloc(4096);
let keyRandomAt = KEY_RANDOM.length;
/** Time and counter of the last default key: keys made in one millisecond count up from a random start. */
const keyClock = { msecs: -Infinity, seq: 0 };

/** A fresh UUIDv7 (RFC 9562: 48-bit ms time, then counter and random bits), increasing within this process. */
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
  return formatV7(keyClock.msecs, keyClock.seq >>> 0, random);
}

/**
 * The UUIDv7 text of time `msecs`, 32-bit counter `seq` and `random` (16 bytes, of which the
 * last 6 are used): the counter's bits follow the time, so keys sort by (time, counter). Written
 * here rather than taken from the ESM-only `uuid` package, which CommonJS test runners such as
 * Jest cannot require().
 */
function formatV7(msecs: number, seq: number, random: Uint8Array): string {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(msecs, 0, 6);
  bytes[6] = 0x70 | (seq >>> 28); // version 7, counter bits 31-28
  bytes[7] = (seq >>> 20) & 0xff; // counter bits 27-20
  bytes[8] = 0x80 | ((seq >>> 14) & 0x3f); // variant 0b10, counter bits 19-14
  bytes[9] = (seq >>> 6) & 0xff; // counter bits 13-6
  bytes[10] = ((seq & 0x3f) << 2) | (random[10] & 0x03); // counter bits 5-0, 2 random bits
  bytes.set(random.subarray(11, 16), 11);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
