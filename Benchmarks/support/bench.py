#!/usr/bin/env python3
"""Measurements and the summary for Benchmarks/run.

Each measuring subcommand runs one thing once and appends one JSON line to --out:

  wrk        wrk with Benchmarks/support/proxy.lua, sampling the servers' memory meanwhile
  cmd        a command (a download, a precache), timed, with its own and the servers' memory
  coldstart  launches `larder serve` and polls until the first hit answers
  render     median time of GETs of Larder's own pages (/dev/offline...)
  visits     HTTPS visits by curl, one new connection each (one after another, or clients at once)
  cpu        the servers' CPU time (utime + stime of every process) since a mark, per visit
  tlsload    keep-alive HTTPS hits by Benchmarks/support/tlsload.c (through CONNECT or direct)
  rss        the servers' summed RSS now, or their peak since they started

`summary` reads those lines and prints the table (the median over rounds of every figure; a
ratio is the median over rounds of the two figures' quotient in the same round), the targets of
issues 18 and 34 with met or missed, and writes the "Peers" section of Benchmarks/RESULTS.md.

Memory: the peak RSS of a server is the sum, over its processes (the root and every descendant,
e.g. nginx's master and workers, Squid and its helpers), of VmHWM after the peak was reset by
writing 5 to /proc/PID/clear_refs just before the run; where that is not allowed, the largest
sum of VmRSS sampled every 20 ms. Growth is that peak minus the VmRSS sum just before the run.
"""

import argparse
import datetime
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time

# --------------------------------------------------------------------------------------------
# Processes and memory


def process_tree(roots):
    """The given pids and all their descendants that exist now."""
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
            # The command name is in parentheses and may contain spaces.
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
            parents[int(name)] = ppid
        except (OSError, ValueError, IndexError):
            continue
    found = [p for p in roots if p in parents]
    queue = list(found)
    while queue:
        parent = queue.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found.append(pid)
                queue.append(pid)
    return found


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class MemoryWatch:
    """Peak and growth of the summed RSS of some process trees while something runs."""

    def __init__(self, roots):
        self.pids = process_tree(roots) if roots else []
        self.reset_ok = all(reset_peak(p) for p in self.pids) if self.pids else False
        self.before = sum(status_kib(p, "VmRSS") for p in self.pids)
        self.sampled_max = self.before
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self):
        while not self._stop.is_set():
            total = sum(status_kib(p, "VmRSS") for p in self.pids)
            self.sampled_max = max(self.sampled_max, total)
            self._stop.wait(0.02)

    def __enter__(self):
        if self.pids:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self.pids:
            self._thread.join()
        hwm = sum(status_kib(p, "VmHWM") for p in self.pids) if self.reset_ok else 0
        self.peak = max(hwm, self.sampled_max)
        self.growth = self.peak - self.before
        return False

    def fields(self):
        if not self.pids:
            return {}
        return {
            "peak_rss_kib": self.peak,
            "rss_before_kib": self.before,
            "rss_growth_kib": self.growth,
            "rss_method": "VmHWM after clear_refs" if self.reset_ok else "sampled VmRSS",
            "processes": len(self.pids),
        }


def count_lines(path):
    """Lines in the file at `path` (0 when it is not there yet: a log not yet written); None for no path."""
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def lines_after(path, start):
    """Access-log lines from line `start` on (0-based)."""
    try:
        with open(path, errors="replace") as f:
            return f.readlines()[start:]
    except OSError:
        return []


BRIEF_FIELDS = ("scenario", "peer", "round", "value", "unit", "p99_ms", "peak_rss_kib", "origin_requests")


def append(out, record, brief_fields=BRIEF_FIELDS):
    """Appends `record` (dated, with the load average) to the results file `out` and prints its
    `brief_fields`."""
    record["time"] = datetime.datetime.now().isoformat(timespec="seconds")
    try:
        record["load1"] = float(open("/proc/loadavg").read().split()[0])
    except (OSError, ValueError):
        pass
    with open(out, "a") as f:
        f.write(json.dumps(record) + "\n")
    brief = {k: record[k] for k in brief_fields if k in record}
    print("  " + json.dumps(brief), flush=True)


def base_record(args):
    record = {"scenario": args.scenario, "peer": args.peer, "round": args.round}
    if args.label:
        record["label"] = args.label
    if args.subject:
        record["subject"] = True
    return record


def pids_of(text):
    return [int(p) for p in (text or "").replace(",", " ").split() if p.strip()]


# --------------------------------------------------------------------------------------------
# Subcommands


def cmd_wrk(args):
    """One wrk run (plus, with --during-post, a precache job started in Larder right before)."""
    env = dict(os.environ, TARGET_PATH=args.path or "", TARGET_HOST=args.host or "")
    command = ["wrk", "-t", str(args.threads), "-c", str(args.connections), "-d", f"{args.duration:g}s",
               "--timeout", "10s", "--latency", "-s", args.lua, args.connect]
    if args.cpus:
        command = ["taskset", "-c", args.cpus] + command
    origin_before = count_lines(args.origin_log)
    job = None
    if args.during_post:
        job = start_precache_job(args.during_post, args.during_body)
    with MemoryWatch(pids_of(args.pids)) as memory:
        result = subprocess.run(command, env=env, capture_output=True, text=True)
    record = base_record(args)
    if job is not None:
        status = job_status(args.during_post, job)
        record["background"] = {"job": job, "state_when_wrk_ended": status.get("state"),
                                "files_done_when_wrk_ended": status.get("filesDone"),
                                "files_to_fetch": status.get("filesToFetch")}
        final = wait_job(args.during_post, job, 600)
        record["background"]["final_state"] = final.get("state")
        record["background"]["final_files_done"] = final.get("filesDone")
    line = next((l for l in result.stdout.splitlines() if l.startswith("BENCH_JSON ")), None)
    if result.returncode != 0 or line is None:
        record.update(error=f"wrk exited {result.returncode}: {result.stderr.strip()[:300]}", value=None)
        append(args.out, record)
        return 1
    w = json.loads(line[len("BENCH_JSON "):])
    errors = {k: w[k] for k in w if k.startswith("errors_") and w[k]}
    record.update(kind="wrk", metric="req/s", value=w["rps"], unit="req/s", better="higher",
                  p50_ms=w["p50_ms"], p90_ms=w["p90_ms"], p99_ms=w["p99_ms"], max_ms=w["max_ms"],
                  requests=w["requests"], bytes=w["bytes"], duration_s=w["duration_s"],
                  connections=args.connections, errors=errors)
    record.update(memory.fields())
    if origin_before is not None:
        record["origin_requests"] = count_lines(args.origin_log) - origin_before
    append(args.out, record)
    return 0


def http_json(method, url, body=None, content_type="application/json"):
    import urllib.request
    request = urllib.request.Request(url, data=body.encode() if body else None, method=method)
    if body:
        request.add_header("Content-Type", content_type)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=30) as response:
        return json.loads(response.read())


