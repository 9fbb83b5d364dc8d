/** Incremental SSE: partial events wait for their blank line, complete ones go out at once.
 * `event:` names are kept for Anthropic. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

export class SseParser {
  private buf = '';

  /** Feed decoded text; returns the events it completed. */
  push(text: string): SseEvent[] {
    let s = this.buf + text;
    if (s.indexOf('\r') !== -1) {
      // A trailing "\r" may start a "\r\n".
      const tail = s.endsWith('\r') ? '\r' : '';
      s = s.slice(0, s.length - tail.length).replace(/\r\n?/g, '\n') + tail;
    }
    const out: SseEvent[] = [];
    let start = 0;
    for (;;) {
      const end = s.indexOf('\n\n', start);
      if (end === -1) break;
      const ev = parseBlock(s, start, end);
      if (ev) out.push(ev);
      start = end + 2;
    }
    this.buf = start === 0 ? s : s.slice(start);
    return out;
  }

  /** A last event without its blank line still counts. */
  end(): SseEvent[] {
    const s = this.buf.replace(/\r\n?/g, '\n');
    this.buf = '';
    const ev = s.trim() ? parseBlock(s, 0, s.length) : undefined;
    return ev ? [ev] : [];
  }
}

function parseBlock(s: string, start: number, end: number): SseEvent | undefined {
  let event: string | undefined;
  let data: string | undefined;
  let i = start;
  while (i < end) {
    let nl = s.indexOf('\n', i);
    if (nl === -1 || nl > end) nl = end;
    if (s.charCodeAt(i) !== 58 /* ':' comment */ && nl > i) {
      const colon = s.indexOf(':', i);
      const hasColon = colon !== -1 && colon < nl;
      const field = hasColon ? s.slice(i, colon) : s.slice(i, nl);
      let v = hasColon ? colon + 1 : nl;
      if (s.charCodeAt(v) === 32 && v < nl) v++;
      const value = s.slice(v, nl);
      if (field === 'data') data = data === undefined ? value : data + '\n' + value;
      else if (field === 'event') event = value;
    }
    i = nl + 1;
  }
  return data === undefined ? undefined : { event, data };
}
