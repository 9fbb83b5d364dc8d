// A real headless Chromium for page tests: the browser that @sparticuz/chromium ships in its npm
// tarball (works offline, no apt), driven by playwright-core. One browser per test file.
import chromium from '@sparticuz/chromium';
import { chromium as playwright, type Browser } from 'playwright-core';

export async function launchBrowser(): Promise<Browser> {
  const executablePath = await chromium.executablePath();
  // The flags keep Chromium from calling out to Google's hosts: this machine has no network.
  // @sparticuz/chromium's defaults turn the same-origin policy off (--disable-web-security) and allow
  // mixed content: pages must be tested under the browser's real security model.
  const unsafe = new Set(['--disable-web-security', '--allow-running-insecure-content']);
  const args = [...chromium.args.filter((a) => !unsafe.has(a)), '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
  return playwright.launch({ executablePath, args, headless: true });
}
