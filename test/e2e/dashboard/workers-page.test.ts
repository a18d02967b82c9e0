import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REDIS_ONLY, childWorker } from '../../utils.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN_COOKIE, startDashboardApp } from './fixture.js';

// The page functions below run in the browser; this project compiles without the DOM library.
declare const document: any;

describe('dashboard workers page', () => {
  it(
    'shows a worker of another process beside this one, with its own pid',
    { skip: REDIS_ONLY || chromiumMissing() },
    async (t) => {
      const docket = await startDashboardApp({ worker: { name: 'worker-1' } });
      t.after(() => docket.close());
      // a second process with a worker on the same docket
      childWorker(t, docket.name, 'child-worker', 60_000);
      const browser = await launchChromium();
      t.after(() => browser.close());
      const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
      await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${docket.url}/docket#workers`);
      await page.waitForFunction(() => document.querySelectorAll('#workers tbody tr').length === 2);
      const rows = (await page.$$eval('#workers tbody tr', (trs: any[]) =>
        trs.map((tr) => ({
          name: tr.querySelector('td')?.textContent ?? '',
          pid: tr.querySelector('td.pid')?.textContent ?? '',
        })),
      )) as { name: string; pid: string }[];
      const byName = new Map(rows.map((row) => [row.name.trim(), row.pid.trim()]));
      assert.deepEqual([...byName.keys()].sort(), ['child-worker', 'worker-1']);
      assert.equal(byName.get('worker-1'), String(process.pid));
      assert.match(byName.get('child-worker') ?? '', /^\d+$/);
      assert.notEqual(byName.get('child-worker'), String(process.pid));
    },
  );
});
