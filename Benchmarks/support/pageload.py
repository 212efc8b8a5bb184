#!/usr/bin/env python3
"""A page load in a browser, for Benchmarks/run's `pageload` section (issue 43, item 5).

Subcommands:

  generate  a game page of the demo's shape (Examples/site/games/*: index.html, assets/, the
            game's offline.meta.json and metadata.json) scaled to 120+ files: scripts, stylesheets,
            images, sounds and fonts of realistic sizes, several MiB in all. The demo's own games
            have about 6 files each, too few to show what a browser's parallel requests cost.
  tls       a test CA and one certificate for the page's HTTPS names (openssl)
  nssdb     a HOME whose NSS database trusts some CAs (what a user does with certutil); every
            load copies it, so Chromium trusts the origin's CA and Larder's without
            --ignore-certificate-errors
  evict     drops the page's files from the OS page cache (posix_fadvise DONTNEED): a cold origin
  load      one load in a fresh headless Chromium (its own profile and HOME, so its cache never
            answers), driven over the DevTools protocol; appends one JSON line: navigation start
            to the load event (Navigation Timing 2), every resource checked
  table     the pageload rows of a results.jsonl as a Markdown table (ratios against the direct
            warm load of the same round)

Standard library only (the DevTools client is the end-to-end tests' own,
Tests/Fixtures/devtools.py).
"""

import argparse
import json
import os
import random
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Fixtures"))
from devtools import DevTools, close  # noqa: E402
from bench import append, count_lines, lines_after  # noqa: E402  (beside this file)

# --------------------------------------------------------------------------------------------
# The page


def log_uniform(rng, low, high):
    return int(round(low * (high / low) ** rng.random()))


def png(rng, size):
    """A valid PNG of noise (so it neither compresses nor decodes to nothing) of about `size` bytes."""
    pixels = max(1, size // 3)
    width = max(1, min(512, int(pixels ** 0.5)))
    height = max(1, pixels // width)
    raw = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b""))


def wav(rng, size):
    """A valid 8-bit mono 22,050 Hz WAV of about `size` bytes."""
    samples = max(64, size - 44)
    data = bytes(128 + int(40 * ((i * 7919) % 97 - 48) / 48) for i in range(min(samples, 4096)))
    data = (data * (samples // len(data) + 1))[:samples]
    header = (b"RIFF" + struct.pack("<I", 36 + samples) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, 22050, 22050, 1, 8)
              + b"data" + struct.pack("<I", samples))
    return header + data


def filler_text(rng, size):
    words = ["tile", "board", "score", "level", "sprite", "sound", "flip", "word", "grid", "timer", "player", "state"]
    out = []
    total = 0
    while total < size:
        w = rng.choice(words) + rng.randbytes(6).hex()
        out.append(w)
        total += len(w) + 1
    return " ".join(out)


def script(rng, index, size):
    body = [f"// generated game module {index}\n", "(function () {\n",
            f"  var table{index} = {json.dumps(filler_text(rng, max(0, size - 300)))};\n",
            "  window.__pageScripts = (window.__pageScripts || 0) + 1;\n",
            f"  window.__tables = (window.__tables || 0) + table{index}.length;\n", "})();\n"]
    return "".join(body).encode()


def stylesheet(rng, index, size, fonts):
    rules = []
    if index == 0:
        for i, font in enumerate(fonts):
            rules.append(f"@font-face {{ font-family: 'Game{i}'; src: url('{font}') format('truetype'); }}\n")
        for i in range(len(fonts)):
            rules.append(f".font-{i} {{ font-family: 'Game{i}', sans-serif; }}\n")
    total = sum(map(len, rules))
    n = 0
    while total < size:
        rule = f".g{index}-{n}-{rng.randbytes(4).hex()} {{ margin: {n % 7}px; color: #{rng.randbytes(3).hex()}; }}\n"
        rules.append(rule)
        total += len(rule)
        n += 1
    return "".join(rules).encode()


def system_fonts(limit=3, largest=450 * 1024):
    found = []
    for folder, _, names in sorted(os.walk("/usr/share/fonts")):
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".ttf") and 30 * 1024 < os.path.getsize(path) <= largest:
                found.append(path)
    return found[:limit]


