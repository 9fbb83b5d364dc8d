import { healthy, runDoctor, type Finding } from '../../core/doctor/index.ts';

/** Ink in a terminal, plain lines when piped; exit 1 on any failure. */
export async function doctor(opts: { json?: boolean }): Promise<void> {
  const findings = await runDoctor(process.env);
  const ok = healthy(findings);
  if (opts.json) {
    process.stdout.write(JSON.stringify({ healthy: ok, findings }, null, 2) + '\n');
  } else if (process.stdout.isTTY) {
    // react is CommonJS: the bundle's import() yields only a default export.
    const [{ render }, { default: React }, { FindingsView }] = await Promise.all([
      import('ink'),
      import('react'),
      import('../ui/findings-view.ts'),
    ]);
    const app = render(React.createElement(FindingsView, { findings }));
    app.unmount();
    await app.waitUntilExit();
  } else {
    process.stdout.write(findings.map(plainLine).join('\n') + '\n');
  }
  process.exitCode = ok ? 0 : 1;
}

export function plainLine(f: Finding): string {
  return `${f.status.toUpperCase().padEnd(4)} ${f.check}: ${f.message}${f.fix ? `\n     fix: ${f.fix}` : ''}`;
}
