// The owner's first run of the workbench in a real Chromium against the built binary: sign up,
// connect the fake model server, make an agent with an http_request tool that needs approval,
// publish, run, approve on the run page, see the output. Every page is screenshotted and checked
// with axe-core; no console error or CSP violation is allowed anywhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { label, PASSWORD, visit, workbench, type Bench } from '../helpers/workbench.ts';

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
    await label(page, 'Email').fill('owner@example.com');
    await label(page, 'Name').fill('Olive');
    await label(page, 'Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${w.base}/`);
    await assertVisible(page, 'Hello, Olive');
    await assertVisible(page, 'Get started');
    await visit(page, '/', 'home-first-run');
  });

  test('connect the fake model server and test the connection', async () => {
    await visit(page, '/provider-accounts', 'provider-accounts-empty');
    await label(page, 'Provider').selectOption('openai-compatible');
    await label(page, 'Name').fill('Fake GPU box');
    await label(page, 'Slug').fill('fake');
    await label(page, 'Base URL').fill(w.fake.url);
    await label(page, 'API key').fill('sk-fake-secret-1234');
    await page.getByRole('button', { name: 'Add account' }).click();
    await assertVisible(page, 'Added Fake GPU box');
    assert.equal(await page.getByText('sk-fake-secret-1234').count(), 0, 'the key is never shown again');
    await assertVisible(page, '…1234');
    await page.getByRole('button', { name: 'Test the connection' }).click();
    await assertVisible(page, 'Connected');
    await assertVisible(page, 'gpt-fake-mini');
    await checkPage(page, 'provider-account-tested');
  });

  test('make an agent with an http_request tool that asks first, and publish it', async () => {
    await visit(page, '/agents/new', 'agent-new');
    await label(page, 'Name').fill('Scout');
    await label(page, 'Instructions').fill('Fetch what is asked and summarise it.');
    await label(page, 'Model').fill('fake/gpt-fake-mini');
    await label(page, 'Use http_request').check();
    await label(page, 'Approval for http_request').selectOption('always');
    await page.getByRole('button', { name: 'Create the draft' }).click();
    await assertVisible(page, 'Created the draft of Scout');
    await checkPage(page, 'agent-draft');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await assertVisible(page, 'Published version 1');
    await assertVisible(page, 'asks first');
    await checkPage(page, 'agent-published');
  });

  test('run it, approve the tool call on the run page, and see the output', async () => {
    w.fake.reset();
    w.fake.once({ toolCalls: [{ name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: `${w.fake.url}/models` }) }] });
    w.fake.script({ text: 'The server offers gpt-fake-mini and gpt-fake.' });
    await label(page, 'Input').fill('Which models does the server offer?');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/\/runs\/run_/);
    // The page follows the run by itself (no reload) until it stops for the approval.
    await page.getByRole('button', { name: 'Approve' }).waitFor({ timeout: 15_000 });
    await assertVisible(page, 'Approval needed');
    await checkPage(page, 'run-waiting-approval');
    await page.getByRole('button', { name: 'Approve' }).click();
    await assertVisible(page, 'Approved: the run continues');
    await page.getByText('The server offers gpt-fake-mini and gpt-fake.').waitFor({ timeout: 15_000 });
    await page.locator('[data-terminal]').waitFor({ state: 'attached' });
    assert.equal(await page.locator('.run-status .badge').innerText(), 'completed');
    await checkPage(page, 'run-completed');
    await visit(page, '/runs', 'runs-list');
    await assertVisible(page, 'Scout');
  });

  test('the start page marks the steps done', async () => {
    await visit(page, '/', 'home-after-first-run');
    assert.ok((await page.locator('ol.steps li.done').count()) >= 3);
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
