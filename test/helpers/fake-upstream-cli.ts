// Runs a fake upstream in its own process (for benchmarks: the gateway and the fake must not share
// a core). Usage: node test/helpers/fake-upstream-cli.ts [openai|anthropic]
// FAKE_CHUNK_DELAY_MS=n paces streamed events n ms apart (one event per read, as a model sends them).
// Prints one JSON line {"url": "..."} on stdout once listening; exits on SIGTERM/SIGINT.
import { fakeAnthropic, fakeOpenAi } from './fake-upstream.ts';

const kind = process.argv[2] ?? 'openai';
const fake = kind === 'anthropic' ? await fakeAnthropic({ record: false }) : await fakeOpenAi({ record: false });
const delay = Number(process.env.FAKE_CHUNK_DELAY_MS ?? 0);
if (delay > 0) fake.script({ chunkDelayMs: delay });
process.stdout.write(JSON.stringify({ url: fake.url, origin: fake.origin }) + '\n');
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void fake.close().then(() => process.exit(0)));
