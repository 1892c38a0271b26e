#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd, the service, end to end on emulated BlueFields through its
FUSE nodes: boot pushes with cat/dd/pv, misc text, the register ioctls
bf-reg uses, the console PTY with a real terminal program, configuration
errors, the blocklist, SIGHUP, surprise removal, the per-device lock,
permissions and audit lines, telemetry, and a clean SIGTERM.

Exit 77 (skipped) only when FUSE cannot be used on this host.
"""

import errno
import hashlib
import fcntl
import os
import pty
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svc_helper import (DEMO, Service, blocked_in_fuse_write, dpu_netns, finish,  # noqa: E402
                        fuse_missing, misc_lines, misc_write, proc_dump, push, read_until,
                        wait_for)

IOC_READ, IOC_WRITE = 0xC00C5200, 0xC00C5201
IOC_READ2, IOC_WRITE2 = 0xC00D5200, 0xC00D5201
BF3_SCRATCHPAD2 = 0x13000C48
BF2_SCRATCHPAD2 = 0x00010C28
BASE = 40 + (os.getpid() % 10) * 2


def ioctl2(node, cmd, addr, data=0, size=8):
    """bf-reg's call: open for writing with truncation, 13-byte ioctl."""
    buf = bytearray(struct.pack("<IQB", addr | 0x10000000, data, size))
    with open(node, "w") as f:
        fcntl.ioctl(f, cmd, buf, True)
    return struct.unpack("<IQB", bytes(buf))[1]


def audit_lines(svc):
    return [ln for ln in svc.text().splitlines() if "audit:" in ln]


