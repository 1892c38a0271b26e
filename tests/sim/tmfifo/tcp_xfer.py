#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""TCP helper of test_tmfifo_e2e.sh (python3 is on every Debian 12).

  tcp_xfer.py recv PORT          accept one connection, read to EOF,
                                 print "<sha256> <bytes>"
  tcp_xfer.py send HOST PORT FILE  connect (retrying up to 10 s), send FILE
"""
import hashlib
import socket
import sys
import time


def recv(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(1)
    s.settimeout(60)
    c, _ = s.accept()
    c.settimeout(60)
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        h.update(b)
        n += len(b)
    print(h.hexdigest(), n, flush=True)


def send(host, port, path):
    deadline = time.time() + 10
    while True:
        try:
            c = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    c.settimeout(60)
    with open(path, "rb") as f:
        while True:
            b = f.read(1 << 16)
            if not b:
                break
            c.sendall(b)
    c.shutdown(socket.SHUT_WR)
    c.recv(1)
    c.close()


if __name__ == "__main__":
    if sys.argv[1] == "recv":
        recv(int(sys.argv[2]))
    else:
        send(sys.argv[2], int(sys.argv[3]), sys.argv[4])
