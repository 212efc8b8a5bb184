#!/usr/bin/env python3
"""Loads a page in headless Chromium through a proxy and prints what the page reported.

Usage: chromium-report.py CHROMIUM PROFILE PROXY URL TIMEOUT_SECONDS

The page reports by setting `window.__report` to an object; the report is complete when it has
`done: true`. Drives Chromium over the DevTools protocol (a WebSocket on loopback, spoken here
with the standard library only), because `--dump-dom` does not wait for WebSockets or other
late work. Prints one JSON object: the report (or the last partial one, with "timedOut": true),
plus "consoleErrors" (exceptions the page threw). Exit status 0 unless Chromium could not be driven.
"""
import json
import os
import subprocess
import sys
import time
import urllib.request

from devtools import DevTools, close  # beside this file


def main():
    chromium, profile, proxy, url, timeout = sys.argv[1:6]
    timeout = float(timeout)
    os.makedirs(profile, exist_ok=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    if os.path.exists(port_file):
        os.remove(port_file)
    arguments = [
        chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--remote-debugging-port=0",
        f"--user-data-dir={profile}", f"--proxy-server={proxy}",
        # `<-loopback>` removes Chromium's implicit bypass, so 127.0.0.1 origins go through the proxy too.
        "--proxy-bypass-list=<-loopback>;*.google.com;*.googleapis.com;*.gvt1.com",
        "about:blank",
    ]
    browser = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = None
    try:
        deadline = time.time() + 30
        while not os.path.exists(port_file) or len(open(port_file).read().splitlines()) < 2:
            if time.time() > deadline or browser.poll() is not None:
                raise RuntimeError("Chromium did not open its DevTools port")
            time.sleep(0.05)
        port = open(port_file).read().splitlines()[0]
        # The DevTools endpoint is on loopback: asked directly, never through a proxy.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        targets = json.loads(opener.open(f"http://127.0.0.1:{port}/json/list", timeout=10).read())
        page = next(t for t in targets if t.get("type") == "page")
        devtools = DevTools(page["webSocketDebuggerUrl"])
        devtools.call("Runtime.enable")
        devtools.call("Page.enable")
        devtools.call("Page.navigate", {"url": url})
        report = None
        deadline = time.time() + timeout
        while time.time() < deadline:
            result = devtools.call(
                "Runtime.evaluate",
                {"expression": "JSON.stringify(window.__report || null)", "returnByValue": True})
            value = result.get("result", {}).get("value")
            report = json.loads(value) if value else None
            if report and report.get("done"):
                break
            time.sleep(0.1)
        else:
            text = devtools.call(
                "Runtime.evaluate",
                {"expression": "document.body ? document.body.innerText : ''", "returnByValue": True})
            report = dict(report or {})
            report["timedOut"] = True
            report["bodyText"] = text.get("result", {}).get("value")
        report["consoleErrors"] = [
            e["params"]["exceptionDetails"].get("exception", {}).get("description", e["params"]["exceptionDetails"].get("text"))
            for e in devtools.events if e.get("method") == "Runtime.exceptionThrown"
        ]
        print(json.dumps(report))
    finally:
        close(browser, port)


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a driver failure, not a page result
        print(f"chromium-report.py: {error}", file=sys.stderr)
        sys.exit(2)
