# SPDX-License-Identifier: BSD-3-Clause
"""Start and stop an rshim-pmd service on emulated BlueFields for the tests.

Each service gets its own node directory, lock directory, DPDK file prefix
and rshimN indexes (from the test's pid); a service with tmfifo_netN TAPs
runs in a network namespace of its own, and the emulated DPUs' namespaces
carry this run's prefix, so several test runs, a real rshim-pmd and its
tmfifo_net0 on the host do not meet. Deadlines are generous: the host may
be loaded; waits end on the event they wait for.
"""

import atexit
import os
import select
import shutil
import signal
import socket
import json
import subprocess
import sys
import tempfile
import time

SVC = os.environ.get("RSHIM_PMD", "rshim-pmd")
MKBFB = os.environ.get("RSHIM_MKBFB", "rshim-mkbfb")
DEMO = os.environ.get("RSHIM_PMD_DEMO", "demo.bfb")
# Per-run names: emulated DPU namespaces <RUN>d<N>, service namespaces.
RUN = "rsht%d" % os.getpid()
SIM_LOCKS = tempfile.mkdtemp(prefix="rshim-sim-locks-")
atexit.register(shutil.rmtree, SIM_LOCKS, True)
ENV = dict(os.environ, RSHIM_SIM_NETNS_PREFIX=RUN + "d", RSHIM_SIM_LOCK_DIR=SIM_LOCKS)


def dpu_netns(n):
    """Name of the namespace of an emulated DPU started with peer=<n>."""
    return "%sd%d" % (RUN, n)


def fuse_missing():
    """Why FUSE cannot be used here, or None."""
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if os.geteuid() != 0:
        return "not root (FUSE mounts with allow_other and TAPs need root)"
    if subprocess.call(["sh", "-c", "command -v fusermount3"],
                       stdout=subprocess.DEVNULL) != 0:
        return "fusermount3 missing (install fuse3)"
    return None


def wait_for(pred, timeout=30.0, step=0.05):
    """Poll pred() until true or the deadline; returns its last value."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() > end:
            return v
        time.sleep(step)


def proc_wait_state(pid):
    """What a process waits in, for a test's timing: its kernel stack's
    function names (root reads /proc/PID/stack) and the bytes its write(2)
    calls returned so far; ([], -1) once it is gone."""
    try:
        try:
            with open("/proc/%d/stack" % pid) as f:
                frames = [ln.split()[1].split("+")[0] for ln in f if len(ln.split()) > 1]
        except OSError:  # no stack traces: the wait channel and the call
            with open("/proc/%d/wchan" % pid) as f:
                frames = [f.read().strip()]
            with open("/proc/%d/syscall" % pid) as f:
                nr = f.read().split()[0]
            if nr == {"x86_64": "1", "aarch64": "64"}.get(os.uname().machine):
                frames.append("vfs_write")
        with open("/proc/%d/io" % pid) as f:
            io = dict(ln.split(":") for ln in f if ":" in ln)
        return frames, int(io["wchar"])
    except (OSError, KeyError, ValueError):
        return [], -1


def blocked_in_fuse_write(pid, settle=0.5):
    """True when pid sits in a FUSE write(2) that is not moving: in the
    request wait under vfs_write, its written-byte count the same over
    settle seconds. A signal then reaches the service as an interrupt of
    that write, not as a close after a write that finished."""
    def stuck(frames):
        return "request_wait_answer" in frames and "vfs_write" in frames
    frames, wchar = proc_wait_state(pid)
    if not stuck(frames):
        return False
    time.sleep(settle)
    frames2, wchar2 = proc_wait_state(pid)
    return stuck(frames2) and wchar2 == wchar


def proc_dump(pid):
    """A process's wait state, for a failure message."""
    out = ""
    for f in ("wchan", "stack", "syscall"):
        try:
            with open("/proc/%d/%s" % (pid, f)) as fh:
                out += "--- /proc/%d/%s\n%s\n" % (pid, f, fh.read())
        except OSError as e:
            out += "--- /proc/%d/%s: %s\n" % (pid, f, e)
    return out


