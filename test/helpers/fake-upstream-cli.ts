// A fake upstream in its own process, so benchmarks do not share a core with it.
// Usage: [FAKE_CHUNK_DELAY_MS=n] node fake-upstream-cli.ts [openai|anthropic]; prints {"url"}.
import { fakeAnthropic, fakeOpenAi } from './fake-upstream.ts';

const kind = process.argv[2] ?? 'openai';
const fake = kind === 'anthropic' ? await fakeAnthropic({ record: false }) : await fakeOpenAi({ record: false });
const delay = Number(process.env.FAKE_CHUNK_DELAY_MS ?? 0);
if (delay > 0) fake.script({ chunkDelayMs: delay });
process.stdout.write(JSON.stringify({ url: fake.url, origin: fake.origin }) + '\n');
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void fake.close().then(() => process.exit(0)));
