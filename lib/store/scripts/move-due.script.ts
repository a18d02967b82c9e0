import { defineScript } from './script.js';

/** move-due-3.lua: move due future tasks from the queue to the stream. */
export const MOVE_DUE = defineScript<
  { now: number; limit: number; executionTtl: number; deadLetterTtl: number; releases?: boolean },
  { moved: number; next: number; releasing: boolean }
>({
  file: 'move-due-3',
  keys: (k) => [k.queue, k.stream, k.dead],
  args: (k, { now, limit, executionTtl, deadLetterTtl, releases }) => [
    ...[now, k.prefix, limit],
    ...[deadLetterTtl, executionTtl, releases === false ? '0' : '1'],
  ],
  decode: (reply) => {
    const [moved, next, releasing] = reply as [number, number, number | undefined];
    return {
      moved: Number(moved),
      next: Number(next) < 0 ? Infinity : Number(next),
      releasing: Number(releasing) === 1,
    };
  },
});
