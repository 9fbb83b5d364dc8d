// Runs a fake upstream in its own process (for benchmarks: the gateway and the fake must not share
// a core). Usage: node test/helpers/fake-upstream-cli.ts [openai|anthropic]
// Prints one JSON line {"url": "..."} on stdout once listening; exits on SIGTERM/SIGINT.
import { fakeAnthropic, fakeOpenAi } from './fake-upstream.ts';

const kind = process.argv[2] ?? 'openai';
const fake = kind === 'anthropic' ? await fakeAnthropic({ record: false }) : await fakeOpenAi({ record: false });
process.stdout.write(JSON.stringify({ url: fake.url, origin: fake.origin }) + '\n');
for (const sig of ['SIGTERM', 'SIGINT'] as const) process.once(sig, () => void fake.close().then(() => process.exit(0)));
