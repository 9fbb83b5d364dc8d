import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { AppError } from '../kernel/errors.ts';
import { createVault } from '../vault/index.ts';
import { keepMaskedSecrets, maskToolSecrets, openToolConfig, previewOf, sealToolSecrets } from './tool-secrets.ts';
import type { AgentTool } from './types.ts';

const vault = createVault('test-vault-key-0123456789abcdef0123456789');
const tool = (headers: Record<string, string>, name = 'http_request'): AgentTool => ({ type: 'http_request', name, approval: 'never', config: { allowedHosts: ['api.example.com'], defaultHeaders: headers } });
const headers = (t: AgentTool) => t.config.defaultHeaders as Record<string, string>;

describe('tool credential headers (issue 12, item 5)', () => {
  it('sealing touches credential-named headers only, binds them to the agent, and is idempotent', () => {
    const [s] = sealToolSecrets(vault, 'agt_1', [tool({ Authorization: 'Bearer abcdefgh12345678', 'X-Team': 'blue', Cookie: 'sid=1' })]);
    assert.match(headers(s!).Authorization!, /^⟨sealed …5678⟩v1\./);
    assert.match(headers(s!).Cookie!, /^⟨sealed …⟩v1\./); // short values preview nothing
    assert.equal(headers(s!)['X-Team'], 'blue');
    assert.deepEqual(sealToolSecrets(vault, 'agt_1', [s!]), [s]);
    assert.equal(openToolConfig(vault, 'agt_1', s!.config).defaultHeaders && (openToolConfig(vault, 'agt_1', s!.config).defaultHeaders as Record<string, string>).Authorization, 'Bearer abcdefgh12345678');
    assert.throws(() => openToolConfig(vault, 'agt_2', s!.config), 'a sealed value copied onto another agent does not open');
  });

  it('masking shows previews for sealed and legacy clear values alike; tools without credentials are untouched', () => {
    const sealed = sealToolSecrets(vault, 'agt_1', [tool({ 'X-Api-Key': 'key-000011112222' })]);
    assert.deepEqual(headers(maskToolSecrets(sealed)[0]!), { 'X-Api-Key': '…2222' });
    assert.deepEqual(headers(maskToolSecrets([tool({ Authorization: 'Token legacy-plain-9999' })])[0]!), { Authorization: '…9999' });
    const plain = [tool({ Accept: 'text/csv' }), { type: 'run_code', name: 'run_code', approval: 'never' as const, config: {} }];
    assert.deepEqual(maskToolSecrets(plain), plain);
    assert.equal(previewOf('short'), '…');
  });

  it('an edit sending a preview back keeps the stored value; a wrong or orphan preview is a 400 naming the header', () => {
    const current = sealToolSecrets(vault, 'agt_1', [tool({ Authorization: 'Bearer abcdefgh12345678' })]);
    const kept = keepMaskedSecrets(vault, 'agt_1', [{ type: 'http_request', config: { defaultHeaders: { authorization: '…5678' } } }], current);
    assert.equal((kept[0]!.config!.defaultHeaders as Record<string, string>).authorization, 'Bearer abcdefgh12345678');
    for (const [input, field] of [
      [{ type: 'http_request', config: { defaultHeaders: { Authorization: '…0000' } } }, 'tools.0.config.defaultHeaders.Authorization'],
      [{ type: 'http_request', name: 'other', config: { defaultHeaders: { Authorization: '…5678' } } }, 'tools.0.config.defaultHeaders.Authorization'],
      [{ type: 'http_request', config: { defaultHeaders: { 'X-Token': '…5678' } } }, 'tools.0.config.defaultHeaders.X-Token'],
    ] as const) {
      assert.throws(() => keepMaskedSecrets(vault, 'agt_1', [input], current), (e: unknown) => e instanceof AppError && e.status === 400 && e.field === field);
    }
    // A real value is taken as given.
    const fresh = keepMaskedSecrets(vault, 'agt_1', [{ type: 'http_request', config: { defaultHeaders: { Authorization: 'Bearer new' } } }], current);
    assert.equal((fresh[0]!.config!.defaultHeaders as Record<string, string>).Authorization, 'Bearer new');
  });
});
