// POST /api/v1/responses over HTTP: every SPEC refusal code and every validation bound, one request
// each. The translator's unit tests live in core/gateway/responses; these prove the route applies
// them, answers 400 with the code and `param`, and never calls the upstream for a refusal.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { startGateway, type Gateway } from './harness.ts';

type Body = Record<string, unknown>;
interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };

// [label, extra body fields, code, param]
const REFUSALS: Array<[string, Body, string, string]> = [
  ['unknown top-level field', { frobnicate: 1 }, 'unsupported_responses_field', 'frobnicate'],
  ['a field named constructor (an Object.prototype name)', { constructor: 1 }, 'unsupported_responses_field', 'constructor'],
  ['a field named toString', { toString: 'x' }, 'unsupported_responses_field', 'toString'],
  ['max_tool_calls (no chat equivalent)', { max_tool_calls: 3 }, 'unsupported_responses_field', 'max_tool_calls'],
  ['background true', { background: true }, 'unsupported_responses_field', 'background'],
  ['text.verbosity', { text: { verbosity: 'low' } }, 'unsupported_text_field', 'text.verbosity'],
  ['another member of text', { text: { format: { type: 'text' }, other: 1 } }, 'unsupported_text_field', 'text.other'],
  ['reasoning.summary', { reasoning: { effort: 'low', summary: 'auto' } }, 'unsupported_reasoning_field', 'reasoning.summary'],
  ['another member of reasoning', { reasoning: { generate_summary: 'auto' } }, 'unsupported_reasoning_field', 'reasoning.generate_summary'],
  ['metadata', { metadata: { a: 'b' } }, 'metadata_not_supported', 'metadata'],
  ['truncation auto', { truncation: 'auto' }, 'truncation_not_supported', 'truncation'],
  ['non-empty include', { include: ['reasoning.encrypted_content'] }, 'include_not_supported', 'include'],
  ['previous_response_id', { previous_response_id: 'resp_123' }, 'previous_response_id_not_supported', 'previous_response_id'],
  ['conversation', { conversation: 'conv_123' }, 'response_state_not_supported', 'conversation'],
  ['state', { state: { id: 's' } }, 'response_state_not_supported', 'state'],
  ['store true', { store: true }, 'store_not_supported', 'store'],
  ['store as a string', { store: 'false' }, 'store_not_supported', 'store'],
];

// [label, extra, accepted, param when refused, what the upstream chat body must carry when accepted]
const BOUNDS: Array<[string, Body, boolean, string, Body?]> = [
  ['temperature 0', { temperature: 0 }, true, 'temperature', { temperature: 0 }],
  ['temperature 2', { temperature: 2 }, true, 'temperature', { temperature: 2 }],
  ['temperature 2.0001', { temperature: 2.0001 }, false, 'temperature'],
  ['temperature -0.1', { temperature: -0.1 }, false, 'temperature'],
  ['temperature "1"', { temperature: '1' }, false, 'temperature'],
  ['top_p 0', { top_p: 0 }, true, 'top_p', { top_p: 0 }],
  ['top_p 1', { top_p: 1 }, true, 'top_p', { top_p: 1 }],
  ['top_p 1.0001', { top_p: 1.0001 }, false, 'top_p'],
  ['top_p -0.01', { top_p: -0.01 }, false, 'top_p'],
  ['seed 42', { seed: 42 }, true, 'seed', { seed: 42 }],
  ['seed -7', { seed: -7 }, true, 'seed', { seed: -7 }],
  ['seed 1.5', { seed: 1.5 }, false, 'seed'],
  ['seed "1"', { seed: '1' }, false, 'seed'],
  ['user of 256 characters', { user: 'u'.repeat(256) }, true, 'user', { user: 'u'.repeat(256) }],
  ['user of 256 emoji (code points, not UTF-16 units)', { user: '😀'.repeat(256) }, true, 'user'],
  ['user of 257 characters', { user: 'u'.repeat(257) }, false, 'user'],
  ['user not a string', { user: 5 }, false, 'user'],
  ...(['minimal', 'low', 'medium', 'high'] as const).map(
    (e): [string, Body, boolean, string, Body] => [`reasoning.effort ${e}`, { reasoning: { effort: e } }, true, 'reasoning.effort', { reasoning_effort: e }],
  ),
  ['reasoning.effort max', { reasoning: { effort: 'max' } }, false, 'reasoning.effort'],
  ['text.format text sends nothing', { text: { format: { type: 'text' } } }, true, 'text.format', {}],
  ['text.format json_object', { text: { format: { type: 'json_object' } } }, true, 'text.format', { response_format: { type: 'json_object' } }],
  [
    'text.format json_schema with name, schema, description, strict',
    { text: { format: { type: 'json_schema', name: 'thing', schema, description: 'A thing', strict: true } } },
    true,
    'text.format',
    { response_format: { type: 'json_schema', json_schema: { name: 'thing', schema, description: 'A thing', strict: true } } },
  ],
  ['text.format json_schema without name', { text: { format: { type: 'json_schema', schema } } }, false, 'text.format.name'],
  ['text.format json_schema without schema', { text: { format: { type: 'json_schema', name: 'thing' } } }, false, 'text.format.schema'],
  ['text.format json_schema with an unknown member', { text: { format: { type: 'json_schema', name: 'n', schema, extra: 1 } } }, false, 'text.format.extra'],
  ['text.format of an unknown type', { text: { format: { type: 'yaml' } } }, false, 'text.format.type'],
  ['store false (the stateless default)', { store: false }, true, 'store', {}],
  ['include [] and truncation disabled', { include: [], truncation: 'disabled' }, true, 'include', {}],
];

