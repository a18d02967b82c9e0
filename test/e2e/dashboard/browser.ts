import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Where a browser test puts its screenshot `name`: in `.out/`, or in the directory
 * DOCKET_DASHBOARD_SCREENSHOTS names (docs/, for the documentation).
 */
export function screenshotPath(name: string): string {
  const dir = process.env.DOCKET_DASHBOARD_SCREENSHOTS ?? '.out';
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function apt(...args: string[]): boolean {
  const run = spawnSync('apt-get', args, {
    stdio: 'ignore',
    timeout: 600_000,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return run.status === 0;
}

let checked: string | false | undefined;

/**
 * Why the browser tests cannot run here, or false when they can. A missing Chromium is
 * installed with apt-get when this process may (root on Debian); the suite skips only when
 * that fails.
 */
export function chromiumMissing(): string | false {
  if (checked !== undefined) return checked;
  if (!existsSync(CHROMIUM)) {
    const root = process.getuid?.() === 0;
    const hasApt = spawnSync('sh', ['-c', 'command -v apt-get']).status === 0;
    if (root && hasApt) {
      // the package lists may be stale or absent (fresh containers): refresh once and retry
      if (!apt('install', '-y', 'chromium') && apt('update')) apt('install', '-y', 'chromium');
    }
  }
  checked = existsSync(CHROMIUM)
    ? false
    : `${CHROMIUM} is missing and could not be installed (apt-get install -y chromium needs root on Debian)`;
  return checked;
}

/** Headless Debian Chromium through playwright-core. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
