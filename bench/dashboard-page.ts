import type { Browser } from 'playwright-core';
import type { RedisClock, RedisTime } from './dashboard-redis-time.js';
import { median } from './report.js';

// The page functions below run in the browser; the bench compiles without the DOM library.
declare const document: any;

/** A view of the page and how to tell that it has rendered its data. */
export interface PageView {
  label: string;
  /** The hash of the view (`#overview`). */
  hash: string;
  /** True in the page once the view shows the docket's data. */
  rendered: () => boolean;
  /**
   * Text to search the view's list for once it has loaded (typed into its search field, then
   * Enter): the time then runs from the search to `searched`, and the view stays open searched.
   */
  search?: { text: string; searched: () => boolean };
}

export const VIEWS: PageView[] = [
  {
    label: 'overview',
    hash: '#overview',
    // the counts are in and the live workers listed
    rendered: () =>
      /^\d+$/.test(document.querySelector('[data-stat="scheduled"]')?.textContent ?? '') &&
      document.querySelectorAll('#overview-workers tbody tr').length > 0,
  },
  {
    label: 'queued & scheduled (first page of 50)',
    hash: '#scheduled',
    rendered: () =>
      document.querySelectorAll('#scheduled tbody tr').length >= 50 &&
      / of \d/.test(document.querySelector('#scheduled-pager .range')?.textContent ?? ''),
  },
  {
    label: 'queued & scheduled, searched for "acme"',
    hash: '#scheduled',
    rendered: () => document.querySelectorAll('#scheduled tbody tr').length >= 50,
    search: {
      text: 'acme',
      // every row shows the customer, and the pager counts the matches only
      searched: () => {
        const rows = [...document.querySelectorAll('#scheduled tbody tr')];
        const range = document.querySelector('#scheduled-pager .range')?.textContent ?? '';
        return (
          rows.length > 0 &&
          rows.every((row: any) => /acme/i.test(row.textContent)) &&
          / of \d{1,4}$/.test(range)
        );
      },
    },
  },
  {
    label: 'failures (first page of 50)',
    hash: '#failures',
    rendered: () =>
      document.querySelectorAll('#dead-letters tbody tr').length >= 50 &&
      / of \d/.test(document.querySelector('#dead-letters-pager .range')?.textContent ?? ''),
  },
];

/** How long a view took to load, and what Redis spent while it stayed open. */
export interface PageTiming {
  label: string;
  loads: number;
  /** From navigation to the view showing its data (from the search to its result), ms. */
  medianMs: number;
  maxMs: number;
  /** The page's own navigation timing: DOMContentLoaded, median ms. */
  domMs: number;
  /** What the dashboard's connection ran while the page stayed open `openMs` after its load. */
  open: { ms: number; redis: RedisTime };
}

/**
 * Load each view `loads` times, each time in a fresh browser context (no cache, no cookies),
 * timing navigation to rendered data; then keep the view open `openMs` and take what Redis
 * spent on its refreshes (the page polls every refreshInterval).
 */
export async function timePages(
  browser: Browser,
  mount: string,
  loads: number,
  openMs: number,
  clock: RedisClock,
  log: (line: string) => void,
): Promise<PageTiming[]> {
  const out: PageTiming[] = [];
  for (const view of VIEWS) {
    const ms: number[] = [];
    const dom: number[] = [];
    let open: PageTiming['open'] | undefined;
    for (let n = 0; n < loads; n++) {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        let t = performance.now();
        await page.goto(`${mount}${view.hash}`);
        await page.waitForFunction(view.rendered, undefined, { timeout: 60_000, polling: 'raf' });
        if (view.search) {
          const field = page.locator(`${view.hash}-filter [name="q"]`);
          await field.fill(view.search.text);
          t = performance.now();
          await field.press('Enter');
          await page.waitForFunction(view.search.searched, undefined, {
            timeout: 60_000,
            polling: 'raf',
          });
        }
        ms.push(performance.now() - t);
        dom.push(
          await page.evaluate(() => {
            const nav = (globalThis as any).performance.getEntriesByType('navigation')[0];
            return nav ? nav.domContentLoadedEventEnd - nav.startTime : NaN;
          }),
        );
        if (n === loads - 1) {
          await clock.reset();
          const t0 = performance.now();
          await page.waitForTimeout(openMs);
          open = { ms: performance.now() - t0, redis: await clock.read() };
        }
      } finally {
        await context.close();
      }
    }
    const timing: PageTiming = {
      label: view.label,
      loads,
      medianMs: median(ms),
      maxMs: Math.max(...ms),
      domMs: median(dom),
      open: open!,
    };
    out.push(timing);
    const longest = timing.open.redis.longest;
    log(
      `  ${view.label.padEnd(40)} median ${timing.medianMs.toFixed(0).padStart(6)} ms, max ${timing.maxMs
        .toFixed(0)
        .padStart(
          6,
        )} ms; open ${(timing.open.ms / 1000).toFixed(0)} s: Redis ${timing.open.redis.totalMs.toFixed(0)} ms, longest ${
        longest ? `${longest.ms.toFixed(1)} ms (${longest.name})` : '-'
      }`,
    );
  }
  return out;
}
