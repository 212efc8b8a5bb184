# shellcheck shell=bash
# Benchmarks/run's pageload section (issue 43, item 5), sourced by Benchmarks/run: it uses the
# run's work folder, results file, rounds and helpers (start_larder, start_squid, stop_pid,
# fill_template, wait_port, free_port, rotated, log, die, bench).
#
# A game page of the demo's shape scaled to 126 files (Benchmarks/support/pageload.py generate)
# served by its own nginx origin (Benchmarks/support/pageload-nginx.conf.in: HTTP, HTTPS over
# HTTP/1.1 only, HTTPS over HTTP/2), loaded in headless Chromium with a fresh profile each load;
# rows rotated round by round, each peer's loads in order within its turn (empty, warm, origin
# stopped).

pl="$work/pageload"
mkdir -p "$pl"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || die "the pageload section needs Chromium (the Debian package chromium)"
pageload() { python3 "$support/pageload.py" "$@"; }

pl_port=$(free_port)
pl_tls_port=$(free_port)
pl_h2_port=$(free_port)
pl_tls="$pl/tls"
shards=4
log "Page load: generating the game page, its origin on $pl_port (HTTPS $pl_tls_port, HTTP/2 $pl_h2_port)"
pageload generate --root "$work/origin" --name bigpage --title "Big Page" --shard-base "https://s{n}.page.test:$pl_tls_port" \
  --shards "$shards" | tee "$pl/page.json"
chmod -R a+rX "$work/origin"
mapfile -t pl_hosts < <(echo page.test; seq -f "s%g.page.test" 1 "$shards")
pageload tls --dir "$pl_tls" "${pl_hosts[@]}" || die "openssl could not make the page origin's certificate"
fill_template "$support/pageload-nginx.conf.in" "$work/pageload-nginx.conf" -e "s|@PL_PORT@|$pl_port|g" \
  -e "s|@PL_TLS_PORT@|$pl_tls_port|g" -e "s|@PL_H2_PORT@|$pl_h2_port|g" -e "s|@PL_TLS@|$pl_tls|g"
pl_origin_pid=""
pl_origin_start() {
  nginx -p "$work" -e "$work/pageload-origin-error.log" -c "$work/pageload-nginx.conf" &
  pl_origin_pid=$!; pids+=("$pl_origin_pid")
  wait_port "$pl_port" "$pl_origin_pid" "the page's origin nginx" "$work/pageload-origin-error.log"
}
pl_origin_stop() { stop_pid "$pl_origin_pid"; pl_origin_pid=""; }
pl_origin_start

