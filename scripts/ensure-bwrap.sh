#!/bin/sh
# The run_code sandbox tests need bubblewrap (Debian package `bubblewrap`) and prlimit (util-linux).
# Installs bubblewrap when it is missing and this can (root with apt-get); otherwise fails saying
# what to run. No sandbox test is skipped instead.
set -eu
if command -v bwrap >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-bwrap: installing bubblewrap (and util-linux for prlimit) with apt-get" >&2
  log=$(mktemp)
  if ! { apt-get install -y -qq bubblewrap util-linux >"$log" 2>&1 || { apt-get update -qq >>"$log" 2>&1 && apt-get install -y -qq bubblewrap util-linux >>"$log" 2>&1; }; }; then
    cat "$log" >&2
    rm -f "$log"
    echo "ensure-bwrap: apt-get could not install bubblewrap (see above)" >&2
    exit 1
  fi
  rm -f "$log"
  command -v bwrap >/dev/null 2>&1 && command -v prlimit >/dev/null 2>&1 && exit 0
fi
echo "ensure-bwrap: the sandbox tests need bubblewrap (bwrap) and prlimit, and this machine lacks one." >&2
echo "ensure-bwrap: install them as root: apt-get install bubblewrap util-linux (dnf install bubblewrap util-linux on Fedora)" >&2
exit 1
