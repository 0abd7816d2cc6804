#!/usr/bin/env python3
"""fault-server.py MODE DIR: a misbehaving server on 127.0.0.1 for fault tests.

MODE slow:    accepts connections and never answers.
MODE garbage: answers every request with bytes that are neither HTTP nor RESP.
Detaches, writes DIR/port and DIR/fault.pid, prints the port. Stop it with
`kill $(cat DIR/fault.pid)`.
"""
import os
import signal
import socket
import sys
import threading
import time

GARBAGE = b"\x00\xffkbcc-garbage\x13\x37 not a protocol \xfe\r\n\x01\x02" * 8


def serve(mode, sock):
    held = []
    while True:
        conn, _ = sock.accept()
        if mode == "slow":
            held.append(conn)  # keep it open, say nothing
            continue

        def answer(c):
            try:
                c.settimeout(2)
                try:
                    c.recv(65536)
                except OSError:
                    pass
                c.sendall(GARBAGE)
                time.sleep(0.1)
            finally:
                c.close()

        threading.Thread(target=answer, args=(conn,), daemon=True).start()


def main():
    mode, out = sys.argv[1], sys.argv[2]
    if mode not in ("slow", "garbage"):
        sys.exit("fault-server.py: MODE must be slow or garbage")
    os.makedirs(out, exist_ok=True)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    child = os.fork()
    if child > 0:
        with open(os.path.join(out, "fault.pid"), "w") as f:
            f.write("%d\n" % child)
        with open(os.path.join(out, "port"), "w") as f:
            f.write("%d\n" % port)
        print(port)
        sys.stdout.flush()
        os._exit(0)
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.alarm(int(os.environ.get("KBCC_TEST_SERVER_LIFETIME", "600")))  # never outlive a failed test
    serve(mode, sock)


if __name__ == "__main__":
    main()