# Larder resolves the page's names through a hosts file bind-mounted over /etc/hosts in a private
# mount namespace (as the https section); Chromium, going direct, through --host-resolver-rules.
{ cat /etc/hosts; printf '127.0.0.1 %s\n' "${pl_hosts[@]}"; } >"$pl/hosts"
# shellcheck disable=SC2016
pl_in_hosts=(unshare --mount --propagation private sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$pl/hosts")
if [ "$(id -u)" -ne 0 ]; then pl_in_hosts=(unshare --map-root-user "${pl_in_hosts[@]:1}"); fi
"${pl_in_hosts[@]}" getent hosts s1.page.test >/dev/null 2>&1 \
  || die "the pageload section cannot bind-mount a hosts file over /etc/hosts in a private mount namespace (it needs root or unprivileged user namespaces)"
pl_larder_ca=$("$larder" ca path --cache-dir "$pl/larder-ca")
# One HOME whose NSS database trusts the origin's CA and Larder's, copied for every load.
pageload nssdb --home "$pl/home" --ca "$pl_tls/ca.pem" --ca "$pl_larder_ca" || die "certutil could not make the NSS database"
resolve="--chromium-arg=--host-resolver-rules=MAP page.test 127.0.0.1, MAP *.page.test 127.0.0.1"

http_page="http://127.0.0.1:$pl_port/games/bigpage/index.html"
https_page="https://page.test:$pl_tls_port/games/bigpage/index.html"
sharded_page="https://page.test:$pl_tls_port/games/bigpage/sharded.html"
h2_page="https://page.test:$pl_h2_port/games/bigpage/index.html"
curl -s -f -o /dev/null --cacert "$pl_tls/ca.pem" --resolve "page.test:$pl_h2_port:127.0.0.1" --http2 "$h2_page" \
  || die "the page's origin does not answer $h2_page"

# pl_load SCENARIO PEER ROUND URL [pageload.py load options]: one load, one line in results.jsonl
# (a failed load is recorded as failed and the run goes on).
pl_load() {
  local scenario="$1" peer="$2" r="$3" url="$4"; shift 4
  pageload load --out "$results" --scenario "$scenario" --peer "$peer" --round "$r" --url "$url" --chromium "$chromium" \
    --root "$work/origin" --name bigpage --origin-log "$work/pageload-access.log" --scratch "$pl" --home-template "$pl/home" "$@" || true
}
# pl_larder NAME [serve options]: a Larder with an empty store (Larder's CA copied in), in the
# private hosts namespace, trusting the origin's CA; sets pl_larder_pid and pl_proxy.
pl_larder() {
  local name="$1" dir="$pl/larder-$1"; shift
  mkdir -m 700 -p "$dir"
  cp -a "$(dirname "$pl_larder_ca")" "$dir/"
  launcher=("${pl_in_hosts[@]}")
  start_larder "pl-$name" "$dir" --upstream-ca "$pl_tls/ca.pem" "$@"
  launcher=()
  pl_larder_pid=${larder_pid[pl-$name]}; pl_proxy="http://127.0.0.1:${larder_port[pl-$name]}"
}
# A second visit comes after the first visit's answers are stored: a proxy may still be writing
# when the load event fires.
settle() { sleep 1; }

echo "http://127.0.0.1:$pl_port/games/bigpage" >"$pl/games.txt"
log "Page load over HTTP ($rounds rounds: origin direct, Larder, Larder precached, Squid; rotated)"
for r in $(seq 1 "$rounds"); do
  for peer in $(rotated "$((r - 1))" direct larder precached squid); do
    echo "  round $r: $peer"
    case "$peer" in
      direct)
        pageload evict --root "$work/origin" --name bigpage >/dev/null
        pl_load pageload-http direct-cold "$r" "$http_page" --label "origin direct, files out of the OS page cache"
        pl_load pageload-http direct-warm "$r" "$http_page" --label "origin direct, warm (the reference)" ;;
      larder)
        pl_larder "http-$r"
        pl_load pageload-http larder-cold "$r" "$http_page" --proxy "$pl_proxy" --label "larder, empty cache (first visit)"
        settle
        pl_load pageload-http larder-warm "$r" "$http_page" --proxy "$pl_proxy" --subject --label "larder, warm (second visit)"
        pl_origin_stop
        pl_load pageload-http larder-offline "$r" "$http_page" --proxy "$pl_proxy" --label "larder, origin stopped"
        pl_origin_start
        stop_pid "$pl_larder_pid" ;;
      precached)
        mkdir -m 700 -p "$pl/larder-pc-$r"
        "$larder" precache "$pl/games.txt" --cache-dir "$pl/larder-pc-$r" >>"$pl/precache.log" 2>&1 \
          || { tail -20 "$pl/precache.log" >&2; die "larder precache of the page failed"; }
        start_larder "pl-pc-$r" "$pl/larder-pc-$r"
        pl_load pageload-http larder-precached "$r" "$http_page" --proxy "http://127.0.0.1:${larder_port[pl-pc-$r]}" \
          --label "larder, after larder precache of the game"
        stop_pid "${larder_pid[pl-pc-$r]}" ;;
      squid)
        port=$(free_port)
        fill_template "$support/squid.conf.in" "$pl/squid-$r.conf" -e "s|@SQUID_DIR@|$pl/squid-$r|g" -e "s|@SQUID_PORT@|$port|g"
        mkdir -p "$pl/squid-$r/cache"
        if [ -n "$squid_user" ]; then chown -R "$squid_user" "$pl/squid-$r"; fi
        start_squid "pl-$r" "$pl/squid-$r.conf" "$pl/squid-$r" "$port"
        pl_load pageload-http squid-cold "$r" "$http_page" --proxy "http://127.0.0.1:$port" --label "squid, empty cache"
        settle
        pl_load pageload-http squid-warm "$r" "$http_page" --proxy "http://127.0.0.1:$port" --label "squid, warm"
        pl_origin_stop
        pl_load pageload-http squid-offline "$r" "$http_page" --proxy "http://127.0.0.1:$port" --label "squid, origin stopped"
        pl_origin_start
        stop_pid "$squid_started" ;;
    esac
  done
done

log "Page load over HTTPS ($rounds rounds: origin direct over HTTP/1.1, HTTP/2 and sharded; Larder, intercepted TLS; rotated)"
for r in $(seq 1 "$rounds"); do
  for peer in $(rotated "$((r - 1))" direct-h1 direct-h2 larder); do
    echo "  round $r: $peer"
    case "$peer" in
      direct-h1)
        pl_load pageload-https direct-h1-warm "$r" "$https_page" "$resolve" --label "origin direct, HTTP/1.1 (the reference)"
        pl_load pageload-https direct-h1-sharded "$r" "$sharded_page" "$resolve" --label "origin direct, HTTP/1.1, files over $shards hosts" ;;
      direct-h2)
        pl_load pageload-https direct-h2-warm "$r" "$h2_page" "$resolve" --label "origin direct, HTTP/2" ;;
      larder)
        pl_larder "https-$r"
        pl_load pageload-https larder-cold "$r" "$https_page" --proxy "$pl_proxy" --label "larder, empty cache (first visit)"
        settle
        pl_load pageload-https larder-warm "$r" "$https_page" --proxy "$pl_proxy" --subject --label "larder, warm (second visit)"
        pl_load pageload-https larder-sharded-cold "$r" "$sharded_page" --proxy "$pl_proxy" --label "larder, files over $shards hosts, empty cache"
        settle
        pl_load pageload-https larder-sharded-warm "$r" "$sharded_page" --proxy "$pl_proxy" --label "larder, files over $shards hosts, warm"
        pl_origin_stop
        pl_load pageload-https larder-offline "$r" "$https_page" --proxy "$pl_proxy" --label "larder, origin stopped"
        pl_origin_start
        stop_pid "$pl_larder_pid" ;;
    esac
  done
done
pl_origin_stop
pageload table --results "$results" | tee "$pl/table.md"
page_note=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["description"])' "$work/origin/pageload-bigpage.json")
notes+=("Page load: $page_note, generated by Benchmarks/support/pageload.py (the demo's own games have about 6 files each); $("$chromium" --version 2>/dev/null | head -1), headless, a fresh profile and HOME each load (its cache never answers), driven over the DevTools protocol; the time is the Navigation Timing entry's loadEventEnd, and a load counts only if every listed file loaded with status 200 (scripts ran, images decoded, sounds and fonts loaded). Origin: its own nginx (1 worker), stopped for the origin-stopped loads; Larder and Squid started afresh (empty) for each round.")