def cmd_generate(args):
    """The game page in ROOT/GAMES/NAME: index.html, assets/..., offline.meta.json (listed
    relative to ROOT/GAMES, as the demo's are) and metadata.json; with --shard-base, also
    sharded.html, the same page with its assets spread over N hosts (absolute URLs)."""
    rng = random.Random(43)   # the same page every run
    game = os.path.join(args.root, args.games, args.name)
    assets = os.path.join(game, "assets")
    os.makedirs(assets, exist_ok=True)
    files = []   # (relative path in the game folder, kind)

    def write(rel, data):
        path = os.path.join(game, rel)
        with open(path, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())   # clean pages, so that `evict` can drop them

    fonts = []
    for i, path in enumerate(system_fonts()):
        rel = f"assets/font-{i}-{rng.randbytes(4).hex()}.ttf"
        shutil.copyfile(path, os.path.join(game, rel))
        fonts.append(rel)
        files.append((rel, "font"))
    icon = "assets/favicon-" + rng.randbytes(4).hex() + ".png"
    write(icon, png(rng, 1500))
    files.append((icon, "icon"))
    counts = {"script": args.scripts, "style": args.styles, "image": args.images, "sound": args.sounds}
    sizes = {"script": (2 * 1024, 120 * 1024), "style": (1024, 40 * 1024), "image": (1024, 200 * 1024), "sound": (16 * 1024, 200 * 1024)}
    for kind, count in counts.items():
        for i in range(count):
            size = log_uniform(rng, *sizes[kind])
            tag = rng.randbytes(4).hex()
            if kind == "script":
                rel = f"assets/chunk-{i:02d}-{tag}.js"
                write(rel, script(rng, i, size))
            elif kind == "style":
                rel = f"assets/style-{i:02d}-{tag}.css"
                write(rel, stylesheet(rng, i, size, [os.path.relpath(f, "assets") for f in fonts]))
            elif kind == "image":
                rel = f"assets/sprite-{i:02d}-{tag}.png"
                write(rel, png(rng, size))
            else:
                rel = f"assets/sound-{i:02d}-{tag}.wav"
                write(rel, wav(rng, size))
            files.append((rel, kind))

    def page(prefix_of):
        head, body = [], []
        for rel, kind in files:
            url = prefix_of(rel) + rel
            if kind == "icon":
                head.append(f'  <link rel="icon" href="{url}">')
            elif kind == "style":
                head.append(f'  <link rel="stylesheet" href="{url}">')
            elif kind == "script":
                head.append(f'  <script defer src="{url}"></script>')
            elif kind == "image":
                body.append(f'    <img src="{url}" alt="" width="32" height="32">')
            elif kind == "sound":
                # Sounds are what a game decodes before its first frame: preloaded, so the load
                # event waits for them, and an <audio> element for each as the demo's games have.
                head.append(f'  <link rel="preload" as="fetch" crossorigin href="{url}">')
                body.append(f'    <audio preload="auto" src="{url}"></audio>')
        text = "".join(f'    <p class="font-{i}">{filler_text(rng, 60)}</p>\n' for i in range(len(fonts)))
        return ("<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n"
                "  <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                f"  <title>{args.title}</title>\n" + "\n".join(head) + "\n</head>\n<body>\n  <header>\n"
                "    <a href=\"../../index.html\">&larr; Larder demo</a>\n"
                f"    <h1>{args.title}</h1>\n  </header>\n  <main>\n{text}" + "\n".join(body) + "\n  </main>\n</body>\n</html>\n").encode()

    write("index.html", page(lambda rel: "./"))
    names = ["index.html"] + [rel for rel, _ in files]
    if args.shard_base:
        # Asset i on shard (i mod N) + 1: a browser opens its 6 connections per host to each.
        index = {rel: n for n, (rel, _) in enumerate(files)}
        shard_prefix = lambda rel: args.shard_base.replace("{n}", str(index[rel] % args.shards + 1)) + f"/{args.games}/{args.name}/"
        write("sharded.html", page(shard_prefix))
    manifest = {"files": [f"{args.name}/{n}" for n in names], "skip": False}
    with open(os.path.join(game, "offline.meta.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with open(os.path.join(game, "metadata.json"), "w") as f:
        json.dump({"displayName": args.title}, f)
    total = sum(os.path.getsize(os.path.join(game, n)) for n in names)
    kinds = {}
    for _, kind in files:
        kinds[kind] = kinds.get(kind, 0) + 1
    summary = {"files": len(names), "bytes": total, "kinds": kinds, "fonts_from": [os.path.basename(f) for f in system_fonts()]}
    summary["description"] = (f"{len(names)} files, {total / 1048576:.1f} MiB (the page, "
                              + ", ".join(f"{v} {k}s" for k, v in kinds.items()) + ")")
    with open(os.path.join(args.root, f"pageload-{args.name}.json"), "w") as f:
        json.dump(summary, f)
    print(json.dumps(summary))


def page_files(root, games, name):
    """The page's files, as offline.meta.json lists them, relative to the game folder."""
    manifest = json.load(open(os.path.join(root, games, name, "offline.meta.json")))
    return [f.split("/", 1)[1] for f in manifest["files"]]


def cmd_evict(args):
    game = os.path.join(args.root, args.games, args.name)
    dropped = 0
    for rel in page_files(args.root, args.games, args.name) + ["sharded.html"]:
        path = os.path.join(game, rel)
        if not os.path.exists(path):
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            dropped += 1
        finally:
            os.close(fd)
    print(f"evicted {dropped} files from the page cache")


# --------------------------------------------------------------------------------------------
# TLS


def cmd_tls(args):
    os.makedirs(args.dir, exist_ok=True)
    d = args.dir
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)
    ca_ext = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
        "-subj", "/CN=Larder pageload origin CA", *ca_ext, "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem")
    run("openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-subj", f"/CN={args.hosts[0]}", "-keyout", f"{d}/origin.key", "-out", f"{d}/origin.csr")
    with open(f"{d}/origin.ext", "w") as f:
        f.write("subjectAltName=" + ",".join(f"DNS:{h}" for h in args.hosts) + "\n")
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
        f.write("subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    run("openssl", "x509", "-req", "-in", f"{d}/origin.csr", "-CA", f"{d}/ca.pem", "-CAkey", f"{d}/ca.key", "-CAcreateserial",
        "-days", "2", "-extfile", f"{d}/origin.ext", "-out", f"{d}/origin.pem")
    for name in os.listdir(d):
        os.chmod(os.path.join(d, name), 0o644)


