import { defineScript } from './script.js';

/** move-due-3.lua: move due future tasks from the queue to the stream. */
export const MOVE_DUE = defineScript<
  { now: number; limit: number; executionTtl: number; deadLetterTtl: number },
  { moved: number; next: number }
>({
  file: 'move-due-3',
  keys: (k) => [k.queue, k.stream, k.dead],
  args: (k, { now, limit, executionTtl, deadLetterTtl }) => [
    ...[now, k.prefix, limit],
    ...[deadLetterTtl, executionTtl],
  ],
  decode: (reply) => {
    const [moved, next] = reply as [number, number];
    return { moved: Number(moved), next: Number(next) < 0 ? Infinity : Number(next) };
  },
});
