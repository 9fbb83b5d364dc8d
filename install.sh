#!/usr/bin/env bash
# Fresh machine → working `svc`, in ${SVC_INSTALL_DIR:-$HOME/.local/bin}. Idempotent, needs no root.
# Fetches Node 24 when PATH has none; --systemd[=DIR] also writes the units (default dist/systemd).
set -euo pipefail

systemd_dir=""
for arg in "$@"; do
  case "$arg" in
    --systemd) systemd_dir=dist/systemd ;;
    --systemd=*) systemd_dir=${arg#--systemd=} ;;
    *) printf 'install: error: unknown option %s (known: --systemd[=DIR])\n' "$arg" >&2; exit 2 ;;
  esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$root"
say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }
# npm's chatter (update notices, unknown-config warnings) is noise; real errors still print.
export npm_config_update_notifier=false npm_config_loglevel=error npm_config_fund=false npm_config_audit=false

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# --- 1. Node 24 ---------------------------------------------------------------------------------
mkdir -p .toolchain/bin
toolchain_node="$root/.toolchain/bin/node"
system_node=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$root/.toolchain/bin" | paste -sd: -) command -v node || true)

if [ -n "$system_node" ] && [ "$(node_major "$system_node")" = 24 ]; then
  target=$(readlink -f "$system_node")
  if [ "$(readlink -f "$toolchain_node" 2>/dev/null || true)" != "$target" ]; then
    ln -sfn "$target" "$toolchain_node"
  fi
  say "using Node $("$target" --version) at $target"
elif [ -x "$toolchain_node" ] && [ "$(node_major "$toolchain_node")" = 24 ]; then
  say "using Node $("$toolchain_node" --version) from .toolchain"
else
  command -v npm >/dev/null || die "npm is needed to fetch Node 24 (found no npm on PATH)"
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "unsupported CPU $(uname -m)" ;;
  esac
  have=missing
  if [ -n "$system_node" ]; then have=$("$system_node" --version 2>/dev/null || echo unknown); fi
  say "Node on PATH: $have; fetching Node 24 (node-linux-$arch) from the npm registry"
  # As the `node` package's install script would, which npm here does not run.
  npm install --prefix .toolchain --no-save "node-linux-$arch@24" >/dev/null
  ln -sfn ../node_modules/node-linux-$arch/bin/node "$toolchain_node"
  [ "$(node_major "$toolchain_node")" = 24 ] || die "Node 24 did not install into .toolchain"
  say "installed Node $("$toolchain_node" --version) into .toolchain"
fi

node_bin=$(readlink -f "$toolchain_node")
export PATH="$root/.toolchain/bin:$root/node_modules/.bin:$PATH"
# Nothing compiles (N-API prebuilds, no install scripts): a user's `nodedir` only misleads npm.
unset npm_config_nodedir

# --- 2. Dependencies ----------------------------------------------------------------------------
stamp="node_modules/.svc-install-stamp"
want="$(sha256sum package-lock.json | cut -d' ' -f1) $("$node_bin" --version)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  say "dependencies up to date"
else
  say "installing dependencies (npm ci)"
  # Install scripts are where supply-chain attacks run, and nothing here needs one.
  npm ci --ignore-scripts >/dev/null
  printf '%s' "$want" >"$stamp"
fi

# --- 3. Build -----------------------------------------------------------------------------------
"$toolchain_node" build.mjs --if-stale

# --- 4. Install ---------------------------------------------------------------------------------
if [ -n "${SVC_INSTALL_DIR:-}" ]; then
  dest_dir=$SVC_INSTALL_DIR
else
  [ -n "${HOME:-}" ] || die "HOME is not set; set SVC_INSTALL_DIR to choose where svc goes"
  dest_dir="$HOME/.local/bin"
fi
mkdir -p "$dest_dir"
dest="$dest_dir/svc"
if [ -f "$dest" ] && cmp -s dist/svc "$dest"; then
  say "svc already installed at $dest"
else
  # Renamed in place: a running svc keeps its inode, nobody sees half a file.
  tmp="$dest.tmp.$$"
  cp dist/svc "$tmp"
  chmod 755 "$tmp"
  mv -f "$tmp" "$dest"
  say "installed svc $("$dest" --version) at $dest"
fi
case ":$PATH:" in
  *":$dest_dir:"*) ;;
  *)
    line="export PATH=\"$dest_dir:\$PATH\""
    [ "$dest_dir" = "${HOME:-}/.local/bin" ] && line='export PATH="$HOME/.local/bin:$PATH"'
    say "$dest_dir is not on PATH: add this line to ~/.profile (or your shell's rc file), then open a new shell:"
    printf '\n    %s\n\n' "$line"
    ;;
esac
say "run: svc serve   (http://127.0.0.1:8484, SQLite in ~/.local/share/svc/; svc doctor checks the setup)"

# --- 5. systemd units (opt-in) ------------------------------------------------------------------
if [ -n "$systemd_dir" ]; then
  "$dest" systemd --dir "$systemd_dir" --bin "$(readlink -f "$dest")"
  say "systemd units in $systemd_dir; see docs/operations.md (environment file, enabling, several workers)"
fi
