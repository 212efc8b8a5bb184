#!/usr/bin/env bash
# Render benchmark for /dev/offline (issue #4): fills a cache with 100,000 entries through the
# store's ordinary write path (`larder debug fill-index`), starts `larder serve` on it, and reports
# the median time of N requests to each page, measured by curl (time to the last byte, loopback).
# Target: under 50 ms for each.
#
# Usage: Benchmarks/devoffline-render.sh [--entries N] [--requests N] [--cache-dir DIR] [--debug]
#   --cache-dir DIR  reuse (or create and keep) this cache instead of a temporary one; filling
#                    100,000 entries takes a few minutes, so keep one around between runs.
#   --debug          use the debug build (quicker to build, slower to run).
# Not a test: it prints figures; record them in Benchmarks/RESULTS.md.
set -euo pipefail

entries=100000
requests=30
cache=""
configuration=release
while (($#)); do
  case "$1" in
    --entries) entries="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --cache-dir) cache="$2"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "devoffline-render: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
echo "Building larder ($configuration)..."
if ! swift build -c "$configuration" --product larder >"${TMPDIR:-/tmp}/devoffline-render-build.log" 2>&1; then
  cat "${TMPDIR:-/tmp}/devoffline-render-build.log" >&2
  exit 1
fi
larder="$root/.build/$configuration/larder"

work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
if [ -z "$cache" ]; then cache="$work/cache"; fi

have=0
if [ -f "$cache/index.sqlite" ]; then
  have=$("$larder" status --cache-dir "$cache" --proxy none --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["store"]["entries"])')
fi
if [ "${have:-0}" -lt "$entries" ]; then
  echo "Filling $cache with $((entries - have)) entries (this takes a while)..."
  games=10
  if [ "$have" -gt 0 ]; then games=0; fi
  "$larder" debug fill-index --cache-dir "$cache" --entries "$((entries - have))" --games "$games"
fi

"$larder" serve --port 0 --cache-dir "$cache" --log-level warning >"$work/serve.log" 2>&1 &
server=$!
port=""
for _ in $(seq 1 200); do
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$work/serve.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
if [ -z "$port" ]; then echo "larder serve did not start:" >&2; cat "$work/serve.log" >&2; exit 1; fi
base="http://127.0.0.1:$port"

# Median of `requests` timed GETs of one URL, in milliseconds, after two warm-up requests.
median_ms() {
  local url="$1" times=()
  curl -s -o /dev/null --noproxy '*' "$url"
  curl -s -o /dev/null --noproxy '*' "$url"
  for _ in $(seq 1 "$requests"); do
    times+=("$(curl -s -o /dev/null --noproxy '*' -w '%{time_total}' "$url")")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f", m * 1000 }'
}

status=$(curl -s -o /dev/null --noproxy '*' -w '%{http_code}' "$base/dev/offline")
[ "$status" = 200 ] || { echo "GET /dev/offline answered $status" >&2; exit 1; }
total=$(curl -s --noproxy '*' "$base/dev/offline.json" | python3 -c 'import json, sys; print(json.load(sys.stdin)["store"]["entries"])')

echo
echo "larder $configuration, $total entries, $requests requests each (median, curl time_total):"
for page in \
  "/dev/offline" \
  "/dev/offline.json" \
  "/dev/offline/entries?q=game-42&sort=size" \
  "/dev/offline/entries?q=assets&sort=url&page=3" \
  "/dev/offline/entries?q=zzzz-no-such" \
  "/dev/offline/entries?page=1500" \
  "/dev/offline/games/bench-game-3" \
  "/metrics"; do
  printf '  %-48s %6s ms\n' "$page" "$(median_ms "$base$page")"
done
echo
echo "Machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
