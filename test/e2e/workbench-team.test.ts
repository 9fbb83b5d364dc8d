// The workbench with a team, in Chromium against the built binary: invite someone (the link copied
// from the page), they sign up with it in another browser and land in the workspace with their role;
// resend and revoke (the revoked link fails on the sign-up page with the spec's 403 message); a
// viewer sees no control they may not use; a gateway key made on the page works with the openai SDK
// until it is revoked on the page. Every page is screenshotted and checked with axe-core.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import type { BrowserContext, Page } from 'playwright-core';
import { checkPage } from '../helpers/browser.ts';
import { label, PASSWORD, visit, workbench, type Bench } from '../helpers/workbench.ts';

const INVALID = 'This invitation is not valid. Ask a workspace admin for a new one.';

describe('workbench: a team (Chromium, built binary)', () => {
  let w: Bench;
  let owner: Page;
  beforeAll(async () => {
    w = await workbench();
    const ctx = await w.context();
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.base });
    owner = await ctx.newPage();
    await owner.goto('/sign-up');
    await label(owner, 'Email').fill('owner@example.com');
    await label(owner, 'Name').fill('Olive');
    await label(owner, 'Password').fill(PASSWORD);
    await owner.getByRole('button', { name: 'Create account' }).click();
    await owner.waitForURL(`${w.base}/`);
  });
  afterAll(async () => {
    await w?.close();
  });

  /** Creates an invitation on the page; returns the sign-up link as copied to the clipboard. */
  async function invite(email: string, role: string): Promise<string> {
    await owner.goto('/invitations');
    await label(owner, 'Email').fill(email);
    await label(owner, 'Role').selectOption(role);
    await owner.getByRole('button', { name: 'Create invitation' }).click();
    await owner.getByText(`Sign-up link for ${email}`).waitFor();
    await owner.getByRole('button', { name: 'Copy' }).click();
    await owner.getByText('Copied to the clipboard.').waitFor();
    const link = await owner.evaluate(() => navigator.clipboard.readText());
    assert.equal(link, (await owner.locator('#invite-link').innerText()).trim());
    assert.match(link, new RegExp(`^${w.base}/sign-up\\?invite=svc_inv_`));
    return link;
  }

  async function signUpWith(link: string, email: string): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await w.context();
    const page = await ctx.newPage();
    await page.goto(link);
    assert.equal(await label(page, 'Invitation code').inputValue(), new URL(link).searchParams.get('invite'));
    await label(page, 'Email').fill(email);
    await label(page, 'Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    return { ctx, page };
  }

  test('invite → copy the link → sign up with it in another browser → in the workspace with the role', async () => {
    const link = await invite('mia@example.com', 'member');
    await checkPage(owner, 'invitation-created');
    const { ctx, page } = await signUpWith(link, 'mia@example.com');
    await page.waitForURL(`${w.base}/`);
    await page.getByText("You are working in Olive's workspace as member.").waitFor();
    await checkPage(page, 'home-invited-member');
    // Both workspaces in the switcher, the inviting one active; switching is remembered.
    const switcher = label(page, 'Workspace');
    assert.match(await switcher.locator('option:checked').innerText(), /^Olive's workspace \(member\)$/);
    await switcher.selectOption({ label: "mia's workspace (owner)" });
    await page.getByText("Now working in mia's workspace as owner.").waitFor();
    await page.goto('/');
    await page.getByText("You are working in mia's workspace as owner.").waitFor();
    await ctx.close();
    await owner.goto('/invitations');
    const row = owner.getByRole('row', { name: /mia@example\.com/ });
    await row.getByText('used').waitFor();
    await visit(owner, '/members', 'members');
    await owner.getByRole('cell', { name: 'mia@example.com' }).waitFor();
  });

  test('resend replaces the link; revoke ends it, and the revoked link fails on the sign-up page with the 403 message', async () => {
    const first = await invite('ned@example.com', 'viewer');
    await owner.getByRole('button', { name: 'Resend the invitation of ned@example.com' }).click();
    await owner.getByText('Sign-up link for ned@example.com').waitFor();
    const second = (await owner.locator('#invite-link').innerText()).trim();
    assert.notEqual(second, first);
    await owner.getByRole('button', { name: 'Revoke the invitation of ned@example.com' }).click();
    await owner.getByText('Revoked the invitation of ned@example.com').waitFor();
    await checkPage(owner, 'invitations');
    for (const link of [first, second]) {
      const { ctx, page } = await signUpWith(link, 'ned@example.com');
      await page.getByText(INVALID).first().waitFor();
      assert.equal(page.url(), `${w.base}/sign-up`);
      assert.equal(await label(page, 'Invitation code').getAttribute('aria-invalid'), 'true');
      await checkPage(page, 'sign-up-revoked');
      await ctx.close();
    }
  });

  test('a viewer sees no control they may not use, on any page', async () => {
    const link = await invite('val@example.com', 'viewer');
    const { ctx, page } = await signUpWith(link, 'val@example.com');
    await page.getByText("You are working in Olive's workspace as viewer.").waitFor();
    const nav = await page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
    assert.ok(!nav.includes('Invitations'), nav.join(' '));
    const allowed = /^(Sign out|Switch|Create access token|Change password|Sign out everywhere|Leave workspace|Copy)$/;
    for (const path of ['/', '/agents', '/runs', '/conversations', '/workers', '/provider-accounts', '/tokens', '/usage', '/members', '/account']) {
      await visit(page, path, `viewer${path === '/' ? '-home' : path.replace(/\//g, '-')}`);
      const buttons = (await page.getByRole('button').allInnerTexts()).map((t) => t.trim()).filter((t) => !allowed.test(t));
      assert.deepEqual(buttons, [], `${path}: buttons a viewer may not use`);
    }
    assert.equal((await page.goto('/invitations'))?.status(), 403);
    await ctx.close();
  });

  test('a gateway key made on the page works with the openai SDK, and is refused once revoked on the page', async () => {
    await owner.goto('/provider-accounts');
    await label(owner, 'Name').fill('Fake');
    await label(owner, 'Slug').fill('fake');
    await label(owner, 'Base URL').fill(w.fake.url);
    await owner.getByRole('button', { name: 'Add account' }).click();
    await owner.getByText('Added Fake').waitFor();

    await visit(owner, '/tokens', 'tokens-empty');
    await owner.getByRole('form', { name: 'New gateway key' }).getByLabel(/^Name/).fill('sdk script');
    await owner.getByRole('button', { name: 'Create key' }).click();
    await owner.getByText('Your new key “sdk script”').waitFor();
    const token = (await owner.locator('#new-token').innerText()).trim();
    assert.match(token, /^svc_live_/);
    await checkPage(owner, 'token-created');

    const sdk = new OpenAI({ baseURL: `${w.base}/api/v1`, apiKey: token, maxRetries: 0 });
    assert.ok((await sdk.models.list()).data.some((m) => m.id === 'fake/gpt-fake-mini'));
    w.fake.script({ text: 'pong', usage: { input: 4, output: 1 } });
    const chat = await sdk.chat.completions.create({ model: 'fake/gpt-fake-mini', messages: [{ role: 'user', content: 'ping' }] });
    assert.equal(chat.choices[0]!.message.content, 'pong');

    await owner.goto('/tokens');
    assert.equal(await owner.getByText(token).count(), 0, 'the token is not shown again');
    await owner.getByRole('button', { name: 'Revoke sdk script' }).click();
    await owner.getByText('Revoked sdk script').waitFor();
    await assert.rejects(sdk.models.list(), (err: unknown) => err instanceof OpenAI.AuthenticationError);
    await visit(owner, '/usage', 'usage');
    await owner.getByRole('img', { name: /Tokens per day/ }).waitFor();
  });

  test('forms work without JavaScript: sign in, create an invitation, see its link', async () => {
    const ctx = await w.browser.newContext({ baseURL: w.base, javaScriptEnabled: false });
    const page = await ctx.newPage();
    await page.goto('/sign-in?next=/invitations');
    await label(page, 'Email').fill('owner@example.com');
    await label(page, 'Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${w.base}/invitations`);
    await label(page, 'Email').fill('nojs@example.com');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByText('Sign-up link for nojs@example.com').waitFor();
    assert.match((await page.locator('#invite-link').innerText()).trim(), /\/sign-up\?invite=svc_inv_/);
    // A refusal comes back as the page with the message (here: already a member).
    await label(page, 'Email').fill('mia@example.com');
    await page.getByRole('button', { name: 'Create invitation' }).click();
    await page.getByRole('alert').getByText('mia@example.com is already a member of this workspace.').waitFor();
    await ctx.close();
  });

  test('no console error or CSP violation on any page', () => {
    assert.deepEqual(w.problems, []);
  });
});