def start_precache_job(base, body):
    answer = http_json("POST", base.rstrip("/") + "/dev/offline/precache", body)
    return answer["id"]


def job_status(base, job):
    try:
        return http_json("GET", base.rstrip("/") + "/dev/offline/precache/" + job)
    except Exception as error:  # noqa: BLE001 - reported, not fatal
        return {"state": f"unknown ({error})"}


def wait_job(base, job, limit):
    deadline = time.monotonic() + limit
    status = {}
    while time.monotonic() < deadline:
        status = job_status(base, job)
        if status.get("state") == "finished":
            return status
        time.sleep(0.2)
    return status


def cmd_cmd(args):
    """Times one command; the servers' memory meanwhile; the command's own peak RSS."""
    command = args.command[1:] if args.command and args.command[0] == "--" else args.command
    origin_before = count_lines(args.origin_log)
    with MemoryWatch(pids_of(args.pids)) as memory:
        started = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = process.communicate()
        elapsed = time.monotonic() - started
    usage = resource_children_maxrss()
    record = base_record(args)
    record.update(kind="cmd", command=" ".join(command)[:300], exit_status=process.returncode, seconds=elapsed)
    if process.returncode != 0:
        record["error"] = f"exit {process.returncode}: {(err or out).strip()[-300:]}"
    if args.bytes:
        record.update(metric="throughput", value=args.bytes / elapsed / 1048576, unit="MiB/s", better="higher")
    else:
        record.update(metric="time", value=elapsed, unit="s", better="lower")
    if args.own_rss:
        record["peak_rss_kib"] = usage
        record["rss_of"] = "the command itself"
        record.update({k: v for k, v in memory.fields().items() if k != "peak_rss_kib"})
        if memory.pids:
            record["server_peak_rss_kib"] = memory.peak
    else:
        record.update(memory.fields())
    if origin_before is not None:
        new = lines_after(args.origin_log, origin_before)
        record["origin_requests"] = len(new)
        paths = {}
        for line in new:
            m = re.search(r'"[A-Z]+ (\S+)', line)
            if m:
                kind = "manifest" if m.group(1).endswith(("offline.meta.json", "metadata.json")) else ("page" if m.group(1).endswith(".html") else "file")
                paths[kind] = paths.get(kind, 0) + 1
        record["origin_requests_by_kind"] = paths
    if args.expect_status and out.strip():
        record["curl"] = out.strip()[:200]
    append(args.out, record)
    return 0 if process.returncode == 0 else 1


def resource_children_maxrss():
    import resource
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux; max over children so far


def http_get_once(port, target, host, timeout=2.0):
    """One absolute- or origin-form GET on a new connection; (status, headers) or None."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
    lines = head.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cmd_coldstart(args):
    """Launch `larder serve` on a store and poll (every 2 ms) until the first hit answers."""
    port = free_port()
    command = [args.larder, "serve", "--cache-dir", args.cache_dir, "--port", str(port), "--log-level", "warning"] + args.extra
    log = open(args.log, "ab") if args.log else subprocess.DEVNULL
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=log, stderr=log)
    result = None
    listening_ms = None
    while time.monotonic() - started < args.timeout:
        try:
            status, headers = http_get_once(port, args.target, args.host)
            if listening_ms is None:
                listening_ms = (time.monotonic() - started) * 1000
            if status == 200:
                result = ((time.monotonic() - started) * 1000, headers.get("cache-status", ""))
                break
        except (ConnectionRefusedError, ConnectionResetError, socket.timeout, OSError, IndexError, ValueError):
            pass
        if process.poll() is not None:
            break
        time.sleep(0.002)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    record = base_record(args)
    record.update(kind="coldstart", metric="time to first hit", unit="ms", better="lower")
    if result is None:
        record.update(value=None, error=f"no 200 within {args.timeout} s (exit {process.returncode})")
    else:
        # Without its ttl, so that the distinct answers can be listed.
        status = re.sub(r";\s*ttl=\d+", "", result[1])
        record.update(value=result[0], cache_status=status, first_answer_ms=listening_ms)
        if "hit" not in result[1]:
            record["note"] = "first 200 was not a cache hit"
    append(args.out, record)
    return 0 if result else 1


def curl_time(url):
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "--noproxy", "*", "-w", "%{http_code} %{time_total}", url],
                         capture_output=True, text=True).stdout.split()
    if not out or out[0] != "200":
        raise RuntimeError(f"GET {url} answered {out[0] if out else 'nothing'}")
    return float(out[1]) * 1000


def cmd_render(args):
    """Median curl time_total (ms) of each page; the value is the slowest page's median."""
    pages = {}
    for page in args.pages:
        url = args.base.rstrip("/") + page
        curl_time(url)
        curl_time(url)
        pages[page] = statistics.median(curl_time(url) for _ in range(args.requests))
    record = base_record(args)
    worst = max(pages, key=pages.get)
    record.update(kind="render", metric="slowest page", value=pages[worst], unit="ms", better="lower",
                  slowest_page=worst, pages=pages, requests=args.requests)
    append(args.out, record)
    return 0