def cmd_nssdb(args):
    db = os.path.join(args.home, ".pki", "nssdb")
    os.makedirs(db, exist_ok=True)
    subprocess.run(["certutil", "-d", "sql:" + db, "-N", "--empty-password"], check=True, capture_output=True)
    for i, ca in enumerate(args.ca):
        subprocess.run(["certutil", "-d", "sql:" + db, "-A", "-t", "C,,", "-n", f"ca-{i}", "-i", ca], check=True, capture_output=True)


# --------------------------------------------------------------------------------------------
# Chromium over the DevTools protocol


MEASURE = """JSON.stringify((() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource').map(r => ({
    name: r.name, status: r.responseStatus, protocol: r.nextHopProtocol, size: r.encodedBodySize,
    end: r.responseEnd, start: r.startTime, wait: r.responseStart - r.requestStart,
    queued: r.requestStart - r.startTime, body: r.responseEnd - r.responseStart}));
  return {nav: nav ? {load: nav.loadEventEnd, dcl: nav.domContentLoadedEventEnd, response: nav.responseEnd,
    status: nav.responseStatus, protocol: nav.nextHopProtocol} : null, resources: res,
    scripts: window.__pageScripts || 0, sheets: document.styleSheets.length,
    images: [...document.images].filter(i => i.complete && i.naturalWidth > 0).length,
    audio: [...document.querySelectorAll('audio')].filter(a => a.readyState >= 1 && !a.error).length,
    fonts: [...document.fonts].filter(f => f.status === 'loaded').length};
})())"""


