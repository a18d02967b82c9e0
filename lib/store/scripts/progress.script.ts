import { defineScript } from './script.js';

/** progress-2.lua: update the progress of a running execution and publish it. */
export const PROGRESS = defineScript<
  {
    key: string;
    generation: string;
    op: 'total' | 'increment' | 'message';
    operand: string | number;
    now: number;
  },
  void
>({
  file: 'progress-2',
  keys: (k, { key }) => [k.progress(key), k.runs(key)],
  args: (k, { key, generation, op, operand, now }) => [
    ...[key, generation, op, operand, now],
    k.progressChannel(key),
  ],
  decode: () => undefined,
});