def cpu_seconds(roots):
    """User plus system CPU time of the process trees so far (their threads, and children they waited for)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in process_tree(roots):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, ValueError, IndexError):
            continue
    return total / ticks


CURL_WRITE_OUT = "%{http_code} %{time_total} %{size_download} %header{cache-status}%header{x-cache}\\n"


def curl_visits(args, hosts):
    """The curl command that visits each host once, one after another (one new connection each)."""
    command = ["curl", "-s", "--http1.1", "--max-time", "30", "--cacert", args.cafile, "-w", CURL_WRITE_OUT]
    if args.proxy:
        command += ["-x", args.proxy]
    else:
        command += ["--noproxy", "*"] + [x for h in hosts for x in ("--resolve", f"{h}:{args.port}:127.0.0.1")]
    for h in hosts:
        command += ["-o", "/dev/null", f"https://{h}:{args.port}{args.path}"]
    return command


def cmd_visits(args):
    """HTTPS visits by curl, each on a new connection: one host after another, or --clients curls at
    once. The value is the median of curl's time_total over the visits."""
    clients = max(1, args.clients)
    shares = [args.hosts[i::clients] for i in range(clients)]
    started = time.monotonic()
    processes = [subprocess.Popen(curl_visits(args, share), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for share in shares if share]
    outputs = [p.communicate() for p in processes]
    wall = time.monotonic() - started
    times, statuses, cache, problems = [], {}, set(), []
    for (out, err), process in zip(outputs, processes):
        lines = out.splitlines()
        for line in lines:
            parts = line.split(" ", 3)
            if len(parts) < 3:
                continue
            statuses[parts[0]] = statuses.get(parts[0], 0) + 1
            if parts[0] == "200":
                times.append(float(parts[1]) * 1000)
            if len(parts) > 3 and parts[3].strip():
                cache.add(re.sub(r";\s*(ttl|fwd-status|stored|detail)=[^;]*", "", parts[3].strip()))
        if process.returncode != 0:
            problems.append(f"curl exited {process.returncode}: {err.strip()[:200]}")
    record = base_record(args)
    record.update(kind="visits", metric="median time", value=statistics.median(times) if times else None, unit="ms",
                  better="lower", visits=len(args.hosts), answered_200=len(times), statuses=statuses,
                  clients=clients, wall_ms=wall * 1000, cache_answers=sorted(cache)[:6])
    if len(times) != len(args.hosts) or problems:
        record["error"] = f"{len(times)} of {len(args.hosts)} visits answered 200 ({statuses}); " + "; ".join(problems)[:300]
    if args.expect and not any(args.expect in c.lower() for c in cache):
        record["note"] = f"no answer said '{args.expect}' ({sorted(cache)[:3]})"
    append(args.out, record)
    return 0 if times else 1


def cmd_tlsload(args):
    """Keep-alive HTTPS hits by Benchmarks/support/tlsload.c over --connections connections."""
    command = [args.client, "--via", args.via, "--authority", args.authority, "--path", args.path, "--cafile", args.cafile,
               "--connections", str(args.connections), "--duration", f"{args.duration:g}"]
    if args.tunnel:
        command.append("--tunnel")
    if args.bytes is not None:
        command += ["--bytes", str(args.bytes)]
    with MemoryWatch(pids_of(args.pids)) as memory:
        result = subprocess.run(command, capture_output=True, text=True)
    record = base_record(args)
    line = next((l for l in result.stdout.splitlines() if l.startswith("BENCH_JSON ")), None)
    if line is None:
        record.update(error=f"tlsload exited {result.returncode}: {result.stderr.strip()[:300]}", value=None)
        append(args.out, record)
        return 1
    t = json.loads(line[len("BENCH_JSON "):])
    record.update(kind="tlsload", metric="req/s", value=t["rps"], unit="req/s", better="higher", p50_ms=t["p50_ms"],
                  p90_ms=t["p90_ms"], p99_ms=t["p99_ms"], max_ms=t["max_ms"], requests=t["requests"], bytes=t["bytes"],
                  duration_s=t["duration_s"], connections=args.connections, cache_answer=t["cache_header"],
                  client_cpu_share=t["client_cpu_s"] / t["duration_s"] if t["duration_s"] else None)
    if t["errors"]:
        record["error"] = f"{t['errors']} connection(s) failed: {t['error']}"
    record.update(memory.fields())
    append(args.out, record)
    return 0


def cmd_cpu(args):
    """--save FILE: the servers' CPU time now. --since FILE: record the CPU time spent since, per --per visits."""
    seconds = cpu_seconds(pids_of(args.pids))
    if args.save:
        with open(args.save, "w") as f:
            f.write(f"{seconds}\n")
        return 0
    spent = seconds - float(open(args.since).read())
    record = base_record(args)
    record.update(kind="cpu", metric="CPU per visit", value=spent * 1000 / args.per, unit="ms", better="lower",
                  visits=args.per, cpu_total_s=spent)
    append(args.out, record)
    return 0


def pss_kib(pid):
    """Proportional set size: the process's share of the pages it shares (libraries, with its helpers)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cmd_rss(args):
    """The summed RSS (--what current, with the summed PSS) or peak RSS since each process started
    (--what peak) of the servers."""
    pids = process_tree(pids_of(args.pids))
    field = "VmRSS" if args.what == "current" else "VmHWM"
    kib = sum(status_kib(p, field) for p in pids)
    record = base_record(args)
    record.update(kind="rss", metric=f"{field} sum", value=kib / 1024, unit="MiB", better="lower", processes=len(pids))
    if args.what == "current":
        record["pss_mib"] = sum(pss_kib(p) for p in pids) / 1024
    append(args.out, record)
    return 0


def cmd_micro(args):
    """Reads `swift package benchmark` text output: p50 (and the fastest sample's wall clock) per operation of each benchmark."""
    units = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
    benchmarks, lines = [], open(args.log, errors="replace").read().splitlines()
    for i, line in enumerate(lines):
        if line and not line.startswith(("│", "╒", "╞", "├", "╘")) and i + 1 < len(lines) and lines[i + 1].startswith("╒"):
            benchmarks.append({"name": line.strip()})
        if line.startswith("│") and benchmarks:
            cells = [c.strip() for c in line.strip("│").split("│")]
            if len(cells) < 9 or cells[0] == "Metric":
                continue
            metric, p0, p50 = cells[0], cells[1], cells[3]
            try:
                value, fastest = float(p50), float(p0)
            except ValueError:
                continue
            scaled = metric.endswith("*")
            if metric.startswith("Malloc (total)"):
                benchmarks[-1]["mallocs_p50"] = value
            elif metric.startswith("Time (wall clock)"):
                unit = re.search(r"\((ns|μs|us|ms|s)\)", metric)
                benchmarks[-1]["wall_p50_ns"] = value * units[unit.group(1) if unit else "ns"]
                benchmarks[-1]["wall_p0_ns"] = fastest * units[unit.group(1) if unit else "ns"]
            elif metric.startswith("Throughput"):
                factor = 1000 if "(K)" in metric else (1e6 if "(M)" in metric else 1)
                benchmarks[-1]["throughput_p50"] = value * factor
            benchmarks[-1]["per_operation"] = benchmarks[-1].get("per_operation", False) or scaled
            benchmarks[-1]["samples"] = cells[8]
    json.dump(benchmarks, open(args.out, "w"), indent=1)
    for b in benchmarks:
        print(f"  {b['name']}: {b.get('wall_p50_ns', 0):,.0f} ns, {b.get('mallocs_p50', 0):g} mallocs")
    return 0 if benchmarks else 1


# --------------------------------------------------------------------------------------------
# Summary

SCENARIOS = [
    # id, title, subject peer (the Larder figure others are compared with), columns of note
    ("hit-1k", "Cache hit, 1 KiB asset (wrk, 32 keep-alive connections), all cores"),
    ("hit-1k-core", "Cache hit, 1 KiB asset, per core (server on core 0, wrk on core 1)"),
    ("hit-64k", "Cache hit, 64 KiB asset (wrk, 32 keep-alive connections), all cores"),
    ("hit-64k-core", "Cache hit, 64 KiB asset, per core (server on core 0, wrk on core 1)"),
    ("hit-1k-store", "Larder cache hit, 1 KiB, by store size"),
    ("cold-start", "Cold start to first hit (store of N entries)"),
    ("body-1g-miss", "1 GiB body through the proxy, first fetch (miss, stored)"),
    ("body-1g-hit", "1 GiB body from the cache (hit)"),
    ("precache", "Precache 2,000 files of 4 KiB from the origin"),
    ("precache-rerun", "Precache again, everything cached"),
    ("precache-tmpfs", "Precache 2,000 files of 4 KiB, caches and files on tmpfs"),
    ("precache-journal", "Precache 2,000 files of 4 KiB, caches and files on a journaled ext4 (loop device)"),
    ("hit-during-precache", "Larder 1 KiB hit latency while a 2,000-file precache runs in it"),
    ("devoffline", "/dev/offline render (N entries), slowest page"),
    ("https-first", "HTTPS: first visit to a new host (CONNECT, mint, TLS, miss), median"),
    ("https-first-cpu", "HTTPS: proxy CPU per new host (all its processes, over 200 first visits)"),
    ("https-burst", "HTTPS: 8 clients x 6 new hosts at once, median visit"),
    ("https-second", "HTTPS: second visit (hit, new TLS connection), median"),
    ("https-ka-1k", "HTTPS: keep-alive 1 KiB hits, one connection (tlsload)"),
    ("https-ka-64k", "HTTPS: keep-alive 64 KiB hits, one connection (tlsload)"),
    ("https-8c-1k", "HTTPS: 1 KiB hits, 8 keep-alive connections (tlsload)"),
    ("https-rss-200", "HTTPS: RSS after 200 new hosts"),
    ("https-peak-rss", "HTTPS: peak RSS over the round"),
    # Issue 43, item 5 (Benchmarks/support/pageload.py): the subject is Larder's warm load.
    ("pageload-http", "Page load in headless Chromium, HTTP (navigation start to load event)"),
    ("pageload-https", "Page load in headless Chromium, HTTPS (navigation start to load event)"),
    # Issue 44, item 6: the subject is Larder on libcurl; its SwiftNIO upstream beside it.
    ("miss-1k", "Miss, 1 KiB no-store asset, through each upstream client (wrk, 32 connections)"),
    ("miss-64k", "Miss, 64 KiB no-store asset, through each upstream client (wrk, 32 connections)"),
]


def median_of(records, field):
    values = [r[field] for r in records if isinstance(r.get(field), (int, float))]
    return statistics.median(values) if values else None


def fmt_value(value, unit):
    if value is None:
        return "failed"
    if unit == "req/s":
        return f"{value:,.0f} req/s"
    if unit == "MiB/s":
        return f"{value:,.0f} MiB/s"
    if unit == "s":
        return f"{value:.2f} s"
    if unit == "ms":
        return f"{value:.1f} ms"
    if unit == "MiB":
        return f"{value:.1f} MiB"
    return f"{value:.3g} {unit}"


def fmt_ms(value):
    return "" if value is None else (f"{value:.2f} ms" if value < 10 else f"{value:.1f} ms")


def fmt_kib(value):
    return "" if value is None else f"{value / 1024:.1f} MiB"


def summarise(records):
    """{scenario: {peer: medians}} in first-seen peer order."""
    grouped = {}
    for r in records:
        grouped.setdefault(r["scenario"], {}).setdefault(r["peer"], []).append(r)
    table = {}
    for scenario, peers in grouped.items():
        table[scenario] = {}
        for peer, rs in peers.items():
            first = rs[0]
            m = {k: median_of(rs, k) for k in ("value", "p50_ms", "p99_ms", "peak_rss_kib", "rss_growth_kib",
                                                "origin_requests", "server_peak_rss_kib", "first_answer_ms",
                                                "client_cpu_share", "pss_mib")}
            m.update(unit=first.get("unit"), better=first.get("better"), metric=first.get("metric"),
                     rounds=len(rs), errors=[r.get("error") for r in rs if r.get("error")],
                     wrk_errors=[r.get("errors") for r in rs if r.get("errors")],
                     cache_status=sorted({r.get("cache_status") for r in rs if r.get("cache_status")}),
                     origin_kinds=[r.get("origin_requests_by_kind") for r in rs if r.get("origin_requests_by_kind") is not None],
                     background=[r.get("background") for r in rs if r.get("background")],
                     notes=[r["note"] for r in rs if r.get("note")],
                     pages=rs[-1].get("pages"), slowest_page=rs[-1].get("slowest_page"),
                     entries=first.get("entries"), label=first.get("label") or peer,
                     loads=[r["load1"] for r in rs if isinstance(r.get("load1"), (int, float))],
                     by_round={r["round"]: r for r in rs},
                     subject=first.get("subject", False))
            table[scenario][peer] = m
    return table


# The figure a scenario's ratio compares, when not its main one.
RATIO_FIELD = {"hit-during-precache": "p99_ms"}


def round_ratio(subject, other, field="value"):
    """The median over rounds of subject's figure divided by other's in the same round (rounds
    interleave the peers, so a quotient within a round is what drifting load skews least); the
    quotient of the medians when no round has both."""
    if not subject or not other:
        return None
    quotients = []
    for round_number, a in subject.get("by_round", {}).items():
        b = other.get("by_round", {}).get(round_number)
        if b and isinstance(a.get(field), (int, float)) and isinstance(b.get(field), (int, float)) and b[field]:
            quotients.append(a[field] / b[field])
    if quotients:
        return statistics.median(quotients)
    if subject.get(field) is None or not other.get(field):
        return None
    return subject[field] / other[field]


def ratio_text(subject, other, field="value"):
    r = round_ratio(subject, other, field)
    if r is None:
        return ""
    if field == "p99_ms":
        return f"{r:.2f}x p99"
    what = {"req/s": "req/s", "MiB/s": "throughput", "s": "time", "ms": "time"}.get(subject["unit"], subject["unit"])
    return f"{r:.2f}x {what}"


def build_table(table):
    rows = []
    for scenario, title in SCENARIOS:
        peers = table.get(scenario)
        if not peers:
            continue
        subject = next((m for m in peers.values() if m["subject"]), None)
        for peer, m in peers.items():
            ratio = "" if m is subject else ratio_text(subject, m, RATIO_FIELD.get(scenario, "value"))
            value = fmt_value(m["value"], m["unit"])
            extra = []
            if m.get("origin_requests") is not None and scenario.startswith("precache"):
                extra.append(f"{m['origin_requests']:.0f} origin req")
            if m.get("origin_requests") and (scenario.startswith("hit") or scenario == "body-1g-hit"):
                extra.append(f"{m['origin_requests']:.0f} origin req")
            if m.get("rss_growth_kib") is not None and scenario.startswith("body"):
                extra.append(f"+{m['rss_growth_kib'] / 1024:.1f} MiB RSS")
            if m.get("pss_mib") is not None:
                extra.append(f"PSS {m['pss_mib']:.1f} MiB")
            if m["errors"]:
                extra.append("ERROR")
            rows.append([title if not rows or rows[-1][0] != title else "", m["label"], value + (" (" + ", ".join(extra) + ")" if extra else ""),
                         fmt_ms(m["p50_ms"]), fmt_ms(m["p99_ms"]), fmt_kib(m["peak_rss_kib"]), ratio])
    # Blank repeated titles.
    last = None
    for row in rows:
        if row[0] == last:
            row[0] = ""
        elif row[0]:
            last = row[0]
    return ["Scenario", "Peer", "Result (median)", "p50", "p99", "Peak RSS", "Larder ÷ peer"], rows


def text_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" if i < 2 else "---:" for i in range(len(header))) + " |"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def get(table, scenario, peer):
    return table.get(scenario, {}).get(peer)


def targets(table, micro=()):
    """[(target, measured, met or None)] for issue 18's targets."""
    out = []

    ratio = round_ratio

    def add(name, value, ok, fmt):
        out.append((name, "not measured" if value is None else fmt(value), None if value is None else ok(value)))

    for size in ("1k", "64k"):
        title = {"1k": "1 KiB", "64k": "64 KiB"}[size]
        larder, ceiling, cache = (get(table, f"hit-{size}", p) for p in ("larder", "nginx-file", "nginx"))
        add(f"{title} hits: req/s at least 0.95x nginx serving the file", ratio(larder, ceiling), lambda v: v >= 0.95,
            lambda v: f"{v:.2f}x ({larder['value']:,.0f} vs {ceiling['value']:,.0f} req/s)")
        add(f"{title} hits: p99 at most 1.25x nginx proxy_cache's p99", ratio(larder, cache, "p99_ms"), lambda v: v <= 1.25,
            lambda v: f"{v:.2f}x ({larder['p99_ms']:.2f} vs {cache['p99_ms']:.2f} ms)")
    idle, busy = get(table, "hit-during-precache", "idle"), get(table, "hit-during-precache", "during")
    add("Hits while a 2,000-file precache runs in the proxy: req/s at least 0.5x idle", ratio(busy, idle), lambda v: v >= 0.5,
        lambda v: f"{v:.2f}x ({busy['value']:,.0f} vs {idle['value']:,.0f} req/s)")
    add("Hits while a 2,000-file precache runs in the proxy: p99 at most 2x idle", ratio(busy, idle, "p99_ms"), lambda v: v <= 2,
        lambda v: f"{v:.2f}x ({busy['p99_ms']:.2f} vs {idle['p99_ms']:.2f} ms)")
    pl, pc = get(table, "precache", "larder"), get(table, "precache", "curl")
    add("Precache of 2,000 x 4 KiB at most 1.25x curl --parallel-max 8 writing files", ratio(pl, pc), lambda v: v <= 1.25,
        lambda v: f"{v:.2f}x ({pl['value']:.2f} s vs {pc['value']:.2f} s)")
    rerun = get(table, "precache-rerun", "larder")
    add("All-cached re-run under 5 % of the first run's time", ratio(rerun, pl), lambda v: v < 0.05, lambda v: f"{v * 100:.1f} % ({rerun['value']:.3f} s)")
    kinds = rerun["origin_kinds"] if rerun else []
    files = max((k.get("file", 0) for k in kinds), default=None) if kinds else None
    add("All-cached re-run requests only manifests and pages", files, lambda v: v == 0,
        lambda v: f"{v} file requests; origin requests per run: {', '.join(json.dumps(k, sort_keys=True) for k in kinds)}")
    big, big_cache = get(table, "body-1g-hit", "larder"), get(table, "body-1g-hit", "nginx")
    add("1 GiB hit: throughput at least 0.8x nginx proxy_cache's", ratio(big, big_cache), lambda v: v >= 0.8,
        lambda v: f"{v:.2f}x ({big['value']:,.0f} vs {big_cache['value']:,.0f} MiB/s)")
    lookup = next((b for b in micro if "entry(for:)" in b["name"] and "hit" in b["name"] and re.search(r"100,?000 entries", b["name"])), None)
    add("Store lookup at 100,000 entries at most 20 µs (micro benchmark, p50)",
        lookup and lookup.get("wall_p50_ns") is not None and lookup["wall_p50_ns"] / 1000, lambda v: v <= 20,
        lambda v: f"{v:.1f} µs ({lookup['name']})")
    store = table.get("hit-1k-store", {})
    large = next((m for m in store.values() if m["subject"]), None)
    small = next((m for m in store.values() if not m["subject"]), None)
    add(f"Hits at {large['label'] if large else 'a large store'}: req/s at least 0.95x {small['label'] if small else 'a small store'}",
        ratio(large, small), lambda v: v >= 0.95, lambda v: f"{v:.2f}x")
    cold = get(table, "cold-start", "larder")
    add("Cold start to first hit under 200 ms" + (f" ({cold['label']})" if cold else ""), cold and cold["value"], lambda v: v < 200, lambda v: f"{v:.0f} ms")
    growth = [m["rss_growth_kib"] for s in ("body-1g-miss", "body-1g-hit") for p, m in table.get(s, {}).items() if p == "larder" and m["rss_growth_kib"] is not None]
    add("RSS growth under 32 MiB while a 1 GiB body streams (miss and hit)", max(growth) if growth else None, lambda v: v < 32 * 1024, lambda v: f"+{v / 1024:.1f} MiB")
    render = get(table, "devoffline", "larder")
    add("/dev/offline under 50 ms" + (f" ({render['label']})" if render else ""), render and render["value"], lambda v: v < 50,
        lambda v: f"{v:.1f} ms slowest ({render['slowest_page']})")
    return out


def targets_34(table):
    """[(target, measured, met or None)] for issue 34's targets (HTTPS against Squid SslBump, hits per core)."""
    out = []

    def add(name, value, ok, fmt):
        out.append((name, "not measured" if value is None else fmt(value), None if value is None else ok(value)))

    def against(scenario, field="value", other="squid"):
        a, b = get(table, scenario, "larder"), get(table, scenario, other)
        return a, b, round_ratio(a, b, field)

    a, b, r = against("https-first")
    add("New HTTPS host, first visit: time at most 1.0x Squid SslBump's", r, lambda v: v <= 1.0,
        lambda v: f"{v:.2f}x ({a['value']:.1f} vs {b['value']:.1f} ms)")
    a, b, r = against("https-first-cpu")
    add("New HTTPS host, first visit: proxy CPU at most 1.0x Squid SslBump's", r, lambda v: v <= 1.0,
        lambda v: f"{v:.2f}x ({a['value']:.1f} vs {b['value']:.1f} ms CPU)")
    for size, title in (("1k", "1 KiB"), ("64k", "64 KiB")):
        a, b, r = against(f"https-ka-{size}")
        add(f"Keep-alive HTTPS hits, {title}, one connection: at least 1.0x Squid's rate", r, lambda v: v >= 1.0,
            lambda v, a=a, b=b: f"{v:.2f}x ({a['value']:,.0f} vs {b['value']:,.0f} req/s)")
    a, b, r = against("https-burst")
    add("8 clients x 6 new HTTPS hosts at once: median at most 1.5x Squid's", r, lambda v: v <= 1.5,
        lambda v: f"{v:.2f}x ({a['value']:.0f} vs {b['value']:.0f} ms)")
    # Issue 43 raised issue 34's per-core bars (0.9x the rate, 1.25x the p99) and asks them of
    # entries stored by browsing as well as precached ones.
    for size, title in (("1k", "1 KiB"), ("64k", "64 KiB")):
        for peer, kind in (("larder", "precached"), ("larder-browsed", "stored by browsing")):
            a, b = get(table, f"hit-{size}-core", peer), get(table, f"hit-{size}-core", "nginx-file")
            add(f"Plain HTTP {title} hits per core, {kind}: at least 1.0x nginx serving the file", round_ratio(a, b),
                lambda v: v >= 1.0, lambda v, a=a, b=b: f"{v:.2f}x ({a['value']:,.0f} vs {b['value']:,.0f} req/s)")
            b = get(table, f"hit-{size}-core", "nginx")
            add(f"Plain HTTP {title} hits per core, {kind}: p99 at most 1.0x nginx proxy_cache's", round_ratio(a, b, "p99_ms"),
                lambda v: v <= 1.0, lambda v, a=a, b=b: f"{v:.2f}x ({a['p99_ms']:.2f} vs {b['p99_ms']:.2f} ms)")
    # Issue 43, item 3: precache at curl's pace on each kind of file system.
    for fs, title, bar in (("tmpfs", "tmpfs", 1.5), ("journal", "a journaled ext4", 1.25)):
        a, b = get(table, f"precache-{fs}", "larder"), get(table, f"precache-{fs}", "curl")
        add(f"Precache of 2,000 x 4 KiB on {title}: at most {bar}x curl --parallel-max 8", round_ratio(a, b),
            lambda v, bar=bar: v <= bar, lambda v, a=a, b=b: f"{v:.2f}x ({a['value']:.2f} s vs {b['value']:.2f} s)")
    rss = get(table, "https-rss-200", "larder")
    add("RSS after 200 HTTPS hosts under 80 MiB", rss and rss["value"], lambda v: v < 80, lambda v: f"{v:.1f} MiB")
    return out


def per_core_matrix(table):
    """Each Larder of the per-core rows against nginx in the same rounds: its rate ÷ nginx serving
    the file and its p99 ÷ nginx proxy_cache's, per size (with --compare, both commits')."""
    rows = []
    peers = [p for p in table.get("hit-1k-core", {}) if p.startswith("larder")]
    for peer in peers:
        cells = [table["hit-1k-core"][peer]["label"]]
        for size in ("1k", "64k"):
            a = get(table, f"hit-{size}-core", peer)
            rate = round_ratio(a, get(table, f"hit-{size}-core", "nginx-file"))
            p99 = round_ratio(a, get(table, f"hit-{size}-core", "nginx"), "p99_ms")
            cells += [f"{rate:.2f}x" if rate is not None else "", f"{p99:.2f}x" if p99 is not None else ""]
        rows.append(cells)
    if not rows:
        return None
    return ["Per core (medians of in-round ratios)", "1 KiB rate ÷ nginx file", "1 KiB p99 ÷ proxy_cache",
            "64 KiB rate ÷ nginx file", "64 KiB p99 ÷ proxy_cache"], rows


def per_core_shortfalls(table, floor):
    """What falls under FLOOR x nginx serving the file in the per-core rows (a missing row too)."""
    out = []
    for size in ("1k", "64k"):
        for peer in ("larder", "larder-browsed"):
            a, b = get(table, f"hit-{size}-core", peer), get(table, f"hit-{size}-core", "nginx-file")
            r = round_ratio(a, b)
            if r is None:
                out.append(f"hit-{size}-core / {peer}: not measured")
            elif r < floor:
                out.append(f"hit-{size}-core / {peer}: {r:.2f}x nginx serving the file "
                           f"({a['value']:,.0f} vs {b['value']:,.0f} req/s), under {floor:g}x")
    return out


def targets_pageload(table):
    """[(target, measured, met or None)] for issue 43, item 5: Larder's warm and offline page loads
    against the origin direct's warm load, within rounds."""
    out = []
    for scenario, reference, title in (("pageload-http", "direct-warm", "HTTP"), ("pageload-https", "direct-h1-warm", "HTTPS")):
        base = get(table, scenario, reference)
        for peer, what in (("larder-warm", "warm cache"), ("larder-offline", "origin stopped")):
            a = get(table, scenario, peer)
            r = round_ratio(a, base)
            out.append((f"Page load in Chromium, {title}, Larder {what}: at most 1.1x the origin direct's warm load",
                        "not measured" if r is None else f"{r:.2f}x ({a['value']:.0f} vs {base['value']:.0f} ms)",
                        None if r is None else r <= 1.1))
    return out


def cmd_summary(args):
    records = []
    with open(args.results) as f:
        for line in f:
            if line.strip():
                records.append(json.loads(line))
    meta = json.load(open(args.meta)) if args.meta else {}
    table = summarise(records)
    header, rows = build_table(table)
    micro = json.load(open(args.micro)) if args.micro else []
    goals = targets(table, micro)
    goals_34 = targets_34(table) + targets_pageload(table)
    print()
    print(text_table(header, rows))
    for matrix in (per_core_matrix(table), https_matrix(table), upstream_matrix(table)):
        if matrix:
            print()
            print(text_table(*matrix))
    for issue, items in (("18", goals), ("34 and 43", goals_34)):
        if all(ok is None for _, _, ok in items):
            continue   # a partial run (--only) measured none of them
        print(f"\n  Targets of issue {issue}:")
        for name, measured, ok in items:
            mark = "n/a" if ok is None else ("met" if ok else "MISSED")
            print(f"  [{mark:6}] {name}: {measured}")
    problems = problems_of(table)
    for p in problems:
        print(f"  warning: {p}")
    loads = sorted(x for peers in table.values() for x in peers.values() for x in x["loads"])
    if loads:
        meta.setdefault("notes", []).append(
            f"1-minute load average when each measurement ended: median {statistics.median(loads):.1f}, "
            f"range {loads[0]:.1f} to {loads[-1]:.1f} (this machine has {os.cpu_count()} cores; the benchmark itself "
            "keeps about 2 busy while it measures).")
    if micro:
        print()
        print(text_table(*micro_table(micro)))
    for note in meta.get("notes") or []:
        print(f"  note: {note}")
    if args.write:
        section = markdown_section(meta, header, rows, goals, goals_34, table, problems, micro)
        write_results(args.write, section)
        print(f"\nWrote the Peers section of {args.write}")
    if args.fail_under is not None:
        shortfalls = per_core_shortfalls(table, args.fail_under)
        for s in shortfalls:
            print(f"  FAILED: {s}")
        if shortfalls:
            return 1
        print(f"\n  Per-core hits at or above {args.fail_under:g}x nginx serving the file: passed")
    return 0


HTTPS_PEERS = [("larder", "Larder"), ("larder-nio", "Larder, nio upstream"), ("squid", "Squid SslBump"), ("mitmproxy", "mitmproxy"), ("origin", "origin direct")]


def https_matrix(table):
    """The HTTPS figures as issue 34 laid them out: a row per scenario, a column per peer, and
    Larder ÷ Squid (the median of the quotients within rounds)."""
    rows = []
    for scenario, title in SCENARIOS:
        if not scenario.startswith("https-") or scenario not in table:
            continue
        peers = table[scenario]
        cells = [title.removeprefix("HTTPS: ")]
        for peer, _ in HTTPS_PEERS:
            m = peers.get(peer)
            cells.append(fmt_value(m["value"], m["unit"]) if m else "–")
        r = round_ratio(peers.get("larder"), peers.get("squid"))
        cells.append(f"{r:.2f}x" if r is not None else "")
        rows.append(cells)
    if not rows:
        return None
    return ["HTTPS (medians)"] + [name for _, name in HTTPS_PEERS] + ["Larder ÷ Squid"], rows


def upstream_matrix(table):
    """Larder's SwiftNIO upstream against its libcurl one in the same rounds (issue 44, item 6):
    a row per measurement, both figures and nio ÷ curl (the median of the quotients within rounds;
    for rates higher is better, for times lower)."""
    rows = []
    for scenario, curl_peer, what, field in (
            ("miss-1k", "larder-curl", "Misses, 1 KiB (req/s)", "value"),
            ("miss-1k", "larder-curl", "Misses, 1 KiB, p99", "p99_ms"),
            ("miss-64k", "larder-curl", "Misses, 64 KiB (req/s)", "value"),
            ("miss-64k", "larder-curl", "Misses, 64 KiB, p99", "p99_ms"),
            ("https-first", "larder", "New HTTPS host, first visit", "value"),
            ("https-first-cpu", "larder", "New HTTPS host, proxy CPU", "value"),
            ("precache", "larder", "Precache, 2,000 files of 4 KiB", "value")):
        a, b = get(table, scenario, "larder-nio"), get(table, scenario, curl_peer)
        if not a or not b:
            continue
        show = (lambda m: fmt_ms(m["p99_ms"])) if field == "p99_ms" else (lambda m: fmt_value(m["value"], m["unit"]))
        r = round_ratio(a, b, field)
        rows.append([what, show(b), show(a), f"{r:.2f}x" if r is not None else ""])
    a, b = get(table, "precache", "larder-nio"), get(table, "precache", "curl")
    r = round_ratio(a, b)
    if r is not None:
        rows.append(["Precache, nio ÷ curl's own command line", fmt_value(b["value"], b["unit"]) + " (curl)",
                     fmt_value(a["value"], a["unit"]), f"{r:.2f}x"])
    if not rows:
        return None
    return ["Upstream clients (medians)", "libcurl", "SwiftNIO (AsyncHTTPClient)", "nio ÷ curl"], rows


def problems_of(table):
    out = []
    # The HTTPS load client must outrun every proxy by far, or it measures itself.
    for scenario in ("https-ka-1k", "https-ka-64k", "https-8c-1k"):
        peers = table.get(scenario, {})
        direct = peers.get("origin")
        fastest = max((m["value"] for p, m in peers.items() if p != "origin" and m["value"]), default=None)
        if direct and direct["value"] and fastest and direct["value"] < 1.5 * fastest:
            shares = ", ".join(f"{p} {m['client_cpu_share']:.2f}" for p, m in peers.items() if m.get("client_cpu_share") is not None)
            out.append(f"{scenario}: the origin direct ({direct['value']:,.0f} req/s) is under 1.5x the fastest proxy "
                       f"({fastest:,.0f} req/s), so it does not show that the client (tlsload) was not the limit; "
                       f"the client's CPU time over the run's time (1.0 = one core busy): {shares}")
    for scenario, peers in table.items():
        for peer, m in peers.items():
            for e in m["errors"]:
                out.append(f"{scenario} / {peer}: {e}")
            for n in m["notes"]:
                out.append(f"{scenario} / {peer}: {n}")
            if m["wrk_errors"]:
                out.append(f"{scenario} / {peer}: wrk counted errors {m['wrk_errors']}")
            if scenario.startswith("hit") and m.get("origin_requests"):
                out.append(f"{scenario} / {peer}: {m['origin_requests']:.0f} origin requests during a hit run (median)")
            for b in m["background"]:
                if b.get("state_when_wrk_ended") != "running":
                    out.append(f"{scenario} / {peer}: the precache job was '{b.get('state_when_wrk_ended')}' when wrk ended (it should still run)")
    return out


def micro_table(micro):
    def wall(b):
        if b.get("wall_p50_ns") is None:
            return ""
        # The fastest sample too: on a busy machine the median moves, the fastest much less.
        fastest = f" ({b['wall_p0_ns']:,.0f})" if b.get("wall_p0_ns") is not None else ""
        return f"{b['wall_p50_ns']:,.0f} ns{fastest}"
    rows = [[b["name"], wall(b), f"{b['mallocs_p50']:g}" if b.get("mallocs_p50") is not None else ""] for b in micro]
    return ["Micro benchmark (package-benchmark)", "Wall clock per operation, p50 (fastest sample)", "Mallocs per operation, p50"], rows


def markdown_section(meta, header, rows, goals, goals_34, table, problems, micro=()):
    m = meta
    lines = ["## Peers (`Benchmarks/run`)", ""]
    lines.append("Larder against nginx serving the file itself (the ceiling: no cache in between), Squid "
                 "(forward proxy, `offline_mode on`), nginx `proxy_cache` (reverse proxy, so origin-form requests) "
                 "and curl, all on loopback in one run, against a local nginx origin; over HTTPS, Larder "
                 "against Squid `ssl-bump` (`generate-host-certificates`), mitmproxy (a non-caching reference) "
                 "and the origin direct, against an nginx TLS origin with its own test CA; "
                 "every figure is the median over the rounds, peers interleaved in rotated order each round. "
                 "Larder ÷ peer is the median over the rounds of Larder's figure divided by the peer's in the "
                 "same round (for req/s and throughput higher is better, for times and memory lower is better).")
    lines.append("")
    for key, label in (("date", "Date"), ("commit", "Commit"), ("machine", "Machine"), ("software", "Software"),
                       ("mode", "Mode"), ("load", "Load"), ("command", "Command")):
        if m.get(key):
            lines.append(f"- {label}: {m[key]}")
    lines.append("")
    lines.append(md_table(header, rows))
    lines.append("")

    def add_matrix(caption, matrix):
        if matrix:
            lines.extend([caption, "", md_table(*matrix), ""])

    def add_targets(caption, items):
        lines.extend([caption, "", "| Target | Measured | |", "| --- | --- | --- |"])
        for name, measured, ok in items:
            lines.append(f"| {name} | {measured} | {'n/a' if ok is None else ('met' if ok else '**missed**')} |")
        lines.append("")

    add_matrix("The HTTPS rows again, laid out as in issue 34:", https_matrix(table))
    add_targets("Targets of issue 18, as measured in this run:", goals)
    add_matrix("Larder's two upstream clients in the same rounds (issue 44):", upstream_matrix(table))
    add_matrix("The per-core rows as ratios within rounds:", per_core_matrix(table))
    add_targets("Targets of issues 34 and 43 (HTTPS against Squid SslBump; plain HTTP hits per core; a page load in "
                "Chromium), as measured in this run:", goals_34)
    render = get(table, "devoffline", "larder")
    if render and render.get("pages"):
        lines.append(f"/dev/offline pages at {render['label']} (median curl `time_total`):")
        lines.append("")
        lines.append("| Page | ms |")
        lines.append("| --- | ---: |")
        for page, ms in render["pages"].items():
            lines.append(f"| `{page}` | {ms:.1f} |")
        lines.append("")
    if micro:
        lines.append("Micro benchmarks (`cd Benchmarks && swift package benchmark`, package-benchmark with its "
                     "malloc interposer; 1,000 operations a sample, figures per operation):")
        lines.append("")
        h, r = micro_table(micro)
        lines.append("| " + " | ".join(h) + " |")
        lines.append("| --- | ---: | ---: |")
        for row in r:
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    notes = m.get("notes") or []
    cache_status = sorted({s for peers in table.values() for p, x in peers.items() if p.startswith("larder") or p in ("idle", "during") for s in x["cache_status"]})
    if cache_status:
        notes = notes + [f"Larder answered the cold-start probes with `Cache-Status: {'`, `'.join(cache_status)}`."]
    if problems:
        notes = notes + ["Problems seen: " + "; ".join(problems)]
    if notes:
        lines.append("Notes:")
        lines.append("")
        for n in notes:
            lines.append(f"- {n}")
        lines.append("")
    return "\n".join(lines)


def write_results(path, section):
    try:
        text = open(path).read()
    except OSError:
        text = "# Benchmark results\n"
    pattern = re.compile(r"^## Peers.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1)
    else:
        # After the title, before the other sections.
        head, sep, rest = text.partition("\n## ")
        text = head.rstrip("\n") + "\n\n" + section + "\n" + (sep.lstrip("\n") + rest if sep else "")
    open(path, "w").write(text.rstrip("\n") + "\n")


# --------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)

    def common(p):
        p.add_argument("--out", required=True)
        p.add_argument("--scenario", required=True)
        p.add_argument("--peer", required=True)
        p.add_argument("--round", type=int, default=1)
        p.add_argument("--label", help="how the table names the peer (default: --peer)")
        p.add_argument("--subject", action="store_true", help="the figure the others of the scenario are compared with")

    p = sub.add_parser("wrk")
    common(p)
    p.add_argument("--connect", required=True, help="the URL wrk connects to (the proxy)")
    p.add_argument("--path", help="request target: absolute URL for forward proxies, or a path")
    p.add_argument("--host", help="Host header")
    p.add_argument("--duration", type=float, default=10)
    p.add_argument("--connections", type=int, default=32)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--lua", required=True)
    p.add_argument("--pids", default="")
    p.add_argument("--origin-log")
    p.add_argument("--during-post", help="Larder's base URL: start a precache job there first")
    p.add_argument("--during-body")
    p.add_argument("--cpus", help="run wrk on these CPUs only (taskset -c)")
    p.set_defaults(func=cmd_wrk)

    p = sub.add_parser("cmd")
    common(p)
    p.add_argument("--pids", default="")
    p.add_argument("--origin-log")
    p.add_argument("--bytes", type=int, help="report bytes/elapsed as MiB/s instead of the time")
    p.add_argument("--own-rss", action="store_true", help="peak RSS is the command's own")
    p.add_argument("--expect-status", action="store_true", help="keep the command's output (curl -w)")
    p.add_argument("command", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_cmd)

    p = sub.add_parser("coldstart")
    common(p)
    p.add_argument("--larder", required=True)
    p.add_argument("--cache-dir", required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--host", required=True)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--log")
    p.add_argument("extra", nargs="*")
    p.set_defaults(func=cmd_coldstart)

    p = sub.add_parser("render")
    common(p)
    p.add_argument("--base", required=True)
    p.add_argument("--requests", type=int, default=30)
    p.add_argument("pages", nargs="+")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("visits")
    common(p)
    p.add_argument("--cafile", required=True)
    p.add_argument("--proxy", help="the proxy's URL (else straight to 127.0.0.1)")
    p.add_argument("--port", required=True, type=int, help="the origin's port")
    p.add_argument("--path", required=True)
    p.add_argument("--clients", type=int, default=1, help="curls started at once, the hosts shared among them")
    p.add_argument("--expect", help="a word some answer's Cache-Status or X-Cache should hold (hit, miss)")
    p.add_argument("hosts", nargs="+")
    p.set_defaults(func=cmd_visits)

    p = sub.add_parser("tlsload")
    common(p)
    p.add_argument("--client", required=True, help="the compiled Benchmarks/support/tlsload.c")
    p.add_argument("--via", required=True)
    p.add_argument("--tunnel", action="store_true")
    p.add_argument("--authority", required=True)
    p.add_argument("--path", required=True)
    p.add_argument("--cafile", required=True)
    p.add_argument("--connections", type=int, default=1)
    p.add_argument("--duration", type=float, default=5)
    p.add_argument("--bytes", type=int)
    p.add_argument("--pids", default="")
    p.set_defaults(func=cmd_tlsload)

    p = sub.add_parser("cpu")
    p.add_argument("--pids", required=True)
    p.add_argument("--save", help="write the CPU time so far to this file, and record nothing")
    p.add_argument("--since", help="a file --save wrote")
    p.add_argument("--per", type=int, default=1, help="divide the CPU time spent by this many visits")
    p.add_argument("--out")
    p.add_argument("--scenario")
    p.add_argument("--peer")
    p.add_argument("--round", type=int, default=1)
    p.add_argument("--label")
    p.add_argument("--subject", action="store_true")
    p.set_defaults(func=cmd_cpu)

    p = sub.add_parser("rss")
    common(p)
    p.add_argument("--pids", required=True)
    p.add_argument("--what", choices=("current", "peak"), default="current")
    p.set_defaults(func=cmd_rss)

    p = sub.add_parser("summary")
    p.add_argument("--results", required=True)
    p.add_argument("--meta")
    p.add_argument("--write")
    p.add_argument("--micro", help="JSON written by `micro`")
    p.add_argument("--fail-under", type=float, help="exit 1 when a per-core Larder rate is under this times nginx serving the file")
    p.set_defaults(func=cmd_summary)

    p = sub.add_parser("micro")
    p.add_argument("--log", required=True, help="output of `swift package benchmark`")
    p.add_argument("--out", required=True)
    p.set_defaults(func=cmd_micro)

    args = parser.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
