import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { AppError } from '../../kernel/errors.ts';
import { parseResponsesRequest } from './request.ts';

const base = { model: 'openai/gpt-4o-mini', input: 'hi' };
const parse = (extra: Record<string, unknown>) => parseResponsesRequest({ ...base, ...extra });

/** Asserts a 400 with this exact code and param. */
function refused(extra: Record<string, unknown>, code: string, param: string) {
  assert.throws(
    () => parse(extra),
    (e: unknown) => {
      assert.ok(e instanceof AppError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.code, code);
      assert.equal(e.field, param);
      return true;
    },
  );
}
const accepted = (extra: Record<string, unknown>) => parse(extra);

describe('Responses refusal codes (SPEC "Errors"), one test each', () => {
  it('an unrecognised top-level field → unsupported_responses_field naming it', () => {
    refused({ frobnicate: 1 }, 'unsupported_responses_field', 'frobnicate');
  });
  it('a member of text other than format → unsupported_text_field (text.verbosity)', () => {
    refused({ text: { verbosity: 'low' } }, 'unsupported_text_field', 'text.verbosity');
  });
  it('a member of reasoning other than effort → unsupported_reasoning_field (reasoning.summary)', () => {
    refused({ reasoning: { effort: 'low', summary: 'auto' } }, 'unsupported_reasoning_field', 'reasoning.summary');
  });
  it('metadata → metadata_not_supported', () => {
    refused({ metadata: { k: 'v' } }, 'metadata_not_supported', 'metadata');
  });
  it('truncation other than disabled → truncation_not_supported; disabled is accepted', () => {
    refused({ truncation: 'auto' }, 'truncation_not_supported', 'truncation');
    accepted({ truncation: 'disabled' });
  });
  it('non-empty include → include_not_supported; an empty list is accepted', () => {
    refused({ include: ['message.output_text.logprobs'] }, 'include_not_supported', 'include');
    accepted({ include: [] });
  });
  it('previous_response_id → previous_response_id_not_supported', () => {
    refused({ previous_response_id: 'resp_123' }, 'previous_response_id_not_supported', 'previous_response_id');
  });
  it('conversation → response_state_not_supported', () => {
    refused({ conversation: 'conv_123' }, 'response_state_not_supported', 'conversation');
  });
  it('state → response_state_not_supported', () => {
    refused({ state: { id: 'x' } }, 'response_state_not_supported', 'state');
  });
  it('store other than false → store_not_supported; false and absent are accepted', () => {
    refused({ store: true }, 'store_not_supported', 'store');
    accepted({ store: false });
    accepted({});
  });
  it('a refusal is reported before a missing input (stateful requests learn why)', () => {
    assert.throws(() => parseResponsesRequest({ model: 'm', previous_response_id: 'resp_1' }), { code: 'previous_response_id_not_supported' });
  });
});

describe('Responses fields with no chat equivalent (decided here) are refused by name', () => {
  for (const [field, value] of [
    ['max_tool_calls', 3],
    ['top_logprobs', 2],
    ['prompt', { id: 'pmpt_1' }],
    ['prompt_cache_options', { mode: 'explicit', ttl: '30m' }],
    ['moderation', { input: 'x' }],
    ['context_management', [{ type: 'compaction' }]],
    ['background', true],
  ] as const) {
    it(`${field} → unsupported_responses_field`, () => refused({ [field]: value }, 'unsupported_responses_field', field));
  }
  // Names Object.prototype carries must be looked up as own keys only (issue 12, item 12).
  for (const field of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
    it(`a top-level field named ${field} → unsupported_responses_field naming it (any value, null too)`, () => {
      for (const value of [1, 'x', {}, null]) {
        // JSON.parse makes __proto__ an own key, as a client's body would arrive.
        const body = JSON.parse(`{"model":"m","input":"hi","${field}":${JSON.stringify(value)}}`) as unknown;
        assert.throws(() => parseResponsesRequest(body), (e: unknown) => {
          assert.ok(e instanceof AppError, String(e));
          assert.equal(e.status, 400);
          assert.equal(e.code, 'unsupported_responses_field');
          assert.equal(e.field, field);
          assert.match(e.message, new RegExp(`^${field} is not supported`));
          return true;
        });
      }
    });
  }
  it('background false is the stateless default and accepted', () => {
    accepted({ background: false });
  });
  it('null means absent, even for refused fields', () => {
    accepted({ metadata: null, previous_response_id: null, store: null, truncation: null, text: null, reasoning: null });
  });
  it('a hosted tool → 400 unsupported_tool naming tools', () => {
    refused({ tools: [{ type: 'web_search' }] }, 'unsupported_tool', 'tools');
  });
  it('a function tool member with no chat equivalent → unsupported_tool_field naming it', () => {
    refused({ tools: [{ type: 'function', name: 'f', defer_loading: true }] }, 'unsupported_tool_field', 'tools[0].defer_loading');
  });
  it('service_tier outside chat\'s values → 400 naming service_tier', () => {
    refused({ service_tier: 'ultrafast' }, 'invalid_request', 'service_tier');
  });
});

