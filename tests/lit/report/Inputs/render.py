#!/usr/bin/env python3
"""Renders an HTML page in headless chromium and reports what was drawn.

Usage: render.py PAGE.html WORK_DIR
Prints, one per line: the counts of <svg> charts, data points, bars and lines
in the DOM chromium built (--dump-dom), the URLs chromium requested other than
the page itself (from --log-net-log), and the pixel variety of a screenshot
(PNG decoded here with zlib: distinct colours and the share of non-white
pixels). Exit status 1 when chromium fails.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    sys.exit("render.py: chromium not found")


def run(page, work, extra):
    profile = os.path.join(work, "profile-%d" % len(os.listdir(work)))
    cmd = [chromium()] + FLAGS + ["--user-data-dir=" + profile] + extra + ["file://" + os.path.abspath(page)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        sys.exit(f"render.py: chromium failed ({r.returncode}): {r.stderr[-2000:]}")
    return r.stdout


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode_png(path):
    """Returns (width, height, bytes per pixel, list of unfiltered rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"render.py: {path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"render.py: unsupported PNG layout (depth {depth}, colour type {colour})")
    bpp = 4 if colour == 6 else 3
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 255
        elif f == 2:
            row = bytearray((a + b) & 255 for a, b in zip(row, prev))
        elif f == 3:
            for i in range(stride):
                row[i] = (row[i] + ((row[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                left, up_left = (row[i - bpp], prev[i - bpp]) if i >= bpp else (0, 0)
                row[i] = (row[i] + paeth(left, prev[i], up_left)) & 255
        rows.append(bytes(row))
        prev = row
    return width, height, bpp, rows


def pixel_stats(path):
    width, height, bpp, rows = decode_png(path)
    colours, non_white = set(), 0
    for row in rows:
        for x in range(0, len(row), bpp):
            px = row[x:x + 3]
            colours.add(px)
            non_white += px != b"\xff\xff\xff"
    return width, height, len(colours), non_white / float(width * height)


def requested_urls(netlog):
    """URLs the page requested: net-log requests whose initiator is the page
    (the browser's own background requests have no origin as initiator)."""
    try:
        log = json.load(open(netlog))
    except (OSError, ValueError):
        return ["(net log unreadable)"]
    urls = set()
    for ev in log.get("events", []):
        params = ev.get("params") or {}
        url, initiator = params.get("url", ""), params.get("initiator")
        if url and initiator is not None and initiator != "not an origin" and not url.startswith("file:"):
            urls.add(url)
    return sorted(urls)


def main():
    page, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    netlog = os.path.join(work, "net-log.json")
    dom = run(page, work, ["--dump-dom", "--log-net-log=" + netlog])
    print("svg charts:", len(re.findall(r"<svg\b", dom)))
    print("data points:", len(re.findall(r'<circle class="point"', dom)))
    print("bars:", len(re.findall(r'<rect class="bar"', dom)))
    print("lines:", len(re.findall(r"<polyline\b", dom)))
    urls = requested_urls(netlog)
    print("page network requests:", len(urls), " ".join(urls))
    shot = os.path.join(work, "screenshot.png")
    run(page, work, ["--screenshot=" + shot, "--window-size=900,1600"])
    width, height, colours, ink = pixel_stats(shot)
    print(f"screenshot: {width}x{height}, {colours} distinct colours, {ink:.1%} non-white")
    print("screenshot busy:", "yes" if colours >= 16 and ink >= 0.03 else "no")


if __name__ == "__main__":
    main()
