#!/usr/bin/env python3
"""Loads a page in headless Chromium through a proxy and prints what the page reported.

Usage: chromium-report.py CHROMIUM PROFILE PROXY URL TIMEOUT_SECONDS

The page reports by setting `window.__report` to an object; the report is complete when it has
`done: true`. Drives Chromium over the DevTools protocol (a WebSocket on loopback, spoken here
with the standard library only), because `--dump-dom` does not wait for WebSockets or other
late work. Prints one JSON object: the report (or the last partial one, with "timedOut": true),
plus "consoleErrors" (exceptions the page threw). Exit status 0 unless Chromium could not be driven.
"""
import base64
import json
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request


class DevTools:
    """A minimal WebSocket client for one DevTools target."""

    def __init__(self, url):
        rest = url[len("ws://"):]
        hostport, path = rest.split("/", 1)
        host, port = hostport.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("DevTools refused the WebSocket: " + head.decode(errors="replace"))
        self.buffer = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0
        self.events = []

    def _read(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _frame(self):
        message = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(length)
            message += payload
            if first & 0x80:
                return message

    def call(self, method, params=None, timeout=30):
        self.next_id += 1
        ident = self.next_id
        payload = json.dumps({"id": ident, "method": method, "params": params or {}}).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)
        self.sock.settimeout(timeout)
        while True:
            message = json.loads(self._frame())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)


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


def close(browser, port):
    """Closes Chromium in order (DevTools' Browser.close), so it writes its cookies to the profile
    for a later load with the same profile (as a user's browser keeps them); kills it if that fails."""
    if port is not None:
        try:
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            version = json.loads(opener.open(f"http://127.0.0.1:{port}/json/version", timeout=5).read())
            DevTools(version["webSocketDebuggerUrl"]).call("Browser.close", timeout=5)
        except Exception:  # the browser may be gone already, or closing as it answers
            pass
        try:
            browser.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            pass
    browser.kill()
    browser.wait()


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a driver failure, not a page result
        print(f"chromium-report.py: {error}", file=sys.stderr)
        sys.exit(2)
