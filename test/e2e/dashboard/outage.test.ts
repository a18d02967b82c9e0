import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { NEEDS_REDIS_SERVER, startRedisServer, type ExtraRedis } from '../../utils.js';
import { chromiumMissing, launchChromium } from './browser.js';
import { ADMIN, ADMIN_COOKIE, startDashboardApp, type DashboardApp } from './fixture.js';
import { SseClient } from './sse.js';

const skip = chromiumMissing() || NEEDS_REDIS_SERVER;

describe('dashboard while Redis is away', { skip }, () => {
  let redis: ExtraRedis;
  let browser: Browser;
  let docket: DashboardApp | undefined;

  before(async () => {
    redis = await startRedisServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await docket?.close();
    await redis?.kill();
  });

  it('says so on the page and answers 503, then closes while the page still polls', async () => {
    docket = await startDashboardApp({ url: redis.url });
    const context = await browser.newContext();
    await context.addCookies([{ ...ADMIN_COOKIE, url: docket.url }]);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${docket.url}/docket#scheduled`);
    await page.waitForSelector('#status.live');

    await redis.kill();
    await page.waitForSelector('#status.down');
    assert.match((await page.textContent('#status')) ?? '', /^Redis is not reachable: /);
    const response = await fetch(`${docket.url}/docket/api/overview`);
    assert.equal(response.status, 503);
    // a page that comes meanwhile hears of the outage on its live stream
    const late = await SseClient.open(`${docket.url}/docket/api/live`, { cookie: ADMIN });
    const told = await late.next((e) => e.type === 'unavailable', 'the outage, on a new stream');
    assert.match(JSON.parse(told.data).reason, /^Redis is not reachable: /);
    await late.close();

    // the page goes on polling: the server must not wait for its busy keep-alive connection
    const closing = docket.close();
    docket = undefined;
    await closing;
    await page.waitForFunction(() => {
      const text = (globalThis as any).document.querySelector('#status')?.textContent;
      return text === 'cannot reach the application';
    });
  });
});
