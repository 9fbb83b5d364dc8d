import assert from 'node:assert/strict';
import { test } from 'vitest';
import type { ChatRequest } from '../../wire/openai.ts';
import { DEFAULT_LONG_CONTEXT_TOKENS, classify } from './classify.ts';

const req = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'service/conduit',
  messages: [{ role: 'user', content }],
  ...extra,
});
const tool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object' } } };
const image = { type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' } };

test('tools offered → tool_use, unless tool_choice is "none"', () => {
  assert.equal(classify(req('hello', { tools: [tool] })).task, 'tool_use');
  const off = classify(req('Prove that there are infinitely many primes.', { tools: [tool], tool_choice: 'none' }));
  assert.equal(off.task, 'reasoning');
  assert.match(off.reasons.join(' '), /tool_choice is "none"/);
  assert.equal(classify(req('hello', { tools: [] })).task, 'short_chat');
});

test('response_format json_schema / json_object → structured_output; text format does not', () => {
  const schema = { type: 'json_schema' as const, json_schema: { name: 'x', schema: {} } };
  assert.equal(classify(req('Write a poem', { response_format: schema })).task, 'structured_output');
  assert.equal(classify(req('Write a poem', { response_format: { type: 'json_object' } })).task, 'structured_output');
  assert.equal(classify(req('Write a poem about the sea', { response_format: { type: 'text' } })).task, 'chat');
});

test('image parts anywhere in the conversation → vision', () => {
  const c = classify({
    model: 'm',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'what breed?' }, image] },
      { role: 'assistant', content: 'A corgi.' },
      { role: 'user', content: 'how much exercise do they need?' },
    ],
  });
  assert.equal(c.task, 'vision');
  assert.equal(c.signals.imageParts, 1);
});

test('prompt size over the threshold → long_context; the threshold is an option', () => {
  const doc = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((DEFAULT_LONG_CONTEXT_TOKENS * 4) / 27));
  const c = classify(req(`${doc}\nSummarize.`));
  assert.equal(c.task, 'long_context');
  assert.ok(c.signals.estimatedTokens >= DEFAULT_LONG_CONTEXT_TOKENS);
  assert.equal(classify(req('x'.repeat(4000)), { longContextTokens: 1000 }).task, 'long_context');
  assert.notEqual(classify(req('Summarize: ' + 'word '.repeat(1000))).task, 'long_context');
});

test('reasoning_effort low/medium/high → reasoning; minimal does not', () => {
  assert.equal(classify(req('Name my cat', { reasoning_effort: 'high' })).task, 'reasoning');
  assert.equal(classify(req('Name my cat', { reasoning_effort: 'low' })).task, 'reasoning');
  assert.equal(classify(req('hi', { reasoning_effort: 'minimal' })).task, 'short_chat');
});

test('structural precedence: vision > long_context > tool_use > structured_output > reasoning_effort > text', () => {
  const all: Partial<ChatRequest> = { tools: [tool], response_format: { type: 'json_object' }, reasoning_effort: 'high' };
  const withImage: ChatRequest = { model: 'm', messages: [{ role: 'user', content: [image] }], ...all };
  assert.equal(classify(withImage).task, 'vision');
  assert.equal(classify(req('x'.repeat(200_000), all)).task, 'long_context');
  assert.equal(classify(req('```py\nprint(1)\n```', all)).task, 'tool_use');
  assert.equal(classify(req('```py\nprint(1)\n```', { response_format: { type: 'json_object' }, reasoning_effort: 'high' })).task, 'structured_output');
  assert.equal(classify(req('```py\nprint(1)\n```', { reasoning_effort: 'high' })).task, 'reasoning');
});

test('text: code from fences, stack traces, syntax and language names', () => {
  assert.equal(classify(req('```\nfoo()\n```\nwhat is wrong')).task, 'code');
  assert.equal(classify(req('Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad')).task, 'code');
  assert.equal(classify(req('Refactor this function to be shorter')).task, 'code');
  assert.equal(classify(req('how do I rebase in git?')).task, 'code');
});

test('text: reasoning from proofs, maths and puzzles; "step by step" alone is not enough', () => {
  assert.equal(classify(req('Prove that every prime above 2 is odd.')).task, 'reasoning');
  assert.equal(classify(req('Compute the derivative of x^3 + 2x.')).task, 'reasoning');
  assert.equal(classify(req('Here is a riddle: what has keys but opens no locks?')).task, 'reasoning');
  assert.equal(classify(req('Step by step, how do I repot a cactus?')).task, 'chat');
});

test('text: extraction needs a source text to extract from', () => {
  assert.equal(classify(req('Extract all the dates from this email:\nMeet on May 3, then again June 9.')).task, 'extraction');
  assert.equal(classify(req('List all the planets.')).task, 'short_chat');
});

test('text: JSON asked for in prose → structured_output, including in the system prompt', () => {
  assert.equal(classify(req('Return a JSON object with keys a and b for: apples and bananas')).task, 'structured_output');
  const sys = classify({ model: 'm', messages: [{ role: 'system', content: 'Always answer with a JSON object.' }, { role: 'user', content: 'what is the tallest mountain on earth?' }] });
  assert.equal(sys.task, 'structured_output');
});

test('short_chat vs chat: greetings and short questions vs composed answers', () => {
  for (const t of ['hi', 'thanks!', '👋', 'What is the capital of Peru?']) assert.equal(classify(req(t)).task, 'short_chat', t);
  for (const t of ['Write a haiku about snow.', 'Draft an email to my boss asking for Friday off.']) assert.equal(classify(req(t)).task, 'chat', t);
  assert.equal(classify(req('Write a poem about recursion.')).task, 'chat', 'creative writing beats a tie with a CS term');
});

test('a follow-up inherits the coding lane; thanks does not', () => {
  const convo = (last: string): ChatRequest => ({
    model: 'm',
    messages: [
      { role: 'user', content: 'sum the digits of a number' },
      { role: 'assistant', content: '```python\ndef f(n):\n    return sum(map(int, str(n)))\n```' },
      { role: 'user', content: last },
    ],
  });
  const c = classify(convo('now make it handle negatives'));
  assert.equal(c.task, 'code');
  assert.match(c.reasons.join(' '), /follow-up/);
  assert.equal(classify(convo('thanks, works!')).task, 'short_chat');
});

test('deterministic and explainable: same input, same output, with reasons and scores', () => {
  const r = req('Implement quicksort in Rust');
  const a = classify(r);
  assert.deepEqual(classify(r), a);
  assert.ok(a.reasons.length > 0);
  assert.ok(a.confidence > 0 && a.confidence <= 1);
  assert.ok(a.signals.scores.code >= 2.5);
});

test('odd inputs do not throw: no messages, null content, no user turn', () => {
  assert.equal(classify({ model: 'm', messages: [] }).task, 'short_chat');
  assert.equal(classify({ model: 'm', messages: [{ role: 'assistant', content: null }] }).task, 'short_chat');
  assert.equal(classify({ model: 'm', messages: [{ role: 'system', content: 'be nice' }] }).task, 'short_chat');
});
