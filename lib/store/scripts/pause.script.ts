import { defineScript } from './script.js';

/** resume-1.lua: lift a pause and put held work back in order, at most `budget` per call. */
export const RESUME = defineScript<
  { what: string; budget: number },
  { moved: number; left: number }
>({
  file: 'resume-1',
  keys: (k) => [k.paused],
  args: (k, { what, budget }) => [k.prefix, what, budget],
  decode: (reply) => {
    const [moved, left] = (reply as number[]).map(Number);
    return { moved, left };
  },
});
