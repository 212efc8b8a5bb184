#!/usr/bin/env python3
"""Builds the generated parts of the demo site in Examples/site.

Run from anywhere: python3 Examples/tools/build-demo.py (standard library only). It writes
site/logo.png, and builds each game in game-src/ into site/games/<game>/ the way a Vite build with
the offline plugin lays a game out: index.html, assets named by content hash, metadata.json and an
offline.meta.json whose files are relative to the parent of the game root. In the sources,
{{name}} stands for the hashed name of the asset built from `name`.
"""
import base64
import hashlib
import math
import json
import os
import shutil
import struct
import sys
import zlib


def png(width, height, pixel):
    """PNG bytes of an RGBA image; pixel(x, y) returns (r, g, b, a)."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            rows.extend(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b"")


def logo_pixel(x, y):
    """A jar on a shelf: the Larder logo, 96x96."""
    transparent = (0, 0, 0, 0)
    lid = (176, 84, 44, 255)
    glass = (250, 232, 180, 255)
    jam = (200, 48, 72, 255)
    shelf = (110, 72, 40, 255)
    if 84 <= y < 90 and 6 <= x < 90:
        return shelf
    if 14 <= y < 24 and 30 <= x < 66:
        return lid
    # Jar body: a rounded rectangle.
    if 24 <= y < 84 and 22 <= x < 74:
        corner = 8
        cx = min(max(x, 22 + corner), 73 - corner)
        cy = min(max(y, 24 + corner), 83 - corner)
        if (x - cx) ** 2 + (y - cy) ** 2 > corner ** 2:
            return transparent
        if y >= 44 and not (28 <= x < 68 and 54 <= y < 68):
            return jam
        if 28 <= x < 68 and 54 <= y < 68:
            return (255, 255, 255, 255)  # label
        return glass
    return transparent


def wav(seconds, rate=22050):
    """A soft two-note chime: 16-bit mono PCM WAV bytes."""
    frames = bytearray()
    count = int(seconds * rate)
    for i in range(count):
        t = i / rate
        note = 660.0 if t < 0.18 else 880.0
        start = 0.0 if t < 0.18 else 0.18
        envelope = math.exp(-(t - start) * 3.0) * min(1.0, (t - start) * 200)
        sample = envelope * (0.6 * math.sin(2 * math.pi * note * t) + 0.2 * math.sin(4 * math.pi * note * t))
        frames.extend(struct.pack("<h", int(max(-1.0, min(1.0, sample)) * 20000)))
    header = b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    header += b"data" + struct.pack("<I", len(frames))
    return header + bytes(frames)


def content_hash(data):
    """Eight characters of the SHA-256, as Vite's asset names carry."""
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode()[:8].replace("-", "x").replace("_", "y")


def hashed_name(source_name, data):
    """`main.js` -> `index-<hash>.js`; `click.wav` -> `click-<hash>.wav`."""
    stem, extension = source_name.rsplit(".", 1)
    stem = "index" if stem in ("main", "style") else stem
    return "%s-%s.%s" % (stem, content_hash(data), extension)


def substitute(text, names):
    for source_name, built_name in names.items():
        text = text.replace("{{%s}}" % source_name, built_name)
    if "{{" in text:
        sys.exit("build-demo: unresolved {{...}} left in a game source")
    return text


def build_game(examples, game, media):
    source = os.path.join(examples, "game-src", game)
    target = os.path.join(examples, "site", "games", game)
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(os.path.join(target, "assets"))
    names = {}
    files = []
    # Media first, then styles and scripts (which name the media), then the page (which names them).
    for source_name, data in media:
        names[source_name] = hashed_name(source_name, data)
    for source_name in ("style.css", "main.js"):
        with open(os.path.join(source, source_name)) as f:
            text = substitute(f.read(), names).encode()
        names[source_name] = hashed_name(source_name, text)
        media.append((source_name, text))
    for source_name, data in media:
        with open(os.path.join(target, "assets", names[source_name]), "wb") as f:
            f.write(data)
        files.append("%s/assets/%s" % (game, names[source_name]))
    with open(os.path.join(source, "index.html")) as f:
        page = substitute(f.read(), names)
    with open(os.path.join(target, "index.html"), "w") as f:
        f.write(page)
    shutil.copy(os.path.join(source, "metadata.json"), os.path.join(target, "metadata.json"))
    manifest = {"files": ["%s/index.html" % game] + sorted(files), "skip": False}
    with open(os.path.join(target, "offline.meta.json"), "w") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")
    print("built site/games/%s: %d files" % (game, len(manifest["files"])))


def main():
    examples = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(examples, "site", "logo.png"), "wb") as f:
        f.write(png(96, 96, logo_pixel))
    build_game(examples, "flipart", [("click.wav", wav(2.5))])
    build_game(examples, "wordbox", [])


if __name__ == "__main__":
    main()
