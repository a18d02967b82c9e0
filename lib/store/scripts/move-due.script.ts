import { defineScript } from './script.js';

/** move-due-2.lua: move due future tasks from the queue to the stream. */
export const MOVE_DUE = defineScript<
  { now: number; limit: number },
  { moved: number; next: number }
>({
  file: 'move-due-2',
  keys: (k) => [k.queue, k.stream],
  args: (k, { now, limit }) => [now, k.prefix, limit],
  decode: (reply) => {
    const [moved, next] = reply as [number, string];
    return { moved: Number(moved), next: next === '-1' ? Infinity : Number(next) };
  },
});
