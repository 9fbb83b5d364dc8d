#!/bin/sh
# Prints the path of Prometheus' `promtool`, fetching it into .toolchain/promtool when missing.
# It comes from the Debian package `prometheus`, unpacked with dpkg-deb (nothing is installed and no
# service is started). `apt-get download` needs no root, but it needs package lists; refreshing
# them (`apt-get update`) needs root, so that step runs only as root.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.toolchain/promtool"
if [ -x "$dest" ]; then
  echo "$dest"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || {
  echo "promtool: needs apt-get and dpkg-deb (a Debian-based machine) to fetch the prometheus package" >&2
  exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# apt's sandbox user cannot write into a private temp dir; let it be readable for the download.
chmod 755 "$tmp"
if ! apt-get download prometheus >"$tmp/log" 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "promtool: 'apt-get download prometheus' failed and refreshing package lists needs root;" >&2
    echo "promtool: run 'sudo apt-get update' (or this script as root) and retry. apt said:" >&2
    cat "$tmp/log" >&2
    exit 1
  fi
  apt-get update -qq >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
  apt-get download prometheus >"$tmp/log" 2>&1 || { echo "promtool: apt-get download prometheus failed:" >&2; cat "$tmp/log" >&2; exit 1; }
fi
dpkg-deb -x prometheus_*.deb "$tmp/unpacked"
mkdir -p "$root/.toolchain"
install -m 0755 "$tmp/unpacked/usr/bin/promtool" "$dest.tmp"
mv "$dest.tmp" "$dest"
echo "$dest"
