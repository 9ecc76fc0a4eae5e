import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Headless Chromium on a profile of its own; `close` ends it and removes the profile. */
export async function launchChromium(viewport = { width: 1200, height: 900 }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'retrystorm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A report page opened from file:// once every chart has rendered or failed, with the console's
 * errors and warnings and the page's errors gathered from the start (the caller closes the page).
 */
export async function openReport(context: BrowserContext, file: string, timeoutMs = 60_000): Promise<{ page: Page; messages: string[] }> {
  const page = await context.newPage();
  const messages: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') messages.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => messages.push(`pageerror: ${e.message}`));
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction(() => [...document.querySelectorAll('.vis')].every((e) => e.hasAttribute('data-rendered') || e.hasAttribute('data-error')), null, { timeout: timeoutMs });
  return { page, messages };
}
