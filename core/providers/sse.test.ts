import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { SseParser } from './sse.ts';

const STREAM = ': keep-alive\n\nevent: message_start\ndata: {"a":1}\n\ndata: {"b":"é"}\n\ndata: line1\ndata: line2\n\n: comment only\n\ndata: [DONE]\n\n';
const EXPECTED = [
  { event: 'message_start', data: '{"a":1}' },
  { event: undefined, data: '{"b":"é"}' },
  { event: undefined, data: 'line1\nline2' },
  { event: undefined, data: '[DONE]' },
];

describe('SseParser', () => {
  it('parses events, names, multi-line data, and drops comments', () => {
    assert.deepEqual(new SseParser().push(STREAM), EXPECTED);
  });

  it('gives the same events however TCP slices the text, including mid-line and mid-"\\n\\n"', () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      const p = new SseParser();
      const got = [...p.push(STREAM.slice(0, cut)), ...p.push(STREAM.slice(cut))];
      assert.deepEqual(got, EXPECTED, `cut at ${cut}`);
    }
  });

  it('emits each complete event at once and holds only the incomplete tail', () => {
    const p = new SseParser();
    assert.deepEqual(p.push('data: one\n\ndata: tw'), [{ event: undefined, data: 'one' }]);
    assert.deepEqual(p.push('o\n'), []);
    assert.deepEqual(p.push('\n'), [{ event: undefined, data: 'two' }]);
  });

  it('accepts CRLF line endings, even when "\\r\\n" is split across slices', () => {
    const crlf = STREAM.replace(/\n/g, '\r\n');
    for (let cut = 1; cut < crlf.length; cut++) {
      const p = new SseParser();
      assert.deepEqual([...p.push(crlf.slice(0, cut)), ...p.push(crlf.slice(cut))], EXPECTED, `cut at ${cut}`);
    }
  });

  it('takes "data:" with or without the space, and a last event without its blank line at end()', () => {
    const p = new SseParser();
    assert.deepEqual(p.push('data:x\n\ndata: y'), [{ event: undefined, data: 'x' }]);
    assert.deepEqual(p.end(), [{ event: undefined, data: 'y' }]);
    assert.deepEqual(p.end(), []);
  });
});
