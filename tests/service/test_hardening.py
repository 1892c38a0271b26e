#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd, the service, against the things a careless user and an
attacker do: the console and tmfifo_netN after a hot removal and return,
the outcome of a push lost at its tail, back-to-back pushes, an open right
after a writer that closed without writing, an opener killed in the reset
delay, a removal and return during an open, SIGTERM while nodes are held,
a log pipe closed under the service, symbolic links and hard links in the
run and node directories, malformed configuration files, sixteen devices
on ordinary memory, and the smaller ones (a missing --dev-dir, control
characters in misc writes, a device string given twice).

Exit 77 (skipped) only when FUSE cannot be used on this host.
"""

import errno
import mmap
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svc_helper  # noqa: E402
from svc_helper import (DEMO, Service, finish, fuse_missing, misc_lines,  # noqa: E402
                        misc_write, push, wait_for)

# Per-run indexes, away from the other service tests' (40-67); 16 for the
# many-device test.
BASE = 100 + (os.getpid() % 7) * 20
PADDED = (os.path.getsize(DEMO) + 7) // 8 * 8 if os.path.exists(DEMO) else 0
# A shared emulated device's segment (doc/emulator.md): a header page,
# then the register file by BAR offset; BF3 SCRATCHPAD1 and the keepalive
# word a live owner writes there (hardware-notes §6.2).
SHM_HDR, BF3_SCRATCHPAD1, KEEPALIVE = 4096, 0x0C40, 0x0000005089836482
# SIGTERM ends the service within this many seconds whatever is held.
SIGTERM_BOUND = 10


def stats(svc, idx):
    return svc.telemetry("/rshim/stats,%d" % idx)["/rshim/stats"]


class HardeningTest(unittest.TestCase):
    def setUp(self):
        self.svcs = []
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            if p.stderr is not None:
                p.stderr.close()
        finish(self, self.svcs)

    def svc(self, sims, base=BASE, expect=None, **kw):
        s = Service(sims, base, **kw)
        self.svcs.append(s)
        ok = s.start(expect=len(sims) if expect is None else expect)
        self.assertTrue(ok or expect == 0, "service did not come up:\n" + s.text())
        return s

    def bad_start(self, s, timeout=30):
        """A service that must refuse to start: its exit code."""
        self.svcs.append(s)
        s.start(expect=1, timeout=timeout)
        try:
            return s.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def console_echo(self, s, idx, tag, timeout=30):
        """Write a line into the console; True when the DPU echoes it."""
        fd = os.open(s.node(idx, "console"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        got, end = b"", time.monotonic() + timeout
        try:
            os.write(fd, tag + b"\r\n")
            while tag not in got and time.monotonic() < end:
                try:
                    got += os.read(fd, 4096)
                except BlockingIOError:
                    time.sleep(0.02)
        finally:
            os.close(fd)
        return tag in got, got

    # -- 1. console and network after a hot removal and return ------------

    def test_console_and_net_after_hot_return(self):
        # The DPU runs from power-on (booted=1) and goes once 16 KiB crossed
        # its TM FIFOs (gone@tm:, here the frames below); it comes back 2 s
        # later powered on fresh.
        s = self.svc(["bf3,booted=1,gone@tm:16K,return=2s"], net=True)
        # A burst into tmfifo_netN: the first frames reach the DPU and take
        # it away, the rest find it gone: dropped and counted, never kept
        # for its return.
        frame = b"\xff" * 6 + b"\x00\x1a\xca\xff\xff\x02" + b"\x88\xb5" + b"g" * 1000
        self.assertGreater(s.send_frames(BASE, frame, 100), 20)
        self.assertTrue(wait_for(lambda: "marked gone" in s.text(), 60), s.text())
        self.assertFalse(s.tap(BASE)["up"])
        # Typed while the device is gone: never sent, counted as dropped.
        pts = s.telemetry("/rshim/info,%d" % BASE)["/rshim/info"]["console"]
        fd = os.open(pts, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        os.write(fd, b"echo lost-%d\r\n" % BASE)
        self.assertTrue(wait_for(lambda: "answers again" in s.text(), 60), s.text())
        self.assertTrue(wait_for(lambda: stats(s, BASE)["console_tx_drop_gone"] > 0, 30),
                        stats(s, BASE))
        os.close(fd)  # the console has one owner at a time
        st = stats(s, BASE)
        self.assertGreater(st["net_tx_drop_gone"], 0, st)
        self.assertTrue(wait_for(lambda: s.tap(BASE)["up"], 30), s.text())
        # The channel is resynchronised: a push boots the DPU (it came back
        # powered on fresh), its console answers, and the network carries
        # traffic both ways (the DPU answers a ping).
        rc, err = push(DEMO, s.node(BASE, "boot"))
        self.assertEqual(rc, 0, err + s.text())
        misc_write(s, BASE, "DISPLAY_LEVEL 2")
        self.assertTrue(wait_for(lambda: "DPU is ready" in misc_lines(s, BASE), 60))
        ok, got = self.console_echo(s, BASE, b"found-%d" % BASE)
        self.assertTrue(ok, got)
        self.assertNotIn(b"lost-%d" % BASE, got)
        net0 = stats(s, BASE)
        self.assertTrue(wait_for(lambda: s.ping(BASE), 30), s.text())
        net1 = stats(s, BASE)
        self.assertGreater(net1["net_tx_msgs"], net0["net_tx_msgs"], net1)
        self.assertGreater(net1["net_rx_msgs"], net0["net_rx_msgs"], net1)
        self.assertEqual(net1["net_tx_drop_gone"], st["net_tx_drop_gone"], net1)

    # -- 2. a push lost at its tail fails at close --------------------------

    def test_push_lost_at_tail_fails(self):
        # The device goes while it reads the stream's last, partial 64 KiB
        # chunk: the bytes before it are all in the FIFO when the writer
        # closes, the tail is what close sends.
        size = os.path.getsize(DEMO)
        gone = (size // 65536 * 65536 + PADDED) // 2
        for tool in ("cat", "dd"):
            s = self.svc(["bf3,drain=1G,gone@%d" % gone])
            rc, err = push(DEMO, s.node(BASE, "boot"), tool)
            # The whole push's outcome is close's: logged before it returns.
            text = s.text()
            s.stop()
            self.svcs.remove(s)
            shutil.rmtree(s.tmp, ignore_errors=True)
            self.assertNotEqual(rc, 0, tool + ": " + text)
            self.assertIn("No such device", err, tool)
            end = [ln for ln in text.splitlines() if "boot push end" in ln]
            self.assertEqual(len(end), 1, text)
            self.assertTrue(end[0].endswith("No such device"), end[0])

    # -- 3. back-to-back pushes ---------------------------------------------

    def test_back_to_back_pushes(self):
        s = self.svc(["bf3"], conf="PCIE_RESET_DELAY 0\n")
        small = os.path.join(s.tmp, "small.bin")
        with open(small, "wb") as f:
            f.write(os.urandom(100000))
        for i in range(6):
            rc, err = push(small, s.node(BASE, "boot"), ("cat", "dd")[i % 2])
            self.assertEqual(rc, 0, "push %d: %s" % (i, err))
        # The same process, close then open at once; also with nothing written.
        for i in range(6):
            f = open(s.node(BASE, "boot"), "wb", buffering=0)
            if i % 2 == 0:
                f.write(b"\0" * 4096)
            f.close()
        f = open(s.node(BASE, "boot"), "wb", buffering=0)
        f.close()
        self.assertTrue(wait_for(lambda: s.text().count("boot push end") == 13, 30),
                        s.text())
        self.assertNotIn("another writer", s.text())

    def test_push_after_idle_close(self):
        # A writer that opened and closed without writing never blocks the
        # next open: open, close, then at once open and push, many times,
        # in one process and through a shell.
        s = self.svc(["bf3"], conf="PCIE_RESET_DELAY 0\n")
        node = s.node(BASE, "boot")
        small = os.path.join(s.tmp, "small.bin")
        with open(small, "wb") as f:
            f.write(os.urandom(5000))
        n = 100
        for i in range(n):
            os.close(os.open(node, os.O_WRONLY))
            if i % 10 == 9:
                p = subprocess.run(["sh", "-c", ": > '%s'; cat '%s' > '%s'" % (node, small, node)],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, "round %d: %s" % (i, p.stderr))
                continue
            fd = os.open(node, os.O_WRONLY)
            try:
                self.assertEqual(os.write(fd, b"\0" * 4096), 4096)
            finally:
                os.close(fd)
        # Each round: the idle open's end, the push's end (and the shell's
        # own idle open in the shell rounds).
        ends = 2 * n + n // 10
        self.assertTrue(wait_for(lambda: s.text().count("boot push end") == ends, 30),
                        s.text().count("boot push end"))
        self.assertNotIn("another writer", s.text())
        # An open still held through a duplicate (the close of the other
        # descriptor flushed, nothing was written, as a shell's redirection
        # does) keeps the node taken: other openers get EBUSY at once, none
        # waits for it (sixteen at once would otherwise hold every FUSE
        # worker).
        fd = os.open(node, os.O_WRONLY)
        held = os.dup(fd)
        os.close(fd)
        results = []

        def busy_open():
            try:
                os.close(os.open(node, os.O_WRONLY))
                results.append(0)
            except OSError as e:
                results.append(e.errno)
        t0 = time.monotonic()
        ts = [threading.Thread(target=busy_open) for _ in range(16)]
        [t.start() for t in ts]
        [t.join(30) for t in ts]
        took = time.monotonic() - t0
        self.assertEqual(results, [errno.EBUSY] * 16)
        self.assertLess(took, 3.0, "opens waited for a writer still open")
        # Once its last descriptor is closed the node is free, at once.
        os.close(held)
        fd = os.open(node, os.O_WRONLY)
        os.write(fd, b"\0" * 8)
        os.close(fd)

    def test_push_opener_killed_in_reset_delay(self):
        # An opener killed (or interrupted) while its open waits out the
        # reset delay leaves nothing behind: the open is cancelled and
        # undone, BOOT_CONTROL restored, and the node is free for the next
        # writer. (Whether the kernel then drops the request or takes the
        # reply, neither may keep the writer slot.)
        s = self.svc(["bf3"], conf="PCIE_RESET_DELAY 60\n")
        node = s.node(BASE, "boot")

        def state():
            return s.telemetry("/rshim/info,%d" % BASE)["/rshim/info"]["state"]
        for n, sig in enumerate((signal.SIGKILL, signal.SIGINT, signal.SIGTERM)):
            p = subprocess.Popen(["dd", "if=/dev/zero", "of=" + node, "bs=4k", "count=1",
                                  "status=none"], stderr=subprocess.DEVNULL)
            self.procs.append(p)
            self.assertTrue(wait_for(lambda: state() == "pushing", 30), s.text())
            p.send_signal(sig)
            self.assertNotEqual(p.wait(30), 0)
            self.assertTrue(wait_for(lambda: s.text().count("boot push start:") == n + 1, 30),
                            s.text())
            self.assertTrue(wait_for(lambda: state() != "pushing", 30), s.text())
        # Cancelled before the reset (nothing changed) or during its delay
        # (BOOT_CONTROL back to eMMC), never left at 0.
        lines = [ln for ln in s.text().splitlines() if "boot push cancelled" in ln]
        self.assertEqual(len(lines), 3, s.text())
        for ln in lines:
            self.assertTrue(ln.endswith("the device was not changed") or
                            ln.endswith("BOOT_CONTROL restored to 1"), ln)
        s.write_conf("PCIE_RESET_DELAY 0\n")
        s.hup()
        self.assertTrue(wait_for(lambda: "configuration re-read" in s.text(), 30))
        fd = os.open(node, os.O_WRONLY)
        os.write(fd, b"\0" * 8)
        os.close(fd)
        self.assertIn("boot push done", s.text())
        self.assertNotIn("another writer", s.text())

    def test_push_open_across_removal(self):
        # The device goes and comes back (powered on fresh) while an open
        # waits out the reset delay: the open's BOOT_CONTROL = 0 is lost,
        # its ROM would never read the stream. The push fails at once with
        # the reason (not at BOOT_TIMEOUT, 300 s), and the next one works.
        s = self.svc(["bf3,gone@time:3s,return=1s"], conf="PCIE_RESET_DELAY 6\nBOOT_TIMEOUT 30\n")
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd")
        self.assertNotEqual(rc, 0)
        self.assertIn("Input/output error", err, s.text())
        self.assertIn("removed or reset meanwhile", s.text())
        self.assertIn("BOOT_CONTROL restored to 1", s.text())
        s.write_conf("PCIE_RESET_DELAY 0\n")
        s.hup()
        self.assertTrue(wait_for(lambda: "configuration re-read" in s.text(), 30))
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd")
        self.assertEqual(rc, 0, err + s.text())
        misc_write(s, BASE, "DISPLAY_LEVEL 2")
        self.assertTrue(wait_for(lambda: "DPU is ready" in misc_lines(s, BASE), 60))

    def test_retry_after_failed_push(self):
        # A push that fails (device stalls past BOOT_TIMEOUT), then a retry
        # right after: the node is free as soon as the first close returned.
        s = self.svc(["bf3,stall=3s@64K"], conf="BOOT_TIMEOUT 1\nPCIE_RESET_DELAY 0\n")
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd")
        self.assertNotEqual(rc, 0)
        f = open(s.node(BASE, "boot"), "wb", buffering=0)
        f.write(b"\0" * 8)
        f.close()
        self.assertNotIn("another writer", s.text())

    # -- 4. SIGTERM while nodes are held -------------------------------------

    def test_sigterm_with_held_nodes(self):
        tag = os.getpid()
        s = self.svc(["bf3,shared=svch%d" % tag, "bf2,stall=600s@256K"], net=True)
        # The registers of the first device, as another driver on the same
        # rshim sees them (shared=): the keepalive runs in SCRATCHPAD1.
        shm = os.open("/dev/shm/rshim-sim-svch%d" % tag, os.O_RDONLY)
        regs = mmap.mmap(shm, SHM_HDR + BF3_SCRATCHPAD1 + 8, prot=mmap.PROT_READ)
        os.close(shm)

        def scratchpad1():
            return struct.unpack_from("<Q", regs, SHM_HDR + BF3_SCRATCHPAD1)[0]
        self.assertTrue(wait_for(lambda: scratchpad1() == KEEPALIVE, 30), hex(scratchpad1()))
        tail = subprocess.Popen(["tail", "-f", s.node(BASE, "misc")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shell = subprocess.Popen(["sh", "-c", "cd '%s' && exec sleep 600" % s.node(BASE)])
        writer = open(s.node(BASE, "boot"), "wb", buffering=0)
        reg = os.open(s.node(BASE, "rshim"), os.O_RDWR)
        pts = s.telemetry("/rshim/info,%d" % BASE)["/rshim/info"]["console"]
        console = os.open(pts, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        stalled = subprocess.Popen(["dd", "if=" + DEMO, "of=" + s.node(BASE + 1, "boot"),
                                    "bs=1M", "status=none"], stderr=subprocess.PIPE,
                                   text=True)
        self.procs += [tail, shell, stalled]
        self.assertTrue(wait_for(lambda: s.text().count("boot push start") == 2, 30),
                        s.text())
        # SIGTERM ends it within a bound well under systemd's stop timeout
        # (TimeoutStopSec, 90 s by default), whatever is held.
        s.proc.send_signal(signal.SIGTERM)
        try:
            code = s.proc.wait(SIGTERM_BOUND)
        except subprocess.TimeoutExpired:
            code = None
        self.assertEqual(code, 0, "not gone %d s after SIGTERM:\n" % SIGTERM_BOUND + s.text())
        self.assertEqual(scratchpad1(), 0, "keepalive left in SCRATCHPAD1")
        regs.close()
        self.assertEqual(s.mounts(), [])
        self.assertEqual(os.listdir(s.dev_dir), [])
        self.assertEqual(os.listdir(s.run_dir), [])
        for i in range(2):
            self.assertIsNone(s.tap(BASE + i))
        self.assertEqual(s.text().count("no longer served"), 2, s.text())
        # The stalled writer got an error (EIO: the service stopped, no
        # signal to the writer); the idle one gets one at close.
        self.assertNotEqual(stalled.wait(30), 0)
        self.assertIn("Input/output error", stalled.stderr.read())
        with self.assertRaises(OSError):
            writer.close()
        with self.assertRaises(OSError) as cm:
            os.write(reg, b"x")
        self.assertEqual(cm.exception.errno, errno.ENOTCONN)
        with self.assertRaises(OSError):
            os.close(reg)
        os.close(console)
        # The next start on the same directories is clean.
        s2 = Service(["bf3,shared=svch%d" % tag], BASE, tmp=s.tmp)
        self.svcs.append(s2)
        self.assertTrue(s2.start(), s2.text())
        self.assertIn("DEV_INFO        BlueField-3", misc_lines(s2, BASE))
        self.assertNotIn("stale mount", s2.text())

    def test_sigpipe_log_reader_gone(self):
        # `rshim-pmd -f | head`, a log pipe whose reader went away: the next
        # line (here a user's misc write's audit line) must not kill the
        # service (SIGPIPE) and leave a dead mount; nor does a SIGPIPE sent
        # to it.
        s = Service(["bf3"], BASE)
        self.svcs.append(s)
        s.logf = open(s.log, "w")
        s.proc = subprocess.Popen(s.args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  env=svc_helper.ENV)
        self.assertTrue(wait_for(lambda: b" serving " in s.proc.stdout.readline() or
                                 s.proc.poll() is not None, 60))
        s.proc.stdout.close()
        for i in range(3):
            misc_write(s, BASE, "DISPLAY_LEVEL %d" % (i % 2))
        s.proc.send_signal(signal.SIGPIPE)
        self.assertIn("DEV_INFO        BlueField-3", misc_lines(s, BASE))
        self.assertIsNone(s.proc.poll())
        s.proc.send_signal(signal.SIGTERM)
        try:
            code = s.proc.wait(SIGTERM_BOUND)
        except subprocess.TimeoutExpired:
            code = None
        self.assertEqual(code, 0)
        self.assertEqual(s.mounts(), [])

    def test_sigterm_during_reset_delays(self):
        # An open waiting out a 120 s reset delay, and a misc SW_RESET
        # waiting out the device's 120 s one: SIGTERM does not wait for
        # either (the health check never queues behind them either).
        s = self.svc(["bf3", "bf2,resetdelay=120s"], conf="PCIE_RESET_DELAY 120\n")
        opener = subprocess.Popen(["sh", "-c", "exec 3>'%s'; exec sleep 600" %
                                   s.node(BASE, "boot")], stderr=subprocess.DEVNULL)
        resetter = subprocess.Popen(["sh", "-c", "printf 'SW_RESET 1' > '%s'" %
                                     s.node(BASE + 1, "misc")], stderr=subprocess.DEVNULL)
        self.procs += [opener, resetter]

        def info(i):
            return s.telemetry("/rshim/info,%d" % (BASE + i))["/rshim/info"]
        self.assertTrue(wait_for(lambda: info(0)["state"] == "pushing" and
                                 info(1)["control_busy"] == 1, 30))
        s.proc.send_signal(signal.SIGTERM)
        try:
            code = s.proc.wait(SIGTERM_BOUND)
        except subprocess.TimeoutExpired:
            code = None
        self.assertEqual(code, 0, s.text())
        self.assertNotEqual(resetter.wait(30), 0)
        self.assertEqual(s.mounts(), [])
        self.assertEqual(os.listdir(s.dev_dir), [])
        text = s.text()
        self.assertLess(text.index("stopping"), text.index("boot push start"), text)

    # -- 5. symbolic and hard links in the run and node directories ---------

    def _as_nobody(self, fn):
        pid = os.fork()
        if pid == 0:
            try:
                os.setgid(65534)
                os.setgroups([])
                os.setuid(65534)
                fn()
                os._exit(0)
            except BaseException:
                os._exit(99)
        return os.waitpid(pid, 0)[1] >> 8

    def test_run_dir_refused_when_users_can_write(self):
        tmp = tempfile.mkdtemp(prefix="rshim-svc-")
        os.chmod(tmp, 0o755)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        run = os.path.join(tmp, "run")
        shared = "bf3,shared=svcr%d" % os.getpid()
        for setup in ("world", "group", "owner", "symlink"):
            if os.path.lexists(run):
                if os.path.islink(run):
                    os.unlink(run)
                else:
                    shutil.rmtree(run)
            if setup == "symlink":
                os.makedirs(os.path.join(tmp, "elsewhere"), exist_ok=True)
                os.symlink(os.path.join(tmp, "elsewhere"), run)
            else:
                os.mkdir(run)
                os.chmod(run, {"world": 0o1777, "group": 0o775, "owner": 0o755}[setup])
                if setup == "owner":
                    os.chown(run, 65534, 65534)
                elif setup == "world":
                    # What a user plants in a directory they can write to.
                    self.assertEqual(self._as_nobody(lambda: os.symlink(
                        victim, os.path.join(run, "sim-shared-svcr%d.lock" % os.getpid()))), 0)
            s = Service([shared], BASE, tmp=tmp)
            code = self.bad_start(s)
            self.assertEqual(code, 1, setup + ": " + s.text())
            self.assertIn(run, s.text(), setup)
            self.assertEqual(s.mounts(), [])
            s.stop()
            self.svcs.remove(s)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")
        self.assertEqual(os.listdir(os.path.join(tmp, "elsewhere")), [])
        shutil.rmtree(tmp, ignore_errors=True)

    def test_lock_file_links_refused(self):
        tmp = tempfile.mkdtemp(prefix="rshim-svc-")
        os.chmod(tmp, 0o755)
        victim = os.path.join(tmp, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        run = os.path.join(tmp, "run")
        os.mkdir(run, 0o755)
        lock = os.path.join(run, "sim-shared-svck%d.lock" % os.getpid())
        for kind in ("hard", "soft"):
            if os.path.lexists(lock):
                os.unlink(lock)
            (os.link if kind == "hard" else os.symlink)(victim, lock)
            s = Service(["bf3,shared=svck%d" % os.getpid()], BASE, tmp=tmp)
            self.bad_start(s)
            self.assertNotIn(" serving ", s.text(), kind)
            self.assertIn("lock file", s.text(), kind)
            s.stop()
            self.svcs.remove(s)
            with open(victim) as f:
                self.assertEqual(f.read(), "precious\n", kind)
        shutil.rmtree(tmp, ignore_errors=True)

    def test_mount_point_planted_by_a_user(self):
        tmp = tempfile.mkdtemp(prefix="rshim-svc-")
        os.chmod(tmp, 0o755)
        dev = os.path.join(tmp, "dev")
        os.mkdir(dev)
        os.chmod(dev, 0o1777)  # as careless as /tmp
        target = os.path.join(tmp, "target")
        os.mkdir(target, 0o755)
        for kind in ("symlink", "userdir"):
            node = os.path.join(dev, "rshim%d" % BASE)
            if os.path.islink(node):
                os.unlink(node)
            elif os.path.isdir(node):
                os.rmdir(node)
            if kind == "symlink":
                plant = lambda: os.symlink(target, node)  # noqa: E731
            else:
                plant = lambda: os.mkdir(node, 0o777)  # noqa: E731
            self.assertEqual(self._as_nobody(plant), 0)
            s = Service(["bf3"], BASE, tmp=tmp)
            self.svcs.append(s)
            s.start(expect=0)  # it never serves: wait for the refusal instead
            self.assertTrue(wait_for(lambda: "nodes not available" in s.text() or
                                     s.proc.poll() is not None, 30), s.text())
            self.assertNotIn(" serving ", s.text(), kind)
            with open("/proc/mounts") as f:
                self.assertNotIn(target, f.read())
            self.assertEqual(os.listdir(target), [])
            self.assertEqual(s.mounts(), [], kind)
            s.stop()
            self.svcs.remove(s)
        shutil.rmtree(tmp, ignore_errors=True)

    # -- 6. configuration files ------------------------------------------------

    def test_config_long_lines(self):
        # A comment of any length is a comment; nothing after byte 255 of it
        # is read as a directive.
        conf = ("#" + " " * 254 + "rshim%d sim:bf3,peer=none\n" % (BASE + 5) +
                "# " + "x" * 5000 + "\n" +
                "BOOT_TIMEOUT 77   # " + "y" * 3000 + "\n")
        s = self.svc(["bf3"], conf=conf)
        self.assertTrue(os.path.exists(s.node(BASE, "misc")), s.text())
        self.assertFalse(os.path.exists(s.node(BASE + 5)))
        self.assertIn("BOOT_TIMEOUT    77 (seconds)", misc_lines(s, BASE))

    def test_config_malformed(self):
        cases = (("BOOT_TIMEOUT 0\n", 1, "BOOT_TIMEOUT"),
                 ("BOOT_TIMEOUT 5\n\0NO_SUCH_KEY 1\n", 2, "NUL"),
                 ("BOOT_TIMEOUT 5\nDISPLAY_LEVEL 1\x1b[2J\n", 2, "\\x1b"),
                 ("DISPLAY_LEVEL " + "1" * 5000 + "\n", 1, "long"),
                 # A bidi override in a device name would reach log lines.
                 ("# \u00e9t\u00e9 is fine here\nrshim%d sim:bf3,peer=none,rev=9\u202e\n" % BASE,
                  2, "\\xe2\\x80\\xae"))
        for text, line, what in cases:
            s = Service(["bf3"], BASE, conf="")
            with open(s.conf, "wb") as f:
                f.write(text.encode())
            self.assertEqual(self.bad_start(s), 2, repr(text) + s.text())
            errs = [ln for ln in s.text().splitlines() if "rshim-pmd.conf:" in ln]
            self.assertEqual(len(errs), 1, s.text())
            self.assertIn("rshim-pmd.conf:%d:" % line, errs[0])
            self.assertIn(what, errs[0])
            self.assertNotIn("\x1b", s.text())
            self.assertNotIn("\u202e", s.text())
            self.assertEqual(s.mounts(), [])
        for path, what in (("/dev/zero", "/dev/zero"), ("DIR", "not a regular file"),
                           ("FIFO", "not a regular file")):
            s = Service(["bf3"], BASE)
            if path == "DIR":
                path = s.tmp
            elif path == "FIFO":  # its open must not wait for a writer
                path = os.path.join(s.tmp, "conf.fifo")
                os.mkfifo(path)
            s.args[s.args.index("-c") + 1] = path
            self.assertEqual(self.bad_start(s, timeout=30), 2, path + ": " + s.text())
            self.assertIn(what, s.text())
            self.assertNotIn(" serving ", s.text())
        # /dev/null is the empty configuration: defaults, served.
        s = Service(["bf3"], BASE)
        s.args[s.args.index("-c") + 1] = "/dev/null"
        self.svcs.append(s)
        self.assertTrue(s.start(), s.text())
        self.assertIn(" serving ", s.text())

    # -- 7. sixteen devices on ordinary memory --------------------------------

    def test_sixteen_devices_no_huge(self):
        sims = ["%s,drain=1G,rev=%d" % ("bf3" if i % 2 else "bf2", i + 1) for i in range(16)]
        s = Service(sims, BASE)
        self.svcs.append(s)
        svc_helper.ENV["RSHIM_PMD_NO_HUGE"] = "1"
        try:
            self.assertTrue(s.start(expect=16, timeout=300), s.text())
        finally:
            del svc_helper.ENV["RSHIM_PMD_NO_HUGE"]
        for i in range(16):
            self.assertTrue(os.path.exists(s.node(BASE + i, "boot")), s.text())
        results = {}

        def one(i):
            results[i] = push(DEMO, s.node(BASE + i, "boot"), timeout=600)
        ts = [threading.Thread(target=one, args=(i,)) for i in range(16)]
        [t.start() for t in ts]
        [t.join(900) for t in ts]
        for i in range(16):
            self.assertEqual(results[i][0], 0, "rshim%d: %s" % (BASE + i, results[i][1]))
        self.assertEqual(s.text().count("boot push done"), 16, s.text())
        self.assertNotIn("cannot allocate", s.text())

    def test_out_of_memory_lines(self):
        # Memory for a few devices only (RSHIM_PMD_MEM_MB): the devices that
        # do not fit, and then the push whose chunks do not fit, each get
        # a line that says how much they needed and what to reserve.
        sims = ["bf3,stall=600s@256K,rev=%d" % (i + 1) for i in range(8)]
        s = Service(sims, BASE)
        self.svcs.append(s)
        svc_helper.ENV["RSHIM_PMD_NO_HUGE"] = "1"
        svc_helper.ENV["RSHIM_PMD_MEM_MB"] = "150"
        try:
            s.start(expect=8, timeout=5)
        finally:
            del svc_helper.ENV["RSHIM_PMD_NO_HUGE"], svc_helper.ENV["RSHIM_PMD_MEM_MB"]

        def settled():
            t = s.text()
            return t.count(" serving ") + t.count("out of DPDK memory for the tmfifo") == 8
        self.assertTrue(wait_for(settled, 120), s.text())
        oom = [ln for ln in s.text().splitlines() if "out of DPDK memory for the tmfifo" in ln]
        self.assertGreater(len(oom), 0, s.text())
        self.assertIn("reserve more hugepages", oom[0])
        served = [i for i in range(8) if os.path.exists(s.node(BASE + i, "boot"))]
        self.assertGreaterEqual(len(served), 4, s.text())
        # Stalled pushes keep their chunks: one of the next four cannot.
        failed = None
        for n, i in enumerate(served[:4]):
            p = subprocess.Popen(["dd", "if=" + DEMO, "of=" + s.node(BASE + i, "boot"),
                                  "bs=1M", "status=none"], stderr=subprocess.PIPE, text=True)
            self.procs.append(p)
            self.assertTrue(wait_for(lambda: s.text().count("boot push start") == n + 1, 60),
                            s.text())
            if "cannot allocate" in s.text():
                failed = p
                break
        self.assertIsNotNone(failed, s.text())
        self.assertNotEqual(failed.wait(30), 0)
        line = [ln for ln in s.text().splitlines() if "cannot allocate" in ln][0]
        self.assertIn("out of DPDK memory (a push needs", line)
        self.assertIn("reserve more hugepages", line)
        self.assertIn("boot push start: Cannot allocate memory", s.text())

    # -- 8. the smaller ones ----------------------------------------------------

    def test_missing_dev_dir(self):
        s = Service(["bf3"], BASE)
        missing = os.path.join(s.tmp, "no-such-dir")
        s.args[s.args.index("--dev-dir") + 1] = missing
        self.assertEqual(self.bad_start(s), 1, s.text())
        self.assertIn(missing, s.text())
        self.assertNotIn(" serving ", s.text())

    def test_misc_control_characters_escaped(self):
        s = self.svc(["bf3"])
        with self.assertRaises(OSError) as cm:
            misc_write(s, BASE, "DISPLAY_LEVEL \x1b[2J\x07\x01\n")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        with self.assertRaises(OSError):
            misc_write(s, BASE, "NO\x1b]0;owned\x07KEY 1\n")
        # A NUL byte would hide the rest of the line: refused, not cut.
        with self.assertRaises(OSError) as cm:
            misc_write(s, BASE, "DISPLAY_LEVEL 1\0junk")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertIn("DISPLAY_LEVEL   0", misc_lines(s, BASE))
        text = s.text()
        for c in ("\x1b", "\x07", "\x01"):
            self.assertNotIn(c, text)
        audit = [ln for ln in text.splitlines() if "audit:" in ln and "misc write" in ln]
        self.assertEqual(len(audit), 3, text)
        self.assertIn("DISPLAY_LEVEL 1\\x00junk", audit[2])
        self.assertIn("\\x1b[2J\\x07\\x01", audit[0])

    def test_same_device_twice(self):
        s = Service(["bf3", "bf3"], BASE)
        self.assertEqual(self.bad_start(s), 2, s.text())
        self.assertIn("twice", s.text())
        self.assertNotIn(" serving ", s.text())


if __name__ == "__main__":
    why = fuse_missing()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    unittest.main(verbosity=2)
