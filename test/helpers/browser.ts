// Headless Chromium from @sparticuz/chromium's npm tarball (offline, no apt), via playwright-core.
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export async function launchBrowser(): Promise<Browser> {
  const executablePath = await chromium.executablePath();
  // No calls to Google's hosts. Lambda's --single-process ends the browser with one context,
  // and --disable-web-security drops the same-origin policy.
  const dropped = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content', '--no-zygote']);
  const args = [...chromium.args.filter((a) => !dropped.has(a)), '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
  return playwright.launch({ executablePath, args, headless: true });
}


const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where every page's screenshot goes (git-ignored). */
export const SCREENSHOTS = join(root, 'test-output', 'screenshots');
const AXE = readFileSync(join(root, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** Collects console errors, exceptions and CSP violations through DevTools, outside the page's CSP. */
export async function watchedContext(browser: Browser, opts: BrowserContextOptions = {}): Promise<{ context: BrowserContext; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...opts });
  const problems: string[] = [];
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  context.on('page', (page) => watchPage(page, problems));
  return { context, problems };
}

function watchPage(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // Tests assert 4xx pages themselves; a failed script, stylesheet or fetch still counts.
    if (m.text().startsWith('Failed to load resource') && m.location().url === page.url()) return;
    problems.push(`${page.url()}: console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`${page.url()}: uncaught: ${e.message}`));
}

export interface CheckOptions {
  /** Extra viewport widths to screenshot (360 = a small phone). */
  widths?: number[];
}

/** A full-page screenshot per width, and axe-core with no serious or critical violation. */
export async function checkPage(page: Page, name: string, o: CheckOptions = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = name.replace(/[^a-z0-9-]+/gi, '-').toLowerCase();
  await page.screenshot({ path: join(SCREENSHOTS, `${file}.png`), fullPage: true });
  const size = page.viewportSize();
  for (const w of o.widths ?? [360]) {
    await page.setViewportSize({ width: w, height: 780 });
    await page.screenshot({ path: join(SCREENSHOTS, `${file}-${w}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `${name}: the page scrolls sideways at ${w} px (${overflow} px too wide)`);
  }
  if (size) await page.setViewportSize(size);
  await axe(page, name);
  // The dark scheme (prefers-color-scheme) gets its own screenshot and contrast check.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENSHOTS, `${file}-dark.png`), fullPage: true });
  await axe(page, `${name} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
}

async function axe(page: Page, name: string): Promise<void> {
  // Through DevTools, not a <script> tag: the page's CSP stays strict.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
  const result = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
  };
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join(', ')})`),
    [],
    `${name}: accessibility violations`,
  );
}