class Service:
    """One rshim-pmd process."""

    def __init__(self, sims, base, conf="", net=False, extra=(), tmp=None):
        self.tmp = tmp or tempfile.mkdtemp(prefix="rshim-svc-")
        os.chmod(self.tmp, 0o755)  # lab users (the permission test) look in
        self.dev_dir = os.path.join(self.tmp, "dev")
        self.run_dir = os.path.join(self.tmp, "run")
        self.conf = os.path.join(self.tmp, "rshim-pmd.conf")
        self.log = os.path.join(self.tmp, "svc.log")
        self.prefix = "rshim-svc-%d-%d" % (os.getpid(), base)
        self.base = base
        os.makedirs(self.dev_dir, exist_ok=True)
        with open(self.conf, "w") as f:
            f.write(conf)
        args = [SVC, "-f", "-c", self.conf, "--dev-dir", self.dev_dir,
                "--run-dir", self.run_dir, "-i", str(base),
                "--file-prefix", self.prefix]
        self.netns = None
        if net:
            # Its TAPs (and their addresses) live in a namespace of its own.
            self.netns = "%sn%d" % (RUN, base)
            subprocess.call(["ip", "netns", "del", self.netns], stderr=subprocess.DEVNULL)
            subprocess.check_call(["ip", "netns", "add", self.netns])
            args = ["nsenter", "--net=/run/netns/" + self.netns] + args
        else:
            args.append("-n")
        for s in sims:
            # peer=none: the emulated ARM's built-in ends, no namespaces
            # (other processes' emulators use those).
            args += ["--sim", s + ("" if "peer=" in s else ",peer=none")]
        self.args = args + list(extra)
        self.proc = None

    def start(self, expect=1, timeout=60.0):
        """Start; wait until `expect` devices are served (or it exits)."""
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen(self.args, stdout=self.logf,
                                     stderr=subprocess.STDOUT, env=ENV)
        ok = wait_for(lambda: self.proc.poll() is not None or
                      self.text().count(" serving ") >= expect, timeout)
        return ok

    def text(self):
        with open(self.log) as f:
            return f.read()

    def node(self, idx, name=""):
        return os.path.join(self.dev_dir, "rshim%d" % idx, name)

    def hup(self):
        self.proc.send_signal(signal.SIGHUP)

    def write_conf(self, text):
        with open(self.conf, "w") as f:
            f.write(text)

    def stop(self, timeout=60.0):
        """SIGTERM and wait; returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.logf.close()
        return self.proc.returncode

    def close(self):
        """Stop, then remove the service's network namespace."""
        rc = self.stop()
        if self.netns is not None:
            subprocess.call(["ip", "netns", "del", self.netns], stderr=subprocess.DEVNULL)
            self.netns = None
        return rc

    def ip(self, *args):
        """`ip -n <its namespace> ARGS`; the exit code."""
        return subprocess.call(["ip", "-n", self.netns] + list(args),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def send_frame(self, idx, frame):
        """Write one raw Ethernet frame into tmfifo_net<idx> (its namespace);
        True when it went out."""
        code = ("import socket, sys; s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); "
                "s.bind((sys.argv[1], 0)); s.send(bytes.fromhex(sys.argv[2]))")
        return subprocess.call(["ip", "netns", "exec", self.netns, sys.executable, "-c", code,
                                "tmfifo_net%d" % idx, frame.hex()]) == 0

    def send_frames(self, idx, frame, count):
        """Write `count` copies of one raw Ethernet frame into
        tmfifo_net<idx> from one process; how many went out (it stops at
        the first refusal, e.g. the link is down)."""
        code = ("import socket, sys; s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); "
                "s.bind((sys.argv[1], 0)); f = bytes.fromhex(sys.argv[2]); n = 0\n"
                "try:\n    for _ in range(int(sys.argv[3])): s.send(f); n += 1\n"
                "except OSError: pass\nprint(n)")
        out = subprocess.run(["ip", "netns", "exec", self.netns, sys.executable, "-c", code,
                              "tmfifo_net%d" % idx, frame.hex(), str(count)],
                             capture_output=True, text=True)
        return int(out.stdout.strip() or 0)

    def ping(self, idx, addr="192.168.100.1/24", peer="192.168.100.2"):
        """Give tmfifo_net<idx> an address (once) and ping the DPU's built-in
        responder once; True on a reply."""
        tap = "tmfifo_net%d" % idx
        out = subprocess.run(["ip", "-n", self.netns, "-o", "addr", "show", "dev", tap],
                             capture_output=True, text=True)
        if addr.split("/")[0] not in out.stdout:
            self.ip("addr", "add", addr, "dev", tap)
        return subprocess.call(["ip", "netns", "exec", self.netns, "ping", "-c1", "-W1", peer],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0

    def tap(self, idx):
        """tmfifo_net<idx> in its namespace: a dict (flags, address), or None."""
        out = subprocess.run(["ip", "-n", self.netns, "-j", "link", "show",
                              "tmfifo_net%d" % idx], capture_output=True, text=True)
        if out.returncode != 0:
            return None
        link = json.loads(out.stdout)[0]
        return {"up": "UP" in link.get("flags", []), "address": link.get("address")}

    def mounts(self):
        """Our FUSE mounts still in the mount table."""
        with open("/proc/mounts") as f:
            return [ln for ln in f if self.dev_dir in ln]

    def telemetry(self, cmd, timeout=10.0):
        """One DPDK telemetry command over the v2 socket."""
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % self.prefix
        if not wait_for(lambda: os.path.exists(path), timeout):
            raise RuntimeError("no telemetry socket " + path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(timeout)
        s.connect(path)
        s.recv(16384)
        s.send(cmd.encode())
        reply = json.loads(s.recv(65536).decode())
        s.close()
        return reply


def misc_write(svc, idx, text):
    """One write(2) of "KEY value" (unbuffered: one request, one outcome)."""
    fd = os.open(svc.node(idx, "misc"), os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def misc_lines(svc, idx):
    with open(svc.node(idx, "misc")) as f:
        return f.read()


def read_until(fd, want, timeout=30.0):
    """Read a non-blocking fd until `want` (bytes) arrives; all that was read."""
    got, end = b"", time.monotonic() + timeout
    while want not in got and time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                got += os.read(fd, 4096)
            except (BlockingIOError, OSError):
                pass
    return got


def push(path, node, tool="cat", timeout=300):
    """Push a file into a boot node with a shell tool; (rc, stderr)."""
    cmds = {
        "cat": "cat '%s' > '%s'" % (path, node),
        "dd": "dd if='%s' of='%s' bs=1M status=none" % (path, node),
        "pv": "pv -q '%s' | cat - > '%s'" % (path, node),
    }
    p = subprocess.run(["sh", "-c", cmds[tool]], capture_output=True,
                       text=True, timeout=timeout)
    return p.returncode, p.stderr


def run_bfb_install(test, svc, idx, bfb):
    """NVIDIA's bfb-install (RSHIM_PMD_BFB_INSTALL, bf-reg beside it),
    unchanged, on /dev/rshim<idx> of a service serving in /dev: it exits
    0 with the boot log to "DPU is ready", and the service did the push."""
    script = os.environ["RSHIM_PMD_BFB_INSTALL"]
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(script)) + ":" +
               os.environ.get("PATH", ""))
    p = subprocess.run([script, "-r", "rshim%d" % idx, "-b", bfb], env=env,
                       capture_output=True, text=True, timeout=600, cwd=svc.tmp)
    print(p.stdout)
    test.assertEqual(p.returncode, 0, p.stdout + p.stderr + svc.text())
    test.assertIn("DPU is ready", p.stdout)
    test.assertIn("boot push done", svc.text())


def assert_clean(test, text):
    """No sanitizer report in a log (the service's or a tool's)."""
    for bad in ("Sanitizer", "runtime error:"):
        test.assertNotIn(bad, text, text)


def finish(test, svcs):
    """tearDown: stop every service, remove its directories, then fail on
    any sanitizer report in its log."""
    texts = []
    for s in svcs:
        s.close()
        texts.append(s.text())
    for s in svcs:  # after every log is read: two may share a directory
        shutil.rmtree(s.tmp, ignore_errors=True)
    for text in texts:
        assert_clean(test, text)
