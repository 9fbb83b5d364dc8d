// The owner's first run of the workbench in a real Chromium against the built binary: sign up,
// connect the fake model server, make an agent with an http_request tool that needs approval,
// publish, run, approve on the run page, see the output. Every page is screenshotted and checked
// with axe-core; no console error or CSP violation is allowed anywhere.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { label, PASSWORD, visit, workbench, type Bench } from '../helpers/workbench.ts';

describe('workbench: the owner\'s first run (Chromium, built binary)', () => {
  let w: Bench;
  let ctx: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    w = await workbench();
    ctx = await w.context();
    page = await ctx.newPage();
  });
  afterAll(async () => {
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

  test('a conversation: a run kept as one shows on the conversations page', async () => {
    w.fake.reset();
    w.fake.script({ text: 'Kept in a conversation.' });
    await page.goto('/agents');
    await page.getByRole('link', { name: 'Scout' }).click();
    await label(page, 'Input').fill('Remember this.');
    await label(page, 'Keep it as a conversation').check();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('pre.output').getByText('Kept in a conversation.').waitFor({ timeout: 15_000 });
    await visit(page, '/conversations', 'conversations');
    await page.getByRole('link', { name: 'Remember this.' }).click();
    await page.getByText('Kept in a conversation.').waitFor();
    await checkPage(page, 'conversation');
  });

  test('a Worker on the agent: the webhook URL shown once starts a run; rotation replaces it', async () => {
    await visit(page, '/workers', 'workers-empty');
    await label(page, 'Name').fill('Nightly report');
    await label(page, 'Input template').fill('Report on {{body}}');
    await label(page, 'Schedule').fill('0 3 * * *');
    await page.getByRole('button', { name: 'Create Worker' }).click();
    const url = (await page.locator('#webhook-url').innerText()).trim();
    assert.match(url, new RegExp(`^${w.base}/api/public/webhooks/workers/svc_whk_`));
    await checkPage(page, 'worker-created');
    w.fake.reset();
    w.fake.script({ text: 'Webhook run done.' });
    const hit = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'the week' });
    assert.equal(hit.status, 202, await hit.text());
    await page.getByRole('button', { name: 'Rotate the webhook URL' }).click();
    const rotated = (await page.locator('#webhook-url').innerText()).trim();
    assert.notEqual(rotated, url);
    assert.equal((await fetch(url, { method: 'POST', body: 'x' })).status, 404, 'the old URL is dead');
    await visit(page, '/workers', 'workers');
  });

  test('account: a wrong current password is named at its field; a right one changes it', async () => {
    await visit(page, '/account', 'account');
    await label(page, 'Current password').fill('not my password');
    await label(page, 'New password').fill('an even better passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.locator('#pw-currentPassword-error').getByText('The current password is not correct.').waitFor();
    await checkPage(page, 'account-password-error');
    await label(page, 'Current password').fill(PASSWORD);
    await label(page, 'New password').fill('an even better passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await assertVisible(page, 'Password changed.');
  });

  test('the watch catches a CSP violation (the harness can fail)', async () => {
    const before = w.problems.length;
    await page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.injected = 1';
      document.body.append(s);
    });
    await page.waitForTimeout(200);
    const caught = w.problems.splice(before);
    assert.ok(caught.some((p) => /CSP violation: script-src/.test(p)), caught.join('\n'));
    assert.equal(await page.evaluate(() => (window as unknown as { injected?: number }).injected), undefined, 'the inline script did not run');
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
