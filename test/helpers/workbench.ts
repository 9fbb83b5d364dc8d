// The workbench's browser tests: the built binary, a fake model server, one Chromium.
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, start, stop, waitForStatus, type Running, type Sandbox } from './binary.ts';
import { checkPage, launchBrowser, watchedContext } from './browser.ts';
import { fakeOpenAi, type FakeUpstream } from './fake-upstream.ts';

export const PASSWORD = 'correct horse battery staple';

export interface Bench {
  base: string;
  fake: FakeUpstream;
  browser: Browser;
  run: Running;
  /** Every console error, uncaught exception and CSP violation of every context. */
  problems: string[];
  context(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Built binary on SQLite with embedded workers. */
export async function workbench(env: Record<string, string> = {}): Promise<Bench> {
  ensureBuilt();
  const sb: Sandbox = isolatedBinary();
  const fake = await fakeOpenAi();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const run = start(sb, ['serve'], cleanEnv(sb.home, {
    PORT: String(port),
    SERVICE_APP_ORIGIN: base,
    // The fake is on loopback, which an operator must allow explicitly.
    SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1',
    SERVICE_TOOL_HTTP_ALLOW_PRIVATE: 'true',
    ...env,
  }));
  await waitForStatus(run, `${base}/api/health/ready`);
  const browser = await launchBrowser();
  const problems: string[] = [];
  const contexts: BrowserContext[] = [];
  return {
    base, fake, browser, run, problems,
    async context() {
      const { context, problems: p } = await watchedContext(browser, { baseURL: base });
      contexts.push(context);
      // Shared array: the test asserts on one list.
      const push = p.push.bind(p);
      p.push = (...items: string[]) => (problems.push(...items), push(...items));
      return context;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await fake.close();
      const code = await stop(run);
      sb.cleanup();
      assert.equal(code, 0, run.output().slice(-3000));
    },
  };
}

/** Runs the per-page checks on every page it opens. */
export async function visit(page: Page, path: string, name: string): Promise<void> {
  const res = await page.goto(path);
  assert.ok(res && res.status() < 400, `${path}: ${res?.status()}`);
  await checkPage(page, name);
}

/** An optional field's label ends in "(optional)". */
export function label(page: Page, text: string) {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return page.getByLabel(new RegExp(`^${escaped}( \\(optional\\))?$`));
}
