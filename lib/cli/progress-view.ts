import cliProgress from 'cli-progress';
import type { ProgressEvent } from '../public-api.js';
import { color } from './format.js';

const BAR = {
  barsize: 30,
  barCompleteString: '█'.repeat(30),
  barIncompleteString: '░'.repeat(30),
  barGlue: '',
};

/** The bar as one line of text: `[██████░░░░] 60% 3/5 message`. */
export function progressLine(p: {
  current: number;
  total: number;
  message: string | null;
}): string {
  const ratio = p.total > 0 ? Math.min(1, Math.max(0, p.current / p.total)) : 0;
  const bar = cliProgress.Format.BarFormat(ratio, BAR);
  const text = `${bar} ${Math.round(ratio * 100)}% ${p.current}/${p.total}`;
  return p.message ? `${text} ${p.message}` : text;
}

/**
 * What `docket watch` shows: lines for changes of state and a progress bar. On a terminal the
 * bar redraws in place (cli-progress) under the lines; elsewhere each change of progress is a
 * line of its own, so that a log or a pipe keeps the history.
 */
export class ProgressView {
  private multibar?: cliProgress.MultiBar;
  private bar?: cliProgress.SingleBar;
  private lastLine = '';

  constructor(private readonly live: boolean) {}

  /** Print a line above the bar. */
  line(text: string): void {
    if (!this.multibar) {
      console.log(text);
      return;
    }
    this.multibar.log(`${text}\n`);
    this.multibar.update();
  }

  progress(event: ProgressEvent): void {
    if (event.current === null) return;
    // counting without a total: out of 100
    const p = { current: event.current, total: event.total ?? 100, message: event.message };
    if (!this.live) {
      const line = progressLine(p);
      if (line !== this.lastLine) console.log(line);
      this.lastLine = line;
      return;
    }
    const payload = { message: p.message ?? '' };
    if (!this.bar) {
      this.multibar = new cliProgress.MultiBar({
        format: `${color.cyan('{bar}')} {percentage}% {value}/{total} {message}`,
        barCompleteChar: '█',
        barIncompleteChar: '░',
        barsize: BAR.barsize,
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        emptyOnZero: true,
      });
      this.bar = this.multibar.create(p.total, p.current, payload);
    } else {
      this.bar.setTotal(p.total);
      this.bar.update(p.current, payload);
    }
  }

  /** Draw the bar a last time and leave it; later lines go below it. */
  stop(): void {
    this.multibar?.stop();
    this.multibar = undefined;
    this.bar = undefined;
  }
}