def launch(chromium, home, proxy, extra):
    profile = os.path.join(home, "profile")
    os.makedirs(profile, exist_ok=True)
    arguments = [
        chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--mute-audio", "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
    ]
    if proxy:
        # `<-loopback>` removes Chromium's implicit bypass, so 127.0.0.1 origins go through the proxy too.
        arguments += [f"--proxy-server={proxy}", "--proxy-bypass-list=<-loopback>;*.google.com;*.googleapis.com;*.gvt1.com"]
    else:
        arguments += ["--no-proxy-server"]
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env["HOME"] = home
    browser = subprocess.Popen(arguments + extra + ["about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.time() + 30
    while not os.path.exists(port_file) or len(open(port_file).read().splitlines()) < 2:
        if time.time() > deadline or browser.poll() is not None:
            browser.kill()
            raise RuntimeError("Chromium did not open its DevTools port")
        time.sleep(0.02)
    return browser, open(port_file).read().splitlines()[0]


def load_once(args, home):
    extra = list(args.chromium_arg or [])
    browser, port = launch(args.chromium, home, args.proxy, extra)
    try:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        targets = json.loads(opener.open(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t.get("type") == "page")
        devtools = DevTools(page["webSocketDebuggerUrl"])
        devtools.call("Page.enable")
        devtools.call("Page.navigate", {"url": args.url})
        fired = devtools.wait_event("Page.loadEventFired", args.timeout)
        if fired is None:
            return {"error": f"no load event within {args.timeout:g} s"}
        # Anything the page still fetches after the load event (nothing should) is waited for,
        # up to a few seconds, so that it is counted; the time stays the load event's.
        # (Fonts that a cross-origin stylesheet asked for get no Resource Timing entry: they are
        # counted through document.fonts instead.)
        expected = sum(not f.endswith(".ttf") for f in args.expect_files)
        deadline = time.time() + 5
        while True:
            measured = json.loads(devtools.evaluate(MEASURE))
            done = {r["name"] for r in measured["resources"] if r["end"] > 0 and not r["name"].endswith(".ttf")}
            if len(done) >= expected or time.time() > deadline:
                break
            time.sleep(0.1)
        return measured
    finally:
        close(browser, port)


def cmd_load(args):
    # The favicon is fetched by the browser, not the document: it is in no Resource Timing entry.
    args.expect_files = [f for f in page_files(args.root, args.games, args.name) if f != "index.html" and "favicon-" not in f]
    origin_before = count_lines(args.origin_log)
    home = tempfile.mkdtemp(prefix="chromium-", dir=args.scratch)
    if args.home_template:
        shutil.copytree(args.home_template, home, dirs_exist_ok=True)
    started = time.time()
    try:
        measured = load_once(args, home)
    except Exception as error:  # a driver failure is the load's failure
        measured = {"error": f"driver: {error}"}
    finally:
        shutil.rmtree(home, ignore_errors=True)
    record = {"scenario": args.scenario, "peer": args.peer, "round": args.round, "unit": "ms", "better": "lower",
              "metric": "navigation start to the load event"}
    if args.label:
        record["label"] = args.label
    if args.subject:
        record["subject"] = True
    record["wall_s"] = round(time.time() - started, 2)
    if args.origin_log:
        record["origin_requests"] = count_lines(args.origin_log) - origin_before
        conns = set()
        for line in lines_after(args.origin_log, origin_before):
            parts = line.split()
            if parts and parts[0].isdigit():
                conns.add(parts[0])
        if conns:
            record["origin_connections"] = len(conns)
    if "error" in measured:
        record["error"] = measured["error"]
        record["value"] = None
        append(args.out, record, BRIEF_FIELDS)
        return 1
    nav = measured["nav"] or {}
    resources = measured["resources"]
    by_path = {}
    for r in resources:
        by_path.setdefault(r["name"].split("?")[0].rsplit(f"/{args.name}/", 1)[-1], r)
    missing = [f for f in args.expect_files if (f not in by_path or by_path[f]["end"] <= 0) and not f.endswith(".ttf")]
    # Cross-origin (sharded) resources report status 0 unless the origin sends Timing-Allow-Origin.
    bad = sorted({f"{f}: {by_path[f]['status']}" for f in args.expect_files if f in by_path and by_path[f]["status"] not in (0, 200)})
    late = [f for f in args.expect_files if f in by_path and by_path[f]["end"] > nav.get("load", 0)]
    kinds = {"scripts": (".js", measured["scripts"]), "images": (".png", measured["images"]), "audio": (".wav", measured["audio"]),
             "sheets": (".css", measured["sheets"]), "fonts": (".ttf", measured["fonts"])}
    short = {k: (got, sum(f.endswith(ext) for f in args.expect_files)) for k, (ext, got) in kinds.items()
             if got < sum(f.endswith(ext) for f in args.expect_files)}
    protocols = sorted({r["protocol"] for r in resources if r["protocol"]})
    record.update(value=round(nav.get("load", 0), 1) if nav.get("load") else None,
                  dcl_ms=round(nav.get("dcl", 0), 1), document_ms=round(nav.get("response", 0), 1),
                  last_resource_ms=round(max((r["end"] for r in resources), default=0), 1),
                  resources=len(resources), expected=len(args.expect_files), protocols=protocols,
                  bytes=sum(r["size"] or 0 for r in resources), document_status=nav.get("status"))
    if late:
        record["late"] = len(late)
    # Where a load's time goes, per resource (medians): queued before its request was sent (a free
    # connection, a tunnel, a handshake), waiting for the first byte of the answer, the body.
    timed = [r for r in resources if r.get("wait") is not None and r["wait"] >= 0 and r["start"] > 0]
    for field in ("queued", "wait", "body"):
        values = [r[field] for r in timed if r.get(field) is not None and r[field] >= 0]
        if values:
            record[f"{field}_median_ms"] = round(statistics.median(values), 2)
            record[f"{field}_p90_ms"] = round(sorted(values)[int(0.9 * (len(values) - 1))], 2)
    problems = []
    if nav.get("status") not in (0, 200):
        problems.append(f"the page answered {nav.get('status')}")
    if missing:
        problems.append(f"{len(missing)} of {len(args.expect_files)} resources did not load (e.g. {missing[0]})")
    if bad:
        problems.append(f"statuses {', '.join(bad[:3])}")
    if short:
        problems.append("elements not loaded: " + ", ".join(f"{k} {a} of {b}" for k, (a, b) in short.items()))
    if record["value"] is None:
        problems.append("no load event time")
    if problems:
        record["error"] = "; ".join(problems)
        record["failed_value"] = record["value"]
        record["value"] = None   # a partial page is not a load
    append(args.out, record, BRIEF_FIELDS)
    return 1 if problems else 0


# --------------------------------------------------------------------------------------------
# Records (the same lines bench.py writes and summarises)


# What a load's record shows as it is written.
BRIEF_FIELDS = ("scenario", "peer", "round", "value", "resources", "origin_requests", "origin_connections", "protocols", "error")


# --------------------------------------------------------------------------------------------
# The table


REFERENCE = {"pageload-http": "direct-warm", "pageload-https": "direct-h1-warm"}


def cmd_table(args):
    records = [json.loads(l) for l in open(args.results) if l.strip()]
    records = [r for r in records if r.get("scenario", "").startswith("pageload")]
    print("| Scenario | Load | Navigation start to load event (median) | min–max | ÷ direct warm (median of rounds) | per file: queued / first byte / body (ms, medians) | resources | origin requests (connections) | protocol | failed |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for scenario in ("pageload-http", "pageload-https"):
        rows = [r for r in records if r["scenario"] == scenario]
        if not rows:
            continue
        reference = {r["round"]: r["value"] for r in rows if r["peer"] == REFERENCE[scenario] and r.get("value")}
        peers = []
        for r in rows:
            if r["peer"] not in peers:
                peers.append(r["peer"])
        title = {"pageload-http": "HTTP", "pageload-https": "HTTPS"}[scenario]
        for peer in peers:
            rs = [r for r in rows if r["peer"] == peer]
            values = [r["value"] for r in rs if r.get("value")]
            quotients = [r["value"] / reference[r["round"]] for r in rs if r.get("value") and reference.get(r["round"])]
            med = statistics.median(values) if values else None
            origin = [r.get("origin_requests") for r in rs if r.get("origin_requests") is not None]
            conns = [r.get("origin_connections") for r in rs if r.get("origin_connections") is not None]
            protocols = sorted({p for r in rs for p in r.get("protocols", [])})
            resources = [r.get("resources") for r in rs if r.get("resources") is not None]
            print(f"| {title} | {rs[0].get('label', peer)} | {f'{med:.0f} ms' if med else 'failed'} | "
                  f"{f'{min(values):.0f}–{max(values):.0f}' if values else ''} | "
                  f"{f'{statistics.median(quotients):.2f}x' if quotients else ''} | "
                  f"{per_file(rs)} | "
                  f"{statistics.median(resources):.0f} | "
                  f"{statistics.median(origin):.0f}" + (f" ({statistics.median(conns):.0f})" if conns else "") + " | "
                  f"{', '.join(protocols)} | {sum(1 for r in rs if r.get('error'))} of {len(rs)} |")


    https = [r for r in records if r["scenario"] == "pageload-https"]
    if https:
        print()
        for line in connection_lines(https):
            print(f"- {line}")


def per_file(rs):
    cells = []
    for field in ("queued", "wait", "body"):
        values = [r[f"{field}_median_ms"] for r in rs if r.get(f"{field}_median_ms") is not None and r.get("value")]
        cells.append(f"{statistics.median(values):.1f}" if values else "–")
    return " / ".join(cells)


def quotient(rows, a, b):
    """The median over rounds of peer a's load time divided by peer b's in the same round."""
    by = {}
    for r in rows:
        if r.get("value"):
            by.setdefault(r["peer"], {})[r["round"]] = r["value"]
    q = [by[a][n] / by[b][n] for n in by.get(a, {}) if n in by.get(b, {})]
    return statistics.median(q) if q else None


def connection_lines(rows):
    """Whether Chromium's 6 connections per host are the limit over HTTPS, and what HTTP/2 inside
    Larder's intercepted TLS would gain (estimated from the origin direct over HTTP/2)."""
    med = lambda peer: statistics.median([r["value"] for r in rows if r["peer"] == peer and r.get("value")] or [0]) or None
    out = []
    h2 = quotient(rows, "direct-h2-warm", "direct-h1-warm")
    shard = quotient(rows, "direct-h1-sharded", "direct-h1-warm")
    larder_shard = quotient(rows, "larder-sharded-warm", "larder-warm")
    warm = quotient(rows, "larder-warm", "direct-h1-warm")
    if h2 is not None:
        out.append(f"Origin direct over HTTP/2 (one connection) ÷ over HTTP/1.1 (6 connections): {h2:.2f}x")
    if shard is not None:
        out.append(f"Origin direct over HTTP/1.1 with the files over 4 hosts (6 connections to each) ÷ one host: {shard:.2f}x")
    if larder_shard is not None:
        out.append(f"Larder warm with the files over 4 hosts (6 tunnels to each) ÷ one host (6 tunnels): {larder_shard:.2f}x")
    if h2 is not None and warm is not None and med("larder-warm"):
        out.append(f"Estimate, Larder warm with ALPN h2 inside the intercepted TLS (its warm load times the origin's "
                   f"HTTP/2 ÷ HTTP/1.1): {med('larder-warm') * h2:.0f} ms, {warm * h2:.2f}x the direct HTTP/1.1 warm load "
                   f"(now {warm:.2f}x)")
    return out


# --------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)

    p = sub.add_parser("generate")
    p.add_argument("--root", required=True, help="the origin's document root")
    p.add_argument("--games", default="games")
    p.add_argument("--name", default="bigpage")
    p.add_argument("--title", default="Big Page")
    p.add_argument("--scripts", type=int, default=30)
    p.add_argument("--styles", type=int, default=12)
    p.add_argument("--images", type=int, default=60)
    p.add_argument("--sounds", type=int, default=20)
    p.add_argument("--shard-base", help="e.g. https://s{n}.page.test:PORT: also write sharded.html")
    p.add_argument("--shards", type=int, default=4)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("evict")
    p.add_argument("--root", required=True)
    p.add_argument("--games", default="games")
    p.add_argument("--name", default="bigpage")
    p.set_defaults(func=cmd_evict)

    p = sub.add_parser("tls")
    p.add_argument("--dir", required=True)
    p.add_argument("hosts", nargs="+")
    p.set_defaults(func=cmd_tls)

    p = sub.add_parser("nssdb")
    p.add_argument("--home", required=True)
    p.add_argument("--ca", action="append", required=True)
    p.set_defaults(func=cmd_nssdb)

    p = sub.add_parser("load")
    p.add_argument("--out", required=True)
    p.add_argument("--scenario", required=True)
    p.add_argument("--peer", required=True)
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--label")
    p.add_argument("--subject", action="store_true")
    p.add_argument("--chromium", default="chromium")
    p.add_argument("--url", required=True)
    p.add_argument("--proxy")
    p.add_argument("--chromium-arg", action="append", help="an extra Chromium flag (repeatable)")
    p.add_argument("--home-template", help="a HOME to copy (its NSS database)")
    p.add_argument("--scratch", help="where the fresh HOME and profile go")
    p.add_argument("--root", required=True)
    p.add_argument("--games", default="games")
    p.add_argument("--name", default="bigpage")
    p.add_argument("--origin-log")
    p.add_argument("--timeout", type=float, default=60)
    p.set_defaults(func=cmd_load)

    p = sub.add_parser("table")
    p.add_argument("--results", required=True)
    p.set_defaults(func=cmd_table)

    args = parser.parse_args()
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