class ServiceTest(unittest.TestCase):
    def setUp(self):
        self.svcs = []

    def tearDown(self):
        finish(self, self.svcs)

    def svc(self, sims, base=BASE, expect=None, **kw):
        s = Service(sims, base, **kw)
        self.svcs.append(s)
        ok = s.start(expect=len(sims) if expect is None else expect)
        self.assertTrue(ok or expect == 0, "service did not come up:\n" + s.text())
        return s

    # -- configuration -------------------------------------------------

    def test_config_errors(self):
        for text, line in (("BOOT_TIMEOUT 300\n\nBOOT_TIMEOUT abc\n", 3),
                           ("rshimX sim:bf3\n", 1),
                           ("none notadevice\n", 1),
                           ("DISPLAY_LEVEL\n", 1),
                           ("DISPLAY_LEVEL 1e3\n", 1),
                           ("DROP_MODE -1\n", 1),
                           ("NET_OFFLOAD 2\n", 1),
                           ("POLL_RT_BOOST 1\nPOLL_RT_CAP 0\n", 2),
                           ("POLL_RT_CAP 101\n", 1)):
            s = Service(["bf3"], BASE, conf=text)
            self.svcs.append(s)
            s.start(expect=1, timeout=30)
            self.assertEqual(s.proc.wait(30), 2, s.text())
            errs = [ln for ln in s.text().splitlines() if "rshim-pmd.conf:" in ln]
            self.assertEqual(len(errs), 1, s.text())
            self.assertIn("rshim-pmd.conf:%d:" % line, errs[0])
            if "1e3" in text or "-1" in text:
                self.assertIn("a whole number 0-", errs[0])
            if "POLL_RT_CAP" in text:
                self.assertIn("a whole number 1-100", errs[0])
            self.assertEqual(s.mounts(), [])

    def test_blocklist(self):
        s = self.svc(["bf3", "bf2"], conf="none sim:bf3,peer=none\n", expect=1)
        wait_for(lambda: "serving sim:bf2" in s.text())
        self.assertIn("serving sim:bf2", s.text())
        self.assertNotIn("serving sim:bf3", s.text())
        self.assertTrue(os.path.exists(s.node(BASE, "misc")))
        self.assertIn("DEV_INFO        BlueField-2", misc_lines(s, BASE))

    # -- boot node -------------------------------------------------------

    def test_push_cat_dd_pv(self):
        s = self.svc(["bf3,drain=400M"])
        tools = ["cat", "dd"] + (["pv"] if shutil.which("pv") else [])
        size = os.path.getsize(DEMO)
        for tool in tools:
            misc_write(s, BASE, "CLEAR_ON_READ 1")
            rc, err = push(DEMO, s.node(BASE, "boot"), tool)
            self.assertEqual(rc, 0, tool + ": " + err + s.text())
            misc_write(s, BASE, "DISPLAY_LEVEL 2")
            self.assertTrue(wait_for(lambda: "DPU is ready" in misc_lines(s, BASE), 60),
                            tool + ": " + misc_lines(s, BASE))
        done = re.findall(r"boot push done: (\d+) bytes", s.text())
        self.assertEqual(len(done), len(tools), s.text())
        for d in done:
            self.assertEqual(int(d), (size + 7) // 8 * 8)
        st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
        self.assertEqual(st["boot_bytes_total"], len(tools) * ((size + 7) // 8 * 8))
        self.assertEqual(st["boot_pushes"], len(tools))
        self.assertGreater(st["mmio_writes"], 0)

    def _policies_while_pushing(self, s):
        """Scheduling policies the service's threads had while the small
        BFB went through the boot node at 2 MB/s, sampled every 5 ms."""
        res = {}
        th = threading.Thread(target=lambda: res.update(
            r=push(DEMO, s.node(s.base, "boot"))))
        seen = set()
        th.start()
        while th.is_alive():
            try:
                for tid in os.listdir("/proc/%d/task" % s.proc.pid):
                    with open("/proc/%d/task/%s/stat" % (s.proc.pid, tid)) as f:
                        seen.add(int(f.read().rsplit(")", 1)[1].split()[38]))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.005)
        th.join()
        self.assertEqual(res["r"][0], 0, res["r"][1] + s.text())
        return seen

    def test_push_priority_raise(self):
        """The service raises its poll lcore for a push as the app does
        (root: SCHED_FIFO while streaming, SCHED_OTHER before and after);
        POLL_RT_BOOST 0 never does."""
        s = self.svc(["bf2,drain=2M"])
        seen = self._policies_while_pushing(s)
        if os.geteuid() == 0:
            self.assertIn(1, seen, s.text())
            self.assertTrue(wait_for(lambda: self._all_other(s), 10), s.text())
        s.close()
        s = self.svc(["bf2,drain=2M"], base=BASE + 1, conf="POLL_RT_BOOST 0\n")
        self.assertEqual(self._policies_while_pushing(s), {0}, s.text())

    @staticmethod
    def _all_other(s):
        for tid in os.listdir("/proc/%d/task" % s.proc.pid):
            with open("/proc/%d/task/%s/stat" % (s.proc.pid, tid)) as f:
                if int(f.read().rsplit(")", 1)[1].split()[38]) != 0:
                    return False
        return True

    def test_boot_one_writer(self):
        s = self.svc(["bf3,drain=1M"])
        first = open(s.node(BASE, "boot"), "wb", buffering=0)
        try:
            with self.assertRaises(OSError) as cm:
                open(s.node(BASE, "boot"), "wb")
            self.assertEqual(cm.exception.errno, errno.EBUSY)
            first.write(b"\0" * 4096)
        finally:
            first.close()
        with self.assertRaises(OSError) as cm:
            open(s.node(BASE, "boot"), "rb")
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertTrue(any("another writer" in ln for ln in audit_lines(s)))

    def test_boot_timeout(self):
        s = self.svc(["bf3,stall=60s@256K"], conf="BOOT_TIMEOUT 1\n")
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd", timeout=120)
        self.assertNotEqual(rc, 0)
        self.assertIn("timed out", err.lower(), err)
        self.assertTrue(wait_for(lambda: "boot push Connection timed out" in s.text() or
                                 "boot push Timer expired" in s.text(), 30), s.text())

    def test_boot_interrupt(self):
        s = self.svc(["bf3,stall=120s@256K"])
        # More than the push's chunks hold (4 MiB): dd blocks in write(2).
        big = os.path.join(s.tmp, "big.bfb")
        shutil.copyfile(DEMO, big)
        with open(big, "ab") as f:
            f.write(bytes(8 << 20))
        p = subprocess.Popen(["dd", "if=" + big, "of=" + s.node(BASE, "boot"),
                              "bs=1M", "status=none"], stderr=subprocess.DEVNULL)

        def stalled():  # the DPU stops reading at 256 KiB
            st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
            return st["boot_bytes_pushed"] >= 256 << 10
        self.assertTrue(wait_for(stalled, 30), s.text())
        # The signal must find dd inside a write the stall holds: one that
        # lands between two writes (the chunks still had room) is handled
        # by dd, whose close then waits for the push like any close, up to
        # BOOT_TIMEOUT — correct, but not what this case checks.
        self.assertTrue(wait_for(lambda: blocked_in_fuse_write(p.pid), 30),
                        "dd should be stuck in the stall\n" + proc_dump(p.pid) + s.text())
        self.assertIsNone(p.poll(), "dd should be stuck in the stall")
        p.send_signal(signal.SIGINT)
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            dump = proc_dump(p.pid)
            p.kill()
            self.fail("dd did not end on SIGINT\n" + dump + s.text())
        self.assertNotEqual(p.returncode, 0)
        self.assertTrue(wait_for(lambda: "audit:" in s.text() and
                                 "boot push end:" in s.text(), 30), s.text())
        end = [ln for ln in audit_lines(s) if "boot push end" in ln][0]
        self.assertNotIn(": ok", end)
        # The node is free again.
        f = open(s.node(BASE, "boot"), "wb")
        f.close()

    # -- misc and rshim nodes ---------------------------------------------

    def test_misc_read_write(self):
        # ctrl=reply: the DPU answers the level-1 keys' control messages at
        # once (a silent one costs each level-1 read its 1 s wait).
        s = self.svc(["bf3,booted=1,ctrl=reply"])
        text = misc_lines(s, BASE)
        for key in ("DISPLAY_LEVEL", "BOOT_MODE", "BOOT_TIMEOUT", "DEV_NAME",
                    "DEV_INFO"):
            self.assertRegex(text, r"(?m)^%s\s+\S" % key)
        self.assertIn("DEV_NAME        sim:bf3", text)
        misc_write(s, BASE, "BOOT_TIMEOUT 77\n")
        self.assertIn("BOOT_TIMEOUT    77 (seconds)", misc_lines(s, BASE))
        misc_write(s, BASE, "DISPLAY_LEVEL 1\n")
        self.assertIn("CLEAR_ON_READ", misc_lines(s, BASE))
        misc_write(s, BASE, "BOOT_MODE 0\n")
        self.assertIn("BOOT_MODE       0", misc_lines(s, BASE))
        for bad, err in (("NO_SUCH 1\n", errno.EINVAL), ("BOOT_TIMEOUT x\n", errno.EINVAL),
                         ("FORCE_CMD 1\n", errno.EINVAL),  # not in drop mode
                         ("DEV_NAME x\n", errno.EOPNOTSUPP)):
            with self.assertRaises(OSError) as cm:
                misc_write(s, BASE, bad)
            self.assertEqual(cm.exception.errno, err, bad)
        # A software reset through misc, audited like every write.
        misc_write(s, BASE, "SW_RESET 1\n")
        self.assertIn("DEV_NAME", misc_lines(s, BASE))
        writes = [a for a in audit_lines(s) if "misc write" in a]
        self.assertEqual(len(writes), 8)
        self.assertTrue(writes[-1].endswith('misc write "SW_RESET 1": ok'), writes[-1])

    def test_register_ioctls(self):
        s = self.svc(["bf3", "bf2"])
        n3, n2 = s.node(BASE, "rshim"), s.node(BASE + 1, "rshim")
        ioctl2(n3, IOC_WRITE2, BF3_SCRATCHPAD2, 0x1234)
        self.assertEqual(ioctl2(n3, IOC_READ2, BF3_SCRATCHPAD2), 0x1234)
        self.assertEqual(ioctl2(n3, IOC_READ2, BF3_SCRATCHPAD2, size=4), 0x1234)
        ioctl2(n2, IOC_WRITE2, BF2_SCRATCHPAD2, 0xABCDEF0123)
        self.assertEqual(ioctl2(n2, IOC_READ2, BF2_SCRATCHPAD2), 0xABCDEF0123)
        # The 12-byte ioctls (no size byte): channel<<16 | offset.
        buf = bytearray(struct.pack("<IQ", 0x00010C28, 0))
        with open(n2, "r+b") as f:
            fcntl.ioctl(f, IOC_READ, buf, True)
        self.assertEqual(struct.unpack("<IQ", bytes(buf))[1], 0xABCDEF0123)
        # Any register of the window, not only the driver's table.
        ioctl2(n3, IOC_READ2, 0x13000c60)
        for args, err in (((IOC_READ2, BF3_SCRATCHPAD2, 0, 3), errno.EINVAL),
                          ((IOC_READ2, 0x13000c4c), errno.EINVAL),
                          ((IOC_READ2, 0x14000000), errno.EINVAL),
                          ((0xC00E5200, BF3_SCRATCHPAD2), errno.ENOTTY)):
            with self.assertRaises(OSError) as cm:
                ioctl2(n3, *args)
            self.assertEqual(cm.exception.errno, err, hex(args[0]))
        writes = [a for a in audit_lines(s) if "register write" in a]
        self.assertEqual(len(writes), 2)
        self.assertIn("uid=0 pid=%d" % os.getpid(), writes[0])

    # -- console -----------------------------------------------------------

    def test_console_terminal(self):
        s = self.svc(["bf3,booted=1,peer=none"])
        link = s.node(BASE, "console")
        self.assertTrue(os.path.islink(link))
        self.assertTrue(os.readlink(link).startswith("/dev/pts/"))
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY)
        self.assertTrue(os.isatty(fd))
        os.close(fd)
        if not shutil.which("picocom"):
            self.skipTest("picocom missing")
        # picocom on a terminal of its own, driven by what it shows.
        pid, term = pty.fork()
        if pid == 0:
            os.execvp("picocom", ["picocom", "-b", "115200", "--omap", "crlf", link])
        try:
            os.set_blocking(term, False)
            seen = read_until(term, b"Terminal ready", 30)
            self.assertIn(b"Terminal ready", seen)
            tag = b"svc-%d-%d" % (BASE, os.getpid())
            os.write(term, b"echo " + tag + b"\r")
            # picocom does not echo locally: the text came back from the DPU.
            self.assertIn(tag, read_until(term, tag, 30))
            os.write(term, b"\x01\x18")  # C-a C-x: quit
            self.assertEqual(os.waitpid(pid, 0)[0], pid)
            pid = 0
        finally:
            if pid:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            os.close(term)

    def test_console_wakeups(self):
        # The relay sleeps on the channels' eventfds: DPU console bytes reach
        # the terminal (each round trip is one wake-up on a descriptor), and
        # an idle service wakes only for its housekeeping timeout: no
        # polling tick, no retry timer, no descriptor. Counted by reason in
        # the relay's telemetry, so how long the host takes does not matter.
        s = self.svc(["bf3,booted=1,peer=none"])
        fd = os.open(s.node(BASE, "console"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        # whatever the DPU printed at start: its banner
        start = read_until(fd, b"rshim-pmd emulated BlueField-3", 30)

        def relay():
            st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
            return {k: st[k] for k in ("relay_wakeups", "relay_wake_fd",
                                       "relay_timeouts", "relay_timeouts_idle",
                                       "relay_timeouts_retry")}
        r0 = relay()
        for i in range(3):
            tag = b"wake-%d-%d" % (BASE, i)
            os.write(fd, tag + b"\r\n")
            self.assertIn(tag, read_until(fd, tag, 30), start)
        r1 = relay()
        # typed bytes and the echo: descriptors woke it (3 round trips)
        self.assertGreaterEqual(r1["relay_wake_fd"] - r0["relay_wake_fd"], 3, (r0, r1))
        # Idle from the first housekeeping timeout after the echoes; then
        # one more of them, and nothing else in between.
        self.assertTrue(wait_for(lambda: relay()["relay_timeouts_idle"] >
                                 r1["relay_timeouts_idle"], 30), s.text())
        w0 = relay()
        self.assertTrue(wait_for(lambda: relay()["relay_timeouts_idle"] >
                                 w0["relay_timeouts_idle"], 30), s.text())
        w1 = relay()
        os.close(fd)
        d = {k: w1[k] - w0[k] for k in w0}
        print("relay wake-ups while idle, by reason: %s" % d, file=sys.stderr)
        self.assertGreaterEqual(d["relay_timeouts_idle"], 1, d)
        self.assertEqual(d["relay_wake_fd"], 0, d)
        self.assertEqual(d["relay_timeouts_retry"], 0, d)
        self.assertEqual(d["relay_wakeups"], d["relay_timeouts_idle"], d)
        self.assertEqual(d["relay_timeouts"], d["relay_timeouts_idle"], d)

    def test_console_buffered_across_boot(self):
        s = self.svc(["bf3,drain=0"])
        rc, err = push(DEMO, s.node(BASE, "boot"))
        self.assertEqual(rc, 0, err)
        banner = b"rshim-pmd emulated BlueField-3"

        def printed():
            st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
            return st["console_rx_bytes"] > len(banner)
        # The DPU printed its banner while nobody read: it waits in the PTY.
        self.assertTrue(wait_for(printed, 30), s.text())
        fd = os.open(s.node(BASE, "console"), os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
        got = read_until(fd, banner, 30)
        os.close(fd)
        self.assertIn(banner, got)

    # -- many devices, ownership, signals ----------------------------------------

    def test_four_devices_parallel(self):
        s = self.svc(["bf3,drain=200M", "bf2,drain=200M", "bf3,drain=200M,rev=1",
                      "bf1,drain=200M"])
        results = {}

        def one(i):
            results[i] = push(DEMO, s.node(BASE + i, "boot"))
        ts = [threading.Thread(target=one, args=(i,)) for i in range(4)]
        [t.start() for t in ts]
        [t.join(300) for t in ts]
        for i in range(4):
            self.assertEqual(results[i][0], 0, results[i][1])
            misc_write(s, BASE + i, "DISPLAY_LEVEL 2")
            self.assertTrue(wait_for(lambda: "DPU is ready" in misc_lines(s, BASE + i), 60))
        self.assertEqual(s.text().count("boot push done"), 4)
        self.assertEqual(s.telemetry("/rshim/list")["/rshim/list"],
                         [BASE, BASE + 1, BASE + 2, BASE + 3])

    def test_restart_after_crash(self):
        s = self.svc(["bf3"])
        fd = os.open(s.node(BASE, "console"), os.O_RDONLY | os.O_NOCTTY)
        os.close(fd)
        s.proc.kill()
        s.proc.wait(30)
        with self.assertRaises(OSError):
            os.listdir(s.node(BASE))
        # Same node and lock directories: the stale mount and the lock of a
        # dead process do not stop the restarted service.
        s.stop()
        s2 = Service(["bf3"], BASE, tmp=s.tmp)
        self.svcs.remove(s)
        self.svcs.append(s2)
        self.assertTrue(s2.start(), s2.text())
        self.assertIn("stale mount", s2.text())
        self.assertIn("DEV_INFO        BlueField-3", misc_lines(s2, BASE))
        self.assertEqual(s2.stop(), 0)
        self.assertEqual(s2.mounts(), [])

    def test_index_in_use_by_another_service(self):
        s = self.svc(["bf3"])
        s2 = Service(["bf2"], BASE)
        s2.args[s2.args.index("--dev-dir") + 1] = s.dev_dir
        self.svcs.append(s2)
        s2.start(expect=0)
        self.assertTrue(wait_for(lambda: "mounted by another process" in s2.text(), 30),
                        s2.text())
        self.assertIn("BlueField-3", misc_lines(s, BASE))
        self.assertEqual(s2.stop(), 0)
        self.assertIn("BlueField-3", misc_lines(s, BASE))

    def test_lock_refuses_second_instance(self):
        # One shareable device (shared= emulation, as a PCI function would
        # be) served by two services: the second is refused, naming the
        # first. Private emulations are each process's own: no lock.
        dev = "bf3,shared=svcl%d" % os.getpid()
        s = self.svc([dev])
        s2 = Service([dev], BASE + 5, tmp=None)
        s2.run_dir = s.run_dir
        s2.args[s2.args.index("--run-dir") + 1] = s.run_dir
        self.svcs.append(s2)
        s2.start(expect=1, timeout=30)
        self.assertEqual(s2.proc.wait(30), 3, s2.text())
        line = [ln for ln in s2.text().splitlines() if "held by" in ln]
        self.assertEqual(len(line), 1, s2.text())
        self.assertIn("held by rshim-pmd pid %d;" % s.proc.pid, line[0])
        self.assertIn("/dev/rshim%d/boot" % BASE, line[0])
        self.assertEqual(s2.mounts(), [])
        self.assertTrue(os.path.exists(s.node(BASE, "misc")))
        self.assertEqual(os.listdir(s.run_dir), ["sim-shared-svcl%d.lock" % os.getpid()])
        # A private sim:bf3 of a third service is another device: served.
        s3 = Service(["bf3"], BASE + 6, tmp=None)
        s3.args[s3.args.index("--run-dir") + 1] = s.run_dir
        self.svcs.append(s3)
        self.assertTrue(s3.start(), s3.text())
        self.assertIn("BlueField-3", misc_lines(s3, BASE + 6))

    def test_sighup_add_rename_block(self):
        s = self.svc(["bf3"])
        pts = os.readlink(s.node(BASE, "console"))
        s.write_conf("rshim%d sim:bf2,peer=none\n" % (BASE + 3))
        s.hup()
        self.assertTrue(wait_for(lambda: os.path.exists(s.node(BASE + 3, "misc")), 30),
                        s.text())
        self.assertIn("BlueField-2", misc_lines(s, BASE + 3))
        self.assertEqual(os.readlink(s.node(BASE, "console")), pts)
        s.write_conf("rshim%d sim:bf2,peer=none\n" % (BASE + 4))
        s.hup()
        self.assertTrue(wait_for(lambda: os.path.exists(s.node(BASE + 4, "misc")), 30))
        self.assertFalse(os.path.exists(s.node(BASE + 3, "misc")))
        s.write_conf("rshim%d sim:bf2,peer=none\nnone sim:bf3,peer=none\n" % (BASE + 4))
        s.hup()
        self.assertTrue(wait_for(lambda: not os.path.exists(s.node(BASE, "misc")), 30))
        self.assertIn("BlueField-2", misc_lines(s, BASE + 4))
        s.write_conf("BOOT_TIMEOUT nope\n")
        s.hup()
        self.assertTrue(wait_for(lambda: "configuration not reloaded" in s.text(), 30))
        self.assertIsNone(s.proc.poll())
        self.assertIn("BlueField-2", misc_lines(s, BASE + 4))

    def test_sighup_during_push(self):
        s = self.svc(["bf3,drain=1M"])
        p = subprocess.Popen(["dd", "if=" + DEMO, "of=" + s.node(BASE, "boot"), "bs=1M",
                              "status=none"], stderr=subprocess.PIPE, text=True)
        self.assertTrue(wait_for(lambda: "boot push start" in s.text(), 30))
        s.write_conf("rshim%d sim:bf2,peer=none\n" % (BASE + 1))
        s.hup()
        self.assertTrue(wait_for(lambda: os.path.exists(s.node(BASE + 1, "misc")), 30),
                        s.text())
        self.assertIsNone(p.poll(), "the push should still run (drain 1 MB/s)")
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 0, err + s.text())
        # The release (tail, BOOT_CONTROL=1) follows the writer's close.
        self.assertTrue(wait_for(lambda: "boot push done" in s.text(), 60), s.text())
        self.assertIn("BlueField-2", misc_lines(s, BASE + 1))

    def test_tap_offload(self):
        # tmfifo_netN carries TCP both ways with 64 KiB TAP reads cut in
        # the service (TSO) and DPU frames merged before the write (GRO):
        # bytes intact, the counters show both, no drops. The service and
        # the emulated DPU each have a namespace of this run's own.
        s = self.svc(["bf3,booted=1,peer=0"], net=True)
        ns, dpu_ns = s.netns, dpu_netns(0)
        tap = "tmfifo_net%d" % BASE
        for cmd in (["addr", "add", "192.168.100.1/24", "dev", tap],
                    ["link", "set", tap, "up"]):
            self.assertEqual(s.ip(*cmd), 0, cmd)
        self.assertTrue(wait_for(lambda: subprocess.call(
            ["ip", "netns", "exec", ns, "ping", "-c1", "-W1", "192.168.100.2"],
            stdout=subprocess.DEVNULL) == 0, 30), s.text())
        xfer = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "..", "sim", "tmfifo", "tcp_xfer.py")
        blob = os.path.join(s.tmp, "blob")
        with open(blob, "wb") as f:
            f.write(os.urandom(16 << 20))
        with open(blob, "rb") as f:
            want = "%s %d" % (hashlib.sha256(f.read()).hexdigest(), 16 << 20)
        for rx_ns, tx_ns, dst, port in ((dpu_ns, ns, "192.168.100.2", 5011),
                                        (ns, dpu_ns, "192.168.100.1", 5012)):
            rx = subprocess.Popen(["ip", "netns", "exec", rx_ns, "python3", xfer,
                                   "recv", str(port)], stdout=subprocess.PIPE, text=True)
            rc = subprocess.call(["ip", "netns", "exec", tx_ns, "python3", xfer,
                                  "send", dst, str(port), blob], timeout=120)
            got = rx.communicate(timeout=120)[0].strip()
            self.assertEqual(rc, 0, s.text())
            self.assertEqual(got, want, "to %s" % dst)
        st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
        self.assertEqual(st["tap_offload"], 1, st)
        self.assertGreater(st["tap_gso_frames"], 0, st)
        self.assertGreater(st["tap_gso_segments"], st["tap_gso_frames"], st)
        self.assertGreater(st["tap_gro_out"], 0, st)
        self.assertGreater(st["tap_gro_merged"], st["tap_gro_out"], st)
        for k in ("tap_drop_short", "tap_drop_bad_csum", "tap_drop_bad_gso",
                  "tap_drop_gso_type", "tap_drop_nombuf", "tap_write_errors"):
            self.assertEqual(st[k], 0, st)

    def test_net_offload_off(self):
        # NET_OFFLOAD 0: tmfifo_netN is a plain TAP, nothing cut or merged.
        s = self.svc(["bf3"], net=True, conf="NET_OFFLOAD 0\n")
        self.assertIsNotNone(s.tap(BASE))
        st = s.telemetry("/rshim/stats,%d" % BASE)["/rshim/stats"]
        self.assertEqual(st["tap_offload"], 0, st)
        self.assertEqual(st["tap_gso_frames"], 0, st)
        self.assertNotIn("no TSO/GRO offloads", s.text())

    def test_surprise_removal(self):
        s = self.svc(["bf3,gone@1M", "bf2"], net=True)

        def up():
            return s.tap(BASE)["up"]
        self.assertTrue(up())
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd")
        self.assertNotEqual(rc, 0)
        self.assertTrue(wait_for(lambda: "marked gone" in s.text(), 30), s.text())
        self.assertTrue(wait_for(lambda: not up(), 10), "tmfifo_net%d still up" % BASE)
        with self.assertRaises(OSError) as cm:
            misc_lines(s, BASE)
        self.assertEqual(cm.exception.errno, errno.ENODEV)
        info = s.telemetry("/rshim/info,%d" % BASE)["/rshim/info"]
        self.assertEqual(info["state"], "gone")
        self.assertIn("BlueField-2", misc_lines(s, BASE + 1))

    def test_hot_return(self):
        # gone@time: then return=: the device leaves on its own and comes
        # back powered on fresh; the service follows it both ways, once each.
        s = self.svc(["bf3,gone@time:1s,return=2s", "bf2"], net=True)

        def up():
            return s.tap(BASE)["up"]
        self.assertTrue(wait_for(lambda: "marked gone" in s.text(), 60), s.text())
        self.assertFalse(up())
        with self.assertRaises(OSError) as cm:
            misc_lines(s, BASE)
        self.assertEqual(cm.exception.errno, errno.ENODEV)
        self.assertTrue(wait_for(lambda: "answers again" in s.text(), 60), s.text())
        self.assertTrue(wait_for(up, 30))
        self.assertIn("BlueField-3", misc_lines(s, BASE))
        rc, err = push(DEMO, s.node(BASE, "boot"), "dd")
        self.assertEqual(rc, 0, err + s.text())
        self.assertTrue(wait_for(lambda: "boot push done" in s.text(), 60), s.text())
        info = s.telemetry("/rshim/info,%d" % BASE)["/rshim/info"]
        self.assertNotEqual(info["state"], "gone")
        self.assertEqual(s.text().count("marked gone"), 1, s.text())
        self.assertEqual(s.text().count("answers again"), 1, s.text())
        self.assertIn("BlueField-2", misc_lines(s, BASE + 1))

    def test_app_push_via_service(self):
        app = os.environ.get("RSHIM_PMD_APP")
        if not app:
            self.skipTest("RSHIM_PMD_APP not set")
        s = self.svc(["bf3"])
        env = dict(os.environ, RSHIM_PMD_DEV_DIR=s.dev_dir, RSHIM_PMD_RUN_DIR=s.run_dir)
        p = subprocess.run([app, "--device", "rshim%d" % BASE, "--push-boot", DEMO,
                            "--no-progress"], env=env, capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        size = os.path.getsize(DEMO)
        self.assertRegex(p.stdout, r"rshim%d: pushed %d bytes in .* MiB/s; through %s"
                         % (BASE, size, re.escape(s.node(BASE, "boot"))))
        self.assertTrue(wait_for(lambda: "boot push done" in s.text(), 30))
        # Opening a held (shareable) device directly is refused, naming the
        # service; a private sim:bf3 of the app's own is another device.
        shared = "bf3,shared=svca%d,peer=none" % os.getpid()
        s2 = self.svc([shared], base=BASE + 1)
        p = subprocess.run([app, "--device", "sim:" + shared, "--push-boot", DEMO],
                           env=dict(env, RSHIM_PMD_RUN_DIR=s2.run_dir),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("held by rshim-pmd pid %d; use its nodes instead, e.g. "
                      "rshim-pmd-app --device rshim%d" % (s2.proc.pid, BASE + 1), p.stderr)
        p = subprocess.run([app, "--device", "sim:bf3,peer=none", "--push-boot", DEMO,
                            "--no-progress", "--reset-delay", "0"],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = subprocess.run([app, "--device", "rshim%d" % (BASE + 7), "--push-boot", DEMO],
                           env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("no rshim-pmd service serves", p.stderr)

    # -- access control, telemetry, shutdown -------------------------------------

    def _as_nobody(self, fn):
        pid = os.fork()
        if pid == 0:
            try:
                os.setgid(65534)
                os.setgroups([])
                os.setuid(65534)
                os._exit(fn())
            except BaseException:
                os._exit(99)
        return os.waitpid(pid, 0)[1] >> 8

    def _try_misc(self, path):
        def fn():
            try:
                fd = os.open(path, os.O_WRONLY)
                os.write(fd, b"DISPLAY_LEVEL 1")
                os.close(fd)
                return 0
            except PermissionError:
                return 13
        return fn

    def test_permissions_and_audit(self):
        s = self.svc(["bf3"])
        self.assertEqual(os.stat(s.node(BASE, "misc")).st_mode & 0o777, 0o600)
        self.assertEqual(self._as_nobody(self._try_misc(s.node(BASE, "misc"))), 13)
        s.stop()
        import grp
        group = grp.getgrgid(65534).gr_name
        s2 = self.svc(["bf3"], base=BASE + 1, conf="NODE_GROUP %s\n" % group)
        st = os.stat(s2.node(BASE + 1, "misc"))
        self.assertEqual((st.st_mode & 0o777, st.st_gid), (0o660, 65534))
        self.assertEqual(self._as_nobody(self._try_misc(s2.node(BASE + 1, "misc"))), 0)
        a = [ln for ln in audit_lines(s2) if "DISPLAY_LEVEL 1" in ln]
        self.assertEqual(len(a), 1)
        self.assertRegex(a[0], r"rshim%d: audit: uid=65534 pid=\d+ misc write .*: ok"
                         % (BASE + 1))

    def test_sigterm_leaves_nothing(self):
        s = self.svc(["bf3,shared=svct%d" % os.getpid(), "bf2,shared=svcu%d" % os.getpid()],
                     net=True)
        for i in range(2):
            self.assertIsNotNone(s.tap(BASE + i), s.text())
        self.assertEqual(s.tap(BASE + 1)["address"], "00:1a:ca:ff:ff:%02x" % (2 + 2 * (BASE + 1)))
        self.assertEqual(len(os.listdir(s.run_dir)), 2)
        self.assertEqual(s.stop(), 0)
        self.assertEqual(s.mounts(), [])
        self.assertEqual(os.listdir(s.dev_dir), [])
        self.assertEqual(os.listdir(s.run_dir), [])
        for i in range(2):
            self.assertIsNone(s.tap(BASE + i))
        self.assertFalse(os.path.exists("/var/run/dpdk/%s" % s.prefix))
        for name in ("svct", "svcu"):
            self.assertFalse(os.path.exists("/dev/shm/rshim-sim-%s%d" % (name, os.getpid())))


if __name__ == "__main__":
    why = fuse_missing()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    unittest.main(verbosity=2)
