#!/usr/bin/env bash
# Benchmarks/precache-vs-curl.sh: `larder precache` of 2,000 files of 4 KiB against
# `curl --parallel --parallel-max 8` writing the same files, in interleaved rounds (the order
# rotated each round), on one folder's file system; the all-cached re-run after each first run.
# Prints each run and the medians (wall time, and CPU time over all threads).
#
# Usage: Benchmarks/precache-vs-curl.sh [--rounds N] [--dir FOLDER] LABEL=LARDER_BINARY...
#   --rounds N    rounds (default 5)
#   --dir FOLDER  where the caches and curl's files go (default: a temporary folder; give a
#                 folder on tmpfs, e.g. /dev/shm, to leave the disk out)
# Several binaries (e.g. before=... after=...) run in the same rounds. Runs under nice -n 10,
# like Benchmarks/run; the origin is a local nginx with 1 worker.
set -euo pipefail
rounds=5
dir=""
binaries=()
while (($#)); do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *=*) binaries+=("$1"); shift ;;
    *) echo "precache-vs-curl.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
((${#binaries[@]})) || { echo "precache-vs-curl.sh: name at least one LABEL=LARDER_BINARY" >&2; exit 2; }
if [ "$(nice)" -lt 10 ]; then exec nice -n $((10 - $(nice))) "$0" --rounds "$rounds" ${dir:+--dir "$dir"} "${binaries[@]}"; fi
export PATH="$PATH:/usr/sbin:/sbin"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

work="$(mktemp -d "${TMPDIR:-/tmp}/larder-pvc.XXXXXX")"
out="${dir:-$work/out}"
mkdir -p "$out"
out="$(mktemp -d "$out/pvc.XXXXXX")"
chmod 755 "$work"
origin_pid=""
cleanup() { [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null; rm -rf "$work" "$out"; }
trap cleanup EXIT

mkdir -p "$work/origin/bench" "$work/nginx-temp"
python3 - "$work/origin/bench" "$work/curl-list.txt" <<'PY'
import json, os, sys
folder, curl_list = sys.argv[1], sys.argv[2]
files = []
for i in range(2000):
    with open(f"{folder}/file-{i:04d}.bin", "wb") as f:
        f.write(os.urandom(4096))
    files.append(f"bench/file-{i:04d}.bin")
with open(f"{folder}/offline.meta.json", "w") as f:
    json.dump({"files": files}, f)
PY
chmod -R a+rX "$work/origin"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
origin="http://127.0.0.1:$port"
python3 - "$origin" "$work/curl-list.txt" <<'PY'
import sys
origin, out = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    for i in range(2000):
        f.write(f'url = "{origin}/bench/file-{i:04d}.bin"\noutput = "file-{i:04d}.bin"\n')
PY
user_line=""
if [ "$(id -u)" -eq 0 ]; then user_line="user root root;"; fi
sed -e "s|@WORK@|$work|g" -e "s|@ORIGIN_PORT@|$port|g" -e "s|@USER_LINE@|$user_line|g" \
  "$(dirname "$0")/support/origin-nginx.conf.in" >"$work/origin.conf"
nginx -p "$work" -e "$work/origin-error.log" -c "$work/origin.conf" &
origin_pid=$!
for _ in $(seq 1 100); do curl -sf -o /dev/null "$origin/bench/offline.meta.json" && break; sleep 0.05; done
echo "$origin/bench" >"$work/games.txt"

# timed LABEL COMMAND...: one line "LABEL wall_s cpu_s" (CPU over all threads), to the results file.
timed() {
  python3 - "$work/results" "$work/last.log" "$@" <<'PY2'
import resource, subprocess, sys, time
results, log, label, command = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
with open(log, "w") as output:
    code = subprocess.call(command, stdout=output, stderr=subprocess.STDOUT)
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if code != 0:
    sys.stderr.write(open(log).read())
    sys.exit(f"{label} exited with {code}")
cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
line = f"{label} {wall:.4f} {cpu:.4f}"
print(line)
open(results, "a").write(line + "\n")
PY2
}
peers=("${binaries[@]}" curl=curl)
for r in $(seq 1 "$rounds"); do
  n=${#peers[@]}
  for i in $(seq 0 $((n - 1))); do
    peer="${peers[$(((i + r) % n))]}"
    label="${peer%%=*}"; binary="${peer#*=}"
    if [ "$label" = curl ]; then
      mkdir -p "$out/curl"
      timed curl curl -s -f --noproxy '*' --parallel --parallel-max 8 --output-dir "$out/curl" -K "$work/curl-list.txt"
      rm -rf "$out/curl"
    else
      timed "$label" "$binary" precache "$work/games.txt" --cache-dir "$out/$label"
      timed "$label-rerun" "$binary" precache "$work/games.txt" --cache-dir "$out/$label"
      rm -rf "$out/$label"
    fi
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    label, wall, cpu = line.split()
    runs.setdefault(label, []).append((float(wall), float(cpu)))
curl = statistics.median(w for w, _ in runs.get("curl", [(0, 0)]))
for label, values in runs.items():
    wall = statistics.median(w for w, _ in values)
    cpu = statistics.median(c for _, c in values)
    ratio = f"{wall / curl:.2f}x curl" if curl and not label.endswith("rerun") and label != "curl" else ""
    print(f"{label:16} median wall {wall * 1000:7.0f} ms  cpu {cpu * 1000:7.0f} ms  {ratio}  runs: {' '.join(f'{w * 1000:.0f}' for w, _ in values)}")
PY
