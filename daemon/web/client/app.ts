// The workbench's only script; every page works without it.
// Handles [data-copy], [data-live] polling, and pending submit buttons.

function copy(button: HTMLElement): void {
  const target = document.getElementById(button.dataset.copy ?? '');
  if (!target) return;
  const text = (target.textContent ?? '').trim();
  const done = (ok: boolean) => {
    const status = document.getElementById(`${button.dataset.copy}-status`);
    if (status) status.textContent = ok ? 'Copied to the clipboard.' : 'Copy failed: select the text and copy it by hand.';
  };
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => done(true), () => done(false));
  else done(false);
}

document.addEventListener('click', (ev) => {
  const button = (ev.target as Element | null)?.closest<HTMLElement>('[data-copy]');
  if (button) {
    ev.preventDefault();
    copy(button);
  }
});

document.addEventListener('submit', (ev) => {
  const f = ev.target as HTMLFormElement;
  // A second click would start two runs or send two invitations.
  setTimeout(() => {
    for (const b of f.querySelectorAll<HTMLButtonElement>('button[type="submit"]')) b.disabled = true;
  }, 0);
});

document.addEventListener('change', (ev) => {
  const el = ev.target as HTMLElement;
  if (el instanceof HTMLSelectElement && el.dataset.autosubmit !== undefined) el.form?.requestSubmit();
});

function follow(el: HTMLElement): void {
  const url = el.dataset.live!;
  const every = Number(el.dataset.every ?? 1000);
  let failures = 0;
  const tick = async () => {
    try {
      const res = await fetch(url, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!res.ok) throw new Error(String(res.status));
      el.innerHTML = await res.text();
      failures = 0;
    } catch {
      failures++;
    }
    const over = el.querySelector('[data-terminal]') !== null;
    if (!over && failures < 30) setTimeout(tick, every * Math.min(1 + failures, 5));
  };
  if (el.querySelector('[data-terminal]') === null) setTimeout(tick, every);
}

for (const el of document.querySelectorAll<HTMLElement>('[data-live]')) follow(el);