describe('Responses validation bounds, one test each', () => {
  it('temperature is a number from 0 to 2', () => {
    assert.equal(accepted({ temperature: 0 }).chat.temperature, 0);
    assert.equal(accepted({ temperature: 2 }).chat.temperature, 2);
    refused({ temperature: 2.0001 }, 'invalid_request', 'temperature');
    refused({ temperature: -0.0001 }, 'invalid_request', 'temperature');
    refused({ temperature: '1' }, 'invalid_request', 'temperature');
  });
  it('top_p is a number from 0 to 1', () => {
    assert.equal(accepted({ top_p: 0 }).chat.top_p, 0);
    assert.equal(accepted({ top_p: 1 }).chat.top_p, 1);
    refused({ top_p: 1.0001 }, 'invalid_request', 'top_p');
    refused({ top_p: -0.0001 }, 'invalid_request', 'top_p');
  });
  it('seed is an integer', () => {
    assert.equal(accepted({ seed: -7 }).chat.seed, -7);
    assert.equal(accepted({ seed: Number.MAX_SAFE_INTEGER }).chat.seed, Number.MAX_SAFE_INTEGER);
    refused({ seed: 1.5 }, 'invalid_request', 'seed');
    refused({ seed: '3' }, 'invalid_request', 'seed');
  });
  it('user is a string of at most 256 characters (code points)', () => {
    assert.equal(accepted({ user: 'u'.repeat(256) }).chat.user, 'u'.repeat(256));
    accepted({ user: '😀'.repeat(256) }); // 512 UTF-16 units, 256 characters
    refused({ user: 'u'.repeat(257) }, 'invalid_request', 'user');
    refused({ user: 42 }, 'invalid_request', 'user');
  });
  it('reasoning.effort is minimal, low, medium or high', () => {
    for (const e of ['minimal', 'low', 'medium', 'high']) assert.equal(accepted({ reasoning: { effort: e } }).chat.reasoning_effort, e);
    refused({ reasoning: { effort: 'xhigh' } }, 'invalid_request', 'reasoning.effort');
  });
  it('text.format.type is text, json_object or json_schema', () => {
    for (const type of ['text', 'json_object']) accepted({ text: { format: { type } } });
    accepted({ text: { format: { type: 'json_schema', name: 'x', schema: {} } } });
    refused({ text: { format: { type: 'xml' } } }, 'invalid_request', 'text.format.type');
  });
  it('json_schema needs a name', () => {
    refused({ text: { format: { type: 'json_schema', schema: {} } } }, 'invalid_request', 'text.format.name');
  });
  it('json_schema needs a schema object', () => {
    refused({ text: { format: { type: 'json_schema', name: 'x' } } }, 'invalid_request', 'text.format.schema');
    refused({ text: { format: { type: 'json_schema', name: 'x', schema: [] } } }, 'invalid_request', 'text.format.schema');
  });
  it('json_schema accepts description and strict, and nothing else', () => {
    accepted({ text: { format: { type: 'json_schema', name: 'x', schema: {}, description: 'd', strict: true } } });
    refused({ text: { format: { type: 'json_schema', name: 'x', schema: {}, extra: 1 } } }, 'invalid_request', 'text.format.extra');
  });
  it('max_output_tokens is an integer of at least 1', () => {
    assert.equal(accepted({ max_output_tokens: 1 }).chat.max_completion_tokens, 1);
    refused({ max_output_tokens: 0 }, 'invalid_request', 'max_output_tokens');
  });
  it('model and input are required', () => {
    assert.throws(() => parseResponsesRequest({ input: 'x' }), { code: 'invalid_request', field: 'model' });
    assert.throws(() => parseResponsesRequest({ model: 'm' }), { code: 'invalid_request', field: 'input' });
    assert.throws(() => parseResponsesRequest('nope'), { code: 'invalid_request' });
  });
});
