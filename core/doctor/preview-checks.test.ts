import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approximateSite, checkPreviewSite } from './preview-checks.ts';
import { runDoctor } from './index.ts';

const check = (app: string, preview: string) => checkPreviewSite({ SERVICE_APP_ORIGIN: app, SERVICE_PREVIEW_ORIGIN: preview })[0]!;

describe('doctor: preview origin site', () => {
  it('sites: last two labels; IP literals and one-label names are their own', () => {
    assert.equal(approximateSite('app.example.com'), 'example.com');
    assert.equal(approximateSite('example.com'), 'example.com');
    assert.equal(approximateSite('preview.localhost'), 'preview.localhost');
    assert.equal(approximateSite('localhost'), 'localhost');
    assert.equal(approximateSite('10.0.0.1'), '10.0.0.1');
    assert.equal(approximateSite('[::1]'), '[::1]');
  });

  it('warns when the two share a registrable domain, and explains the fix', () => {
    for (const [app, preview] of [['https://app.example.com', 'https://preview.example.com'], ['https://example.com', 'https://preview.example.com'], ['https://App.Example.com.', 'https://preview.example.com']]) {
      const f = check(app!, preview!);
      assert.equal(f.status, 'warn', `${app} / ${preview}`);
      assert.match(f.message, /same-site/);
      assert.match(f.message, /SameSite=Lax/);
      assert.match(f.fix!, /domain of their own/);
      assert.match(f.fix!, /docs\/preview\.md/);
    }
  });

  it('is ok for separate sites, the defaults included', () => {
    assert.equal(check('https://app.example.com', 'https://example-preview.net').status, 'ok');
    assert.equal(check('http://localhost:8484', 'http://preview.localhost:8484').status, 'ok');
    assert.equal(check('http://127.0.0.1:8484', 'http://preview.localhost:8484').status, 'ok');
  });

  it('svc doctor reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-doctor-preview-'));
    try {
      const findings = await runDoctor({ HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db'), SERVICE_APP_ORIGIN: 'https://app.example.com', SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com' });
      assert.equal(findings.find((f) => f.check === 'config.preview-origin')?.status, 'warn');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
