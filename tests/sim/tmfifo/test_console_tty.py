#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd-app --console on a terminal (a pseudo-terminal made here):
raw mode while connected, Ctrl-] then q quits with exit 0, and the
terminal settings are restored after Ctrl-] q and after SIGTERM. Run as
root, the booted=1 device gets a network namespace for its DPU end: this
run's own names and locks (RSHIM_SIM_NETNS_PREFIX, RSHIM_SIM_LOCK_DIR),
none left at the end.
  test_console_tty.py APP"""
import fcntl
import glob
import os
import pty
import select
import shutil
import signal
import sys
import tempfile
import termios
import time

APP = sys.argv[1]
fails = passes = 0
NS_PREFIX = "rshty%d-" % os.getpid()
LOCK_DIR = tempfile.mkdtemp(prefix="rsht-tty-")
os.environ["RSHIM_SIM_NETNS_PREFIX"] = NS_PREFIX
os.environ["RSHIM_SIM_LOCK_DIR"] = LOCK_DIR


def check(name, ok, detail=""):
    global fails, passes
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok else ": " + detail))
    if ok:
        passes += 1
    else:
        fails += 1


def drain(fd, sec, buf, want=None):
    """Read into buf for up to sec seconds, until `want` is in it (if
    given) or the other end is gone (EIO once the app exited)."""
    end = time.time() + sec
    while time.time() < end and (want is None or want not in buf):
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                buf += os.read(fd, 4096)
            except OSError:
                break
    return buf


def run(case):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(APP, [APP, "--device", "sim:bf2,booted=1", "--console"])
    before = termios.tcgetattr(fd)
    out = b""
    raw = False
    for _ in range(100):  # wait for the app to go raw (EAL start, attach)
        out = drain(fd, 0.1, out)
        raw = not (termios.tcgetattr(fd)[3] & termios.ECHO)
        if raw and b"Ctrl-]" in out:
            break
    check(case + ": raw terminal while connected", raw)
    check(case + ": quit hint shown", b"Ctrl-] then q" in out, repr(out[-200:]))
    # "\n", not the "\r" of a real Enter key: the emulator's line echo
    # (no shell, without root) ends lines on "\n" only.
    os.write(fd, b"echo ttymark-7\n")
    out = drain(fd, 30, out, b"ttymark-7")
    check(case + ": console answers", b"ttymark-7" in out, repr(out[-200:]))
    if case == "ctrl-]q":
        os.write(fd, b"\x1dq")
    else:
        os.kill(pid, signal.SIGTERM)
    _, st = os.waitpid(pid, 0)
    after = termios.tcgetattr(fd)  # the slave's settings, via the master
    rc = os.waitstatus_to_exitcode(st)
    check(case + ": exit 0", rc == 0, "exit %d" % rc)
    check(case + ": terminal restored", after[3] & termios.ECHO and
          after[3] & termios.ICANON and after[3] == before[3],
          "lflag %o, was %o" % (after[3], before[3]))
    os.close(fd)


def left_behind():
    """This run's namespaces still there, and its locks still held."""
    try:
        left = [n for n in os.listdir("/run/netns") if n.startswith(NS_PREFIX)]
    except OSError:
        left = []
    for path in glob.glob(os.path.join(LOCK_DIR, "*.lock")):
        with open(path) as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                left.append(path)
    return left


run("ctrl-]q")
run("sigterm")
left = left_behind()
check("nothing left behind", not left, repr(left))
shutil.rmtree(LOCK_DIR, ignore_errors=True)
print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails else 0)
