#!/usr/bin/env python3
"""A small WebDAV server for tests on machines without nginx: the methods
kbcc's HTTP store uses (GET, HEAD, PUT creating missing folders, MKCOL,
DELETE, PROPFIND with Depth 0 or 1) over the files under ROOT.

Usage: webdav-server.py ROOT PORT   (serves http://127.0.0.1:PORT/ until killed)
"""
import html
import os
import shutil
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    root = "."
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: tests read their own logs
        pass

    def local(self):
        """The file a request's path names, or None when it leaves the root."""
        path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
        full = os.path.realpath(os.path.join(self.root, path.lstrip("/")))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        return full

    def reply(self, status, body=b"", ctype="application/octet-stream"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length", "0") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        p = self.local()
        if p is None or not os.path.isfile(p):
            return self.reply(404)
        with open(p, "rb") as f:
            self.reply(200, f.read())

    do_HEAD = do_GET

    def do_PUT(self):
        p = self.local()
        data = self.body()
        if p is None or os.path.isdir(p):
            return self.reply(409)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        tmp = p + ".part-%d" % os.getpid()
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, p)
        self.reply(201)

    def do_MKCOL(self):
        p = self.local()
        self.body()
        if p is None:
            return self.reply(403)
        if os.path.exists(p):
            return self.reply(405)
        if not os.path.isdir(os.path.dirname(p.rstrip("/"))):
            return self.reply(409)
        os.mkdir(p)
        self.reply(201)

    def do_DELETE(self):
        p = self.local()
        if p is None or not os.path.exists(p):
            return self.reply(404)
        if os.path.isdir(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
        self.reply(204)

    def do_PROPFIND(self):
        p = self.local()
        self.body()
        if p is None or not os.path.exists(p):
            return self.reply(404)
        base = urllib.parse.urlsplit(self.path).path
        entries = [(base, os.path.isdir(p))]
        if os.path.isdir(p) and self.headers.get("Depth", "1") != "0":
            folder = base if base.endswith("/") else base + "/"
            for name in sorted(os.listdir(p)):
                if ".part-" in name:
                    continue
                d = os.path.isdir(os.path.join(p, name))
                entries.append((folder + urllib.parse.quote(name) + ("/" if d else ""), d))
        parts = ['<?xml version="1.0" encoding="utf-8"?>\n<D:multistatus xmlns:D="DAV:">']
        for href, is_dir in entries:
            kind = "<D:collection/>" if is_dir else ""
            parts.append("<D:response><D:href>%s</D:href><D:propstat><D:prop><D:resourcetype>%s"
                         "</D:resourcetype></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>"
                         "</D:response>" % (html.escape(href), kind))
        parts.append("</D:multistatus>\n")
        self.reply(207, "".join(parts).encode(), "application/xml; charset=utf-8")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    Handler.root = os.path.realpath(sys.argv[1])
    os.makedirs(Handler.root, exist_ok=True)
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()


if __name__ == "__main__":
    main()
