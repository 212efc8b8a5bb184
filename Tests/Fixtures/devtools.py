"""Chromium over the DevTools protocol, for the end-to-end tests (chromium-report.py) and the
page-load benchmark (Benchmarks/support/pageload.py): a minimal WebSocket client for one target,
and closing the browser in order. Python's standard library only."""
import base64
import json
import os
import socket
import struct
import subprocess
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
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
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

    def message(self, timeout):
        self.sock.settimeout(timeout)
        payload = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            payload += self._read(length)
            if first & 0x80:
                return json.loads(payload)

    def send(self, method, params=None):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params or {}}).encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        return self.next_id

    def call(self, method, params=None, timeout=30):
        ident = self.send(method, params)
        while True:
            message = self.message(timeout)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_event(self, method, timeout):
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return None
            try:
                message = self.message(left)
            except socket.timeout:
                return None
            if message.get("method") == method:
                return message
            self.events.append(message)

    def evaluate(self, expression, timeout=30):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout)
        return result.get("result", {}).get("value")


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