describe('POST /api/v1/responses over HTTP: refusals and bounds', () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway();
  });
  afterAll(() => g.close());
  beforeEach(() => g.openai.reset());

  const post = async (extra: Body) => {
    const res = await fetch(`${g.base}/api/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/gpt-test', input: 'hello', ...extra }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as ErrorBody & Body };
  };

  for (const [label, extra, code, param] of REFUSALS) {
    test(`refused: ${label} → 400 ${code}, param ${param}, no upstream call`, async () => {
      const r = await post(extra);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, code);
      assert.equal(r.body.error.param, param);
      assert.equal(r.body.error.type, 'invalid_request_error');
      assert.ok(r.body.error.message.length > 0);
      assert.ok(r.headers.get('x-request-id'));
      assert.equal(g.openai.calls, 0);
    });
  }

  for (const [label, extra, accepted, param, forwarded] of BOUNDS) {
    test(`${accepted ? 'accepted' : 'refused'}: ${label}`, async () => {
      const r = await post(extra);
      if (!accepted) {
        assert.equal(r.status, 400, JSON.stringify(r.body));
        assert.equal(r.body.error.code, 'invalid_request');
        assert.equal(r.body.error.param, param);
        assert.equal(g.openai.calls, 0);
        return;
      }
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(g.openai.calls, 1);
      const upstream = g.openai.requests[0]!.body as Body;
      for (const [k, v] of Object.entries(forwarded ?? {})) assert.deepEqual(upstream[k], v, `${k} forwarded`);
      if (forwarded && Object.keys(forwarded).length === 0) {
        for (const k of ['response_format', 'reasoning_effort', 'store', 'include', 'truncation']) assert.ok(!(k in upstream), `${k} not sent upstream`);
      }
    });
  }

  test('parallel_tool_calls: absent → true in the envelope; false is forwarded and echoed', async () => {
    const a = await post({});
    assert.equal(a.body.parallel_tool_calls, true);
    assert.ok(!('parallel_tool_calls' in g.openai.requests[0]!.body));
    const b = await post({ parallel_tool_calls: false });
    assert.equal(b.body.parallel_tool_calls, false);
    assert.equal(g.openai.requests[1]!.body.parallel_tool_calls, false);
  });

  test('a refusal comes before admission: it spends no request from the quota', async () => {
    const before = await post({});
    const remaining = Number(before.headers.get('x-ratelimit-remaining-requests'));
    for (let i = 0; i < 3; i++) assert.equal((await post({ metadata: { i } })).status, 400);
    const afterR = await post({});
    assert.equal(Number(afterR.headers.get('x-ratelimit-remaining-requests')), remaining - 1);
  });
});
