#!/usr/bin/env bash
# Benchmarks/hit-cost.sh: what one plain HTTP cache hit costs `larder serve`, counted rather than
# timed: instructions per hit (valgrind's callgrind, every thread of the process) and system calls
# per hit (strace -c), for a precached 1 KiB and 64 KiB asset and the same bytes stored by
# browsing. Counts do not move with the machine's load, so two builds compare on a busy machine
# and the figures reproduce; Benchmarks/run's per-core rows say what they are worth in requests
# per second beside nginx.
#
# Usage: Benchmarks/hit-cost.sh [--requests N] LABEL=LARDER_BINARY...
#   --requests N  hits counted per asset (default 2000), one keep-alive connection, after 300
#                 unrecorded ones
# e.g. Benchmarks/hit-cost.sh old=.build-bench/<commit>/larder new=.build-release/release/larder
# (Benchmarks/run --compare REV1 REV2 leaves each commit's release binary in .build-bench/COMMIT/).
# Needs valgrind, strace, nginx (installed when missing) and binutils' objcopy: valgrind 3.19
# cannot read the debug information of a release build, so it runs a copy without it.
set -euo pipefail
requests=2000
binaries=()
while (($#)); do
  case "$1" in
    --requests) requests="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *=*) binaries+=("$1"); shift ;;
    *) echo "hit-cost.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
((${#binaries[@]})) || { echo "hit-cost.sh: name at least one LABEL=LARDER_BINARY" >&2; exit 2; }
export PATH="$PATH:/usr/sbin:/sbin"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
missing=()
command -v valgrind >/dev/null || missing+=(valgrind)
command -v strace >/dev/null || missing+=(strace)
command -v nginx >/dev/null || missing+=(nginx-light)
command -v objcopy >/dev/null || missing+=(binutils)
if ((${#missing[@]})); then
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo -n); fi
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/larder-hitcost.XXXXXX")"
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

mkdir -p "$work/origin/hot" "$work/origin/browse" "$work/nginx-temp"
head -c 1024 /dev/urandom >"$work/origin/hot/asset-1k.bin"
head -c 65536 /dev/urandom >"$work/origin/hot/asset-64k.bin"
cp "$work/origin/hot/"*.bin "$work/origin/browse/"
printf '{"files": ["hot/asset-1k.bin", "hot/asset-64k.bin"]}\n' >"$work/origin/hot/offline.meta.json"
chmod -R a+rX "$work/origin"
origin_port=$(free_port)
user_line=""
if [ "$(id -u)" -eq 0 ]; then user_line="user root root;"; fi
sed -e "s|@WORK@|$work|g" -e "s|@ORIGIN_PORT@|$origin_port|g" -e "s|@USER_LINE@|$user_line|g" \
  "$root/Benchmarks/support/origin-nginx.conf.in" >"$work/origin.conf"
nginx -p "$work" -e "$work/origin-error.log" -c "$work/origin.conf" &
pids+=($!)
origin="http://127.0.0.1:$origin_port"
for _ in $(seq 1 100); do curl -s -o /dev/null --noproxy '*' "$origin/hot/asset-1k.bin" && break; sleep 0.05; done

# The client: N sequential GETs on one keep-alive connection, each answer read whole and checked.
cat >"$work/client.py" <<'PY'
import socket, sys
port, target, host, n = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
s = socket.create_connection(("127.0.0.1", port))
request = f"GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: hit-cost\r\nAccept: */*\r\n\r\n".encode()
buffer = b""
for _ in range(n):
    s.sendall(request)
    while b"\r\n\r\n" not in buffer:
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("connection closed")
        buffer += chunk
    head, _, buffer = buffer.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines[0].startswith(b"HTTP/1.1 200"):
        sys.exit(f"not a 200: {lines[0]!r}")
    fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines[1:])}
    if b"hit" not in fields.get(b"cache-status", b""):
        sys.exit(f"not a hit: {fields.get(b'cache-status')!r}")
    length = int(fields[b"content-length"])
    while len(buffer) < length:
        buffer += s.recv(65536)
    buffer = buffer[length:]
PY

# start LABEL BINARY LAUNCHER...: `larder serve` on the label's store, waiting until it answers.
serve_pid=""
serve_port=""
start() {
  local label="$1" binary="$2"; shift 2
  serve_port=$(free_port)
  "$@" "$binary" serve --cache-dir "$work/cache-$label" --port "$serve_port" --event-loops 1 --log-level warning \
    >"$work/serve-$label.log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  for _ in $(seq 1 600); do
    curl -s -o /dev/null -x "http://127.0.0.1:$serve_port" "$origin/hot/asset-1k.bin" && return 0
    kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve-$label.log" >&2; exit 1; }
    sleep 0.1
  done
  cat "$work/serve-$label.log" >&2
  exit 1
}
stop() { kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; }
# The serving process: valgrind runs the program as the same process; strace -f follows threads.
clients() {  # clients TARGET N
  python3 "$work/client.py" "$serve_port" "$origin$1" "127.0.0.1:$origin_port" "$2"
}

assets=(/hot/asset-1k.bin /hot/asset-64k.bin /browse/asset-1k.bin /browse/asset-64k.bin)
printf '%-10s %-22s %14s %12s\n' build asset "instr/hit" "syscalls/hit"
for entry in "${binaries[@]}"; do
  label="${entry%%=*}" binary="${entry#*=}"
  [ -x "$binary" ] || { echo "hit-cost.sh: $binary is not an executable" >&2; exit 1; }
  objcopy --strip-debug "$binary" "$work/larder-$label"
  echo "$origin/hot" >"$work/hot.txt"
  "$work/larder-$label" precache "$work/hot.txt" --cache-dir "$work/cache-$label" >/dev/null 2>&1
  # Stored by browsing: three fetches through the proxy (the first stores it).
  start "$label" "$work/larder-$label"
  for asset in /browse/asset-1k.bin /browse/asset-64k.bin; do
    for _ in 1 2 3; do curl -s -o /dev/null -x "http://127.0.0.1:$serve_port" "$origin$asset"; done
  done
  declare -A syscalls=()
  for asset in "${assets[@]}"; do
    clients "$asset" 300
    strace -c -f -q -p "$serve_pid" -o "$work/strace.txt" &
    tracer=$!
    sleep 0.5   # strace attaches to every thread
    clients "$asset" "$requests"
    sleep 0.2
    kill -INT "$tracer"; wait "$tracer" || true
    syscalls[$asset]=$(awk -v n="$requests" '$NF == "total" { printf "%.2f", $4 / n }' "$work/strace.txt")
  done
  stop
  start "$label" "$work/larder-$label" valgrind -q --tool=callgrind --callgrind-out-file="$work/cg-$label.%p"
  for asset in "${assets[@]}"; do
    clients "$asset" 300
    callgrind_control -z "$serve_pid" >/dev/null 2>&1
    clients "$asset" "$requests"
    callgrind_control -d "$serve_pid" >/dev/null 2>&1
    dump=$(ls -t "$work/cg-$label.$serve_pid".* | head -1)
    instructions=$(sed -n 's/^summary: //p' "$dump")
    printf '%-10s %-22s %14s %12s\n' "$label" "$asset" "$(awk -v i="$instructions" -v n="$requests" 'BEGIN { printf "%.0f", i / n }')" \
      "${syscalls[$asset]}"
    rm -f "$dump"
  done
  stop
done
