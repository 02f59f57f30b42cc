#!/usr/bin/env bash
# Builds the sandbox base image offline: debootstrap (minbase) of Debian bookworm from this machine's
# apt mirror with every package of packages.txt, then `docker import`. Usage: build-base.sh <tag>
set -euo pipefail
tag=${1:?usage: build-base.sh <image tag>}
here=$(cd "$(dirname "$0")" && pwd)

mirror=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $0 !~ /security/ {print $2; exit}' /etc/apt/sources.list)
fi
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null; then
  apt-get install -y debootstrap >/dev/null
fi

include=$(grep -v '^#' "$here/packages.txt" | grep -v '^$' | paste -sd, -)
root=$(mktemp -d /tmp/berth-base.XXXXXX)
trap 'rm -rf "$root"' EXIT

echo "debootstrap bookworm from $mirror (packages: $include)"
debootstrap --variant=minbase --include="$include" bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -n 20 "$root.log" >&2; echo "debootstrap failed; full log: $root.log" >&2; exit 1; }
rm -f "$root.log"
# Keep the image small: apt lists and caches are not needed at run time.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc/* "$root"/usr/share/man/*
tar -C "$root" -c . | docker import - "$tag" >/dev/null
echo "imported $tag"
