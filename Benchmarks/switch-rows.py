#!/usr/bin/env python3
"""Benchmarks/switch-rows.py: what a game version's rows cost in the index, written as Larder
writes them now and as the ways of writing them once would (issue 43, item 3; RESULTS.md,
"Precache at curl's pace"). 2,000 rows of a 4 KiB file each, on an index that `larder verify`
creates with every migration, in Python's sqlite3 (WAL, synchronous NORMAL, as GRDB opens it);
each figure is one transaction's time, the minimum and the median of the rounds.

    Benchmarks/switch-rows.py LARDER_BINARY [--rounds N] [--dir FOLDER]

  staged rows       inserting them into staged_entry, 32 rows a transaction (the staging)
  switch: move      the switch's statements: INSERT INTO entry ... SELECT FROM staged_entry and
                    DELETE FROM staged_entry, 500 keys a statement (Store+GameVersions.swift)
    of it, delete   the DELETE alone
  switch: direct    the rows inserted into entry from memory at the switch, 500 rows a statement
                    (no staged rows: the design that keeps them in memory until the switch)
  switch: rekey     staged rows kept in entry under a reserved key prefix, renamed to their key
                    by one UPDATE per 500 (the design that writes them once into entry)
"""
import argparse
import hashlib
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time

COLUMNS = "key, url, status, headers, vary, kind, body_hash, body_size, request_time, response_time, stored_at, revision"
REPLACING = """ON CONFLICT(key) DO UPDATE SET url = excluded.url, status = excluded.status,
    headers = excluded.headers, vary = excluded.vary, kind = excluded.kind, body_hash = excluded.body_hash,
    body_size = excluded.body_size, request_time = excluded.request_time, response_time = excluded.response_time,
    stored_at = excluded.stored_at, revision = excluded.revision, last_used = excluded.last_used,
    content_type = excluded.content_type"""
STAGED = "key, url, status, headers, vary, body_hash, body_size, request_time, response_time, revision, content_type, staged_at, durable"
PREFIX = "\x01staged\x01"
COUNT = 2000


def rows():
    out = []
    for i in range(COUNT):
        url = f"http://127.0.0.1:8080/bench/file-{i:04d}.bin"
        headers = f'[["content-type","application/octet-stream"],["content-length","4096"],["etag","\\"e-{i}\\""]]'
        out.append((url, url, 200, headers, "[]", hashlib.sha256(url.encode()).hexdigest(), 4096, 1.7e9, 1.7e9, None,
                    "application/octet-stream", 1.7e9, 0))
    return out


def open_copy(template, folder, name):
    path = os.path.join(folder, name)
    shutil.copy(template, path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute("PRAGMA temp_store = MEMORY")
    return db


def timed(db, work):
    start = time.perf_counter()
    db.execute("BEGIN IMMEDIATE")
    work()
    db.execute("COMMIT")
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("larder")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--dir", default=None)
    options = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="larder-switch-rows-", dir=options.dir)
    try:
        subprocess.run([options.larder, "verify", "--cache-dir", folder + "/cache"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        template = folder + "/cache/index.sqlite"
        data = rows()
        keys = [row[0] for row in data]
        figures = {name: [] for name in ["staged rows", "switch: move", "  of it, delete", "switch: direct", "switch: rekey"]}
        for round_ in range(options.rounds):
            db = open_copy(template, folder, f"move-{round_}.sqlite")

            staging = 0.0
            for start in range(0, COUNT, 32):
                staging += timed(db, lambda: db.executemany(
                    f"INSERT INTO staged_entry ({STAGED}) VALUES ({','.join('?' * 13)})", data[start:start + 32]))
            figures["staged rows"].append(staging)
            deleting = [0.0]

            def move():
                for start in range(0, COUNT, 500):
                    batch = keys[start:start + 500]
                    marks = ",".join("?" * len(batch))
                    db.execute(
                        f"""INSERT INTO entry ({COLUMNS}, last_used, content_type)
                        SELECT key, url, status, headers, vary, 'precached', body_hash, body_size, request_time,
                            response_time, ?, revision, ?, content_type
                        FROM staged_entry WHERE key IN ({marks}) ORDER BY key {REPLACING}""", [1.8e9, 1.8e9] + batch)
                    begun = time.perf_counter()
                    db.execute(f"DELETE FROM staged_entry WHERE key IN ({marks})", batch)
                    deleting[0] += time.perf_counter() - begun
            figures["switch: move"].append(timed(db, move))
            figures["  of it, delete"].append(deleting[0])
            db.close()

            db = open_copy(template, folder, f"direct-{round_}.sqlite")
            values = [(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], 1.8e9, r[9], 1.8e9, r[10]) for r in data]

            def direct():
                for start in range(0, COUNT, 500):
                    batch = values[start:start + 500]
                    marks = ",".join(["(?,?,?,?,?,'precached',?,?,?,?,?,?,?,?)"] * len(batch))
                    db.execute(f"INSERT INTO entry ({COLUMNS}, last_used, content_type) VALUES {marks} {REPLACING}",
                               [v for row in batch for v in row])
            figures["switch: direct"].append(timed(db, direct))
            db.close()

            db = open_copy(template, folder, f"rekey-{round_}.sqlite")
            db.execute("BEGIN IMMEDIATE")
            db.executemany(f"INSERT INTO entry ({COLUMNS}, last_used, content_type) VALUES (?,?,?,?,?,'staged',?,?,?,?,?,?,?,?)",
                           [(PREFIX + row[0],) + row[1:] for row in values])
            db.execute("COMMIT")
            prefixed = [PREFIX + key for key in keys]

            def rekey():
                for start in range(0, COUNT, 500):
                    batch = prefixed[start:start + 500]
                    db.execute(
                        f"""UPDATE entry SET key = substr(key, {len(PREFIX) + 1}), kind = 'precached', stored_at = ?,
                        last_used = ? WHERE key IN ({','.join('?' * len(batch))})""", [1.8e9, 1.8e9] + batch)
            figures["switch: rekey"].append(timed(db, rekey))
            db.close()
            for name in os.listdir(folder):
                if name.endswith((".sqlite", "-wal", "-shm")) and not name.startswith("cache"):
                    os.remove(os.path.join(folder, name))
        for name, values in figures.items():
            print(f"{name:16} min {min(values) * 1000:6.1f} ms  median {statistics.median(values) * 1000:6.1f} ms")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
