import { writeSync } from 'node:fs';

/** JSON lines on stdout: one stringify per line, nothing when off. Never pass a credential. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export type LogSink = (line: string) => void;

/** One write per event-loop turn (docs/performance.md); flushed synchronously at exit. */
function stdoutSink(): LogSink {
  let buf: string[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buf.length === 0) return;
    const out = buf.join('');
    buf = [];
    process.stdout.write(out);
  };
  process.once('exit', () => {
    if (buf.length === 0) return;
    try {
      writeSync(1, buf.join(''));
    } catch {
      // stdout closed: nothing left to tell
    }
    buf = [];
  });
  return (line) => {
    buf.push(line);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}

let sharedStdout: LogSink | undefined;

export function createLogger(level: LogLevel = 'info', sink: LogSink = (sharedStdout ??= stdoutSink()), base: Record<string, unknown> = {}): Logger {
  const threshold = ORDER[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < threshold) return;
    const line = { time: new Date().toISOString(), level: lvl, msg, ...base, ...fields };
    // A replacer slows every key; only lines with an object field (an Error) need it.
    sink(JSON.stringify(line, hasObject(fields) || hasObject(base) ? errorReplacer : undefined) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
  };
}

function hasObject(fields: Record<string, unknown> | undefined): boolean {
  for (const k in fields) {
    const v = fields[k];
    if (typeof v === 'object' && v !== null) return true;
  }
  return false;
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}
