#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd as a drop-in for NVIDIA's rshim daemon 2.8.2, on emulated
BlueFields: secure NIC mode and a BMC owner at start still get their
nodes, NVIDIA's own rshim.conf sample, its option letters and `rshim -c`
command mode, the console as a terminal with one interactive owner, the
app's modes through the service, misc during a push and SW_RESET, ifup on
tmfifo_netN, the telemetry client and the troubleshooting logs.

Exit 77 (skipped) only when FUSE cannot be used on this host.
"""

import errno
import grp
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svc_helper  # noqa: E402
from svc_helper import (DEMO, ENV, SVC, Service, assert_clean, finish, fuse_missing,  # noqa: E402
                        misc_lines, misc_write, push, read_until, wait_for)

BANNER = b"rshim-pmd emulated BlueField-3"


def stats(svc, idx):
    return svc.telemetry("/rshim/stats,%d" % idx)["/rshim/stats"]

# Per-run indexes, away from the other service tests (40-119, 100-239).
BASE = 240 + (os.getpid() % 2) * 7
APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
SIM_BMC = os.environ.get("RSHIM_SIM_BMC", "rshim-sim-bmc")
HERE = os.path.dirname(os.path.abspath(__file__))
# The layout of the rshim.conf NVIDIA's rshim-user-space 2.8.2 installs:
# every key commented out at its default, each under a comment block, the
# rshimN and none examples last. RSHIM_PMD_NVIDIA_CONF names the real file
# (e.g. /etc/rshim.conf of an rshim package) to run the case on it instead.
NVIDIA_SAMPLE = """#
# rshim driver configuration (the layout of NVIDIA's sample)
#

# misc display level
#DISPLAY_LEVEL 0

# boot stream timeout, seconds
#BOOT_TIMEOUT  300

# libusb timeout, seconds
#USB_TIMEOUT  40

# drop mode
#DROP_MODE     0

# force mode
#FORCE_MODE     1

# USB reset delay, seconds
#USB_RESET_DELAY  1

# PCIe reset delay, seconds
#PCIE_RESET_DELAY 5

# interrupt poll interval
#PCIE_INTR_POLL_INTERVAL 10

# VFIO and UIO allowed
#PCIE_HAS_VFIO 1
#PCIE_HAS_UIO  1

# rshim-name  device-name
#rshim0       usb-2-1.7
#rshim1       pcie-0000:04:00.2

# ignored devices
#none         usb-1-1.4
#none         pcie-lf-0000:84:00.0
"""


def uncomment(text, *keys):
    """NVIDIA's sample with the lines starting with '#KEY' uncommented."""
    out = []
    for ln in text.splitlines():
        if any(ln.startswith("#" + k) for k in keys):
            ln = ln[1:]
        out.append(ln)
    return "\n".join(out) + "\n"


class ParityTest(unittest.TestCase):
    def setUp(self):
        self.svcs = []
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
            if p.stdout is not None:
                p.stdout.close()
        finish(self, self.svcs)

    def svc(self, sims, base=BASE, expect=None, **kw):
        s = Service(sims, base, **kw)
        self.svcs.append(s)
        ok = s.start(expect=len(sims) if expect is None else expect)
        self.assertTrue(ok, "service did not come up:\n" + s.text())
        self.assertIsNone(s.proc.poll(), s.text())
        return s

    def cmd(self, s, *args, ok=True):
        """`rshim-pmd -c ARGS` against service s: (exit code, stdout, stderr)."""
        p = subprocess.run([SVC, "-c"] + list(args) + ["--dev-dir", s.dev_dir,
                                                        "--run-dir", s.run_dir],
                           capture_output=True, text=True, timeout=60, env=ENV)
        self.clean(p.stderr)
        if ok:
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.returncode, p.stdout, p.stderr

    def clean(self, text):
        """No sanitizer report in a tool's own output."""
        assert_clean(self, text)

    # -- 1. secure NIC mode: nodes, EPERM, the index kept ----------------

    def test_secure_mode_nodes(self):
        s = self.svc(["bf3,lock=1", "bf2"])
        # Both devices are served, each under the index of its place.
        self.assertTrue(os.path.exists(s.node(BASE, "misc")), s.text())
        self.assertIn("serving sim:bf2", s.text())
        self.assertTrue(os.path.exists(s.node(BASE + 1, "misc")), s.text())
        text = misc_lines(s, BASE)
        self.assertRegex(text, r"(?m)^SECURE_NIC_MODE 1")
        self.assertIn("DEV_NAME        sim:bf3,lock=1", text)
        with self.assertRaises(OSError) as e:
            open(s.node(BASE, "boot"), "wb").close()
        self.assertEqual(e.exception.errno, errno.EPERM)
        with self.assertRaises(OSError) as e:
            os.close(os.open(s.node(BASE, "console"), os.O_RDWR | os.O_NOCTTY))
        self.assertEqual(e.exception.errno, errno.EPERM)
        self.assertIn("DEV_NAME        sim:bf2", misc_lines(s, BASE + 1))

    # -- 5. the console: one owner, raw, output held for the next opener ----

    def test_console_single_user(self):
        s = self.svc(["bf3,booted=1"])
        link = s.node(BASE, "console")
        pts = os.readlink(link)
        self.assertTrue(pts.startswith("/dev/pts/"), pts)
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            self.assertEqual(os.readlink(link), ".in-use")
            with self.assertRaises(OSError) as e:
                os.open(link, os.O_RDWR | os.O_NOCTTY)
            self.assertEqual(e.exception.errno, errno.EBUSY)
            # The owner has the whole output: its banner.
            self.assertIn(BANNER, read_until(fd, BANNER, 30))
        finally:
            os.close(fd)
        # Free again as soon as the owner closed.
        self.assertEqual(os.readlink(link), pts)
        os.close(os.open(link, os.O_RDWR | os.O_NOCTTY))
        self.assertIn("console open: Device or resource busy", s.text())

    def test_console_exclusive_for_group(self):
        # NODE_GROUP makes the terminal 0660: while a client has the console
        # open, a group member opening /dev/pts/M by that name gets EBUSY,
        # as through the link.
        group = grp.getgrgid(65534).gr_name
        s = self.svc(["bf3,booted=1"], conf="NODE_GROUP %s\n" % group)
        link = s.node(BASE, "console")
        pts = os.readlink(link)
        st = os.stat(pts)
        self.assertEqual((st.st_mode & 0o777, st.st_gid), (0o660, 65534))

        def member_open():
            try:
                os.close(os.open(pts, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
                return 0
            except OSError as e:
                return e.errno
        self.assertEqual(self.as_nobody(member_open), 0)
        self.assertEqual(os.readlink(link), pts)
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            self.assertEqual(os.readlink(link), ".in-use")
            self.assertEqual(self.as_nobody(member_open), errno.EBUSY)
        finally:
            os.close(fd)
        self.assertEqual(os.readlink(link), pts)
        self.assertEqual(self.as_nobody(member_open), 0)

    @staticmethod
    def as_nobody(fn):
        """fn() in a child as uid/gid 65534; its return value."""
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
                os._exit(fn())
            except BaseException:
                os._exit(99)
        return os.waitpid(pid, 0)[1] >> 8

    def test_console_stty_sane_no_echo_loop(self):
        s = self.svc(["bf3,booted=1"])
        fd = os.open(s.node(BASE, "console"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            read_until(fd, BANNER, 30)
            # What `stty sane` does to the line: echo and line processing on.
            attrs = termios.tcgetattr(fd)
            attrs[3] |= termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN
            attrs[1] |= termios.OPOST | termios.ONLCR
            attrs[0] |= termios.ICRNL
            termios.tcsetattr(fd, termios.TCSANOW, attrs)
            sent = 0
            for i in range(2):
                # The second line's answer comes after anything the first
                # answer could have been echoed into.
                tag = b"sane-%d-%d" % (os.getpid(), i)
                line = b"echo " + tag + b"\r\n"
                os.write(fd, line)
                sent += len(line)
                got = read_until(fd, tag, 30)
                self.assertIn(tag, got, (stats(s, BASE), s.text()))
            st = stats(s, BASE)
            self.assertGreaterEqual(st["console_raw_restored"], 1, st)
            # Raw again, and the DPU's output was never fed back into it:
            # the DPU got what was typed (ONLCR may have added one CR).
            attrs = termios.tcgetattr(fd)
            self.assertEqual(attrs[3] & (termios.ECHO | termios.ICANON), 0)
            self.assertGreaterEqual(st["console_to_dpu"], sent, st)
            self.assertLessEqual(st["console_to_dpu"], sent + 1, st)
        finally:
            os.close(fd)

    def test_console_held_output_for_terminal_program(self):
        # booted=1: the DPU prints its banner at power-on, while nobody has
        # the console open; a terminal program that flushes its input when
        # it starts (as screen and picocom do) still gets it.
        s = self.svc(["bf3,booted=1"])
        self.assertTrue(wait_for(lambda: stats(s, BASE)["console_rx_bytes"] > len(BANNER), 30))
        fd = os.open(s.node(BASE, "console"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            attrs = termios.tcgetattr(fd)
            termios.tcsetattr(fd, termios.TCSAFLUSH, attrs)
            termios.tcflush(fd, termios.TCIOFLUSH)
            self.assertIn(BANNER, read_until(fd, BANNER, 30))
        finally:
            os.close(fd)
        s2 = self.svc(["bf3,booted=1"], base=BASE + 5)
        self.assertTrue(wait_for(lambda: stats(s2, BASE + 5)["console_rx_bytes"] > len(BANNER),
                                 30))
        if not shutil.which("picocom"):
            self.skipTest("picocom missing")
        # picocom on a terminal of its own, driven by what it shows.
        pid, term = pty.fork()
        if pid == 0:
            os.execvp("picocom", ["picocom", "-b", "115200", s2.node(BASE + 5, "console")])
        try:
            os.set_blocking(term, False)
            seen = read_until(term, BANNER, 30)
            self.assertIn(b"Terminal ready", seen)
            self.assertIn(BANNER, seen)
            os.write(term, b"\x01\x18")  # C-a C-x: quit
            self.assertEqual(os.waitpid(pid, 0)[0], pid)
            pid = 0
        finally:
            if pid:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            os.close(term)

    # -- 7. misc during a push, SW_RESET, 32-bit access --------------------

    def keys(self, text):
        return [ln.split()[0] for ln in text.splitlines() if ln.strip()]

    def test_misc_during_push_same_keys(self):
        # The test is the writer: misc is read between the writes and the
        # close, so the push owns the device throughout the read; drain=512K
        # keeps the 1.5 MiB stream going for about three seconds, and the
        # counters show it still streaming once the read returned.
        s = self.svc(["bf2,drain=512K", "bf3,drain=512K"])
        with open(DEMO, "rb") as f:
            data = f.read()
        for i, want in ((0, ("BlueField-2(Rev 1)", "MBF2M516A-CEEOT", "USB_TIMEOUT")),
                        (1, ("BlueField-3(Rev 1)", "SECURE_NIC_MODE", "USB_TIMEOUT"))):
            idx = BASE + i
            idle = misc_lines(s, idx)
            boot = open(s.node(idx, "boot"), "wb", buffering=0)  # the reset is over
            try:
                boot.write(data)
                self.assertTrue(wait_for(lambda: stats(s, idx)["boot_bytes_pushed"] > 0, 60))
                during = misc_lines(s, idx)
                pushed = stats(s, idx)["boot_bytes_pushed"]
            finally:
                boot.close()  # the push's result: raises if it failed
            self.assertLess(pushed, len(data), "the stream was over before misc was read")
            self.assertEqual(stats(s, idx)["boot_pushes"], 1)
            self.assertEqual(self.keys(during), self.keys(idle), during)
            for key in ("DEV_INFO", "OPN_STR", "DEV_NAME"):
                line = [ln for ln in idle.splitlines() if ln.startswith(key)]
                self.assertIn(line[0], during)
            for text in want:
                self.assertIn(text, during)

    def test_misc_sw_reset_waits_for_reset(self):
        # resetwin=1500ms: after the reset key every read of the emulated
        # rshim returns the "not reachable" pattern for 1.5 s. A write that
        # returned before the reset was over would leave the read below
        # inside that window.
        s = self.svc(["bf3,booted=1,resetwin=1500ms"], conf="PCIE_RESET_DELAY 1\n")
        sp3 = "0x13000c50.64"  # SCRATCHPAD3: boot progress in bits 7:0
        self.cmd(s, "-i", str(BASE), "-r", sp3, "0")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", sp3)
        self.assertEqual(out, "[0x13000c50] -> 0x0000000000000000\n")
        misc_write(s, BASE, "SW_RESET 1")
        # When the write returns the ARM was reset (the boot ROM wrote its
        # progress: booted from eMMC) and the rshim answers again.
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", sp3)
        self.assertEqual(out, "[0x13000c50] -> 0x0000000000000004\n")
        text = s.text()
        self.assertEqual(text.count("resetting the ARM (software reset)"), 1, text)
        self.assertLess(text.index("resetting the ARM"), text.index("SW_RESET done"), text)
        self.assertLess(text.index("SW_RESET done"), text.index("SW_RESET 1\": ok"), text)

    def test_misc_opn_bf3_write_32bit(self):
        s = self.svc(["bf3"])
        misc_write(s, BASE, "OPN_STR 900-9D3B6-00CV")
        self.assertRegex(misc_lines(s, BASE), r"(?m)^OPN_STR\s+900-9D3B6-00CV$")
        # The first word through the node, 32 bits: '900-' in its bytes.
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", "0x59bdc.32")
        self.assertEqual(out, "[0x59bdc] -> 0x000000003930302d\n")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", "0x59bdc.32", "0x41424344")
        self.assertRegex(misc_lines(s, BASE), r"(?m)^OPN_STR\s+ABCD9D3B6-00CV$")

    # -- 6. every app mode through the service's nodes ---------------------

    def app(self, s, *args, stdin=None):
        env = dict(ENV, RSHIM_PMD_DEV_DIR=s.dev_dir, RSHIM_PMD_RUN_DIR=s.run_dir)
        p = subprocess.run([APP, "--device", "rshim%d" % BASE] + list(args), input=stdin,
                           capture_output=True, text=True, timeout=120, env=env)
        self.clean(p.stderr)
        return p.returncode, p.stdout, p.stderr

    def test_app_modes_through_service(self):
        s = self.svc(["bf3,booted=1"])
        rc, out, err = self.app(s, "--misc")
        self.assertEqual(rc, 0, err)
        self.assertIn("DEV_NAME        sim:bf3", out)
        rc, out, err = self.app(s, "--misc-set", "BOOT_TIMEOUT 77;CLEAR_ON_READ 0")
        self.assertEqual((rc, out.count(": done")), (0, 2), err)
        self.assertIn("BOOT_TIMEOUT    77", misc_lines(s, BASE))
        rc, out, err = self.app(s, "--reg", "BREADCRUMB1=0x5")
        self.assertEqual(rc, 0, err)
        rc, out, err = self.app(s, "--reg", "BREADCRUMB1")
        self.assertEqual(rc, 0, err)
        self.assertIn("BREADCRUMB1 (BAR 0x000518) = 0x0000000000000005", out)
        self.assertIn("register write 0x13000518 <- 0x5: ok", s.text())
        rc, out, err = self.app(s, "--log")
        self.assertEqual(rc, 0, err)
        self.assertRegex(out, r"rshim%d: \d+ log lines?, 0 errors" % BASE)
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DISPLAY_LEVEL\s+0")
        rc, out, err = self.app(s, "--reset")
        self.assertEqual(rc, 0, err)
        self.assertIn("ARM reset done", out)
        self.assertIn("SW_RESET done", s.text())
        rc, out, err = self.app(s, "--console", stdin="echo via-node\r\n")
        self.assertEqual(rc, 0, err)
        self.assertIn("via-node", out)
        rc, out, err = self.app(s, "--misc", "--json")
        self.assertEqual(rc, 2)
        self.assertIn("--json", err)
        self.assertNotIn("unknown device string", err)

    # -- 8. ifup tmfifo_netN; 9. the telemetry client ---------------------

    def test_net_ifup_on_tap(self):
        # A stand-in ifup first on PATH records what it was asked, and the
        # signals it got blocked or ignored (none: it is a fresh process,
        # not a copy of the service's signal state).
        bindir = tempfile.mkdtemp(prefix="rshim-ifup-")
        rec = os.path.join(bindir, "called")
        sigs = os.path.join(bindir, "signals")
        with open(os.path.join(bindir, "ifup"), "w") as f:
            f.write("#!/bin/sh\necho \"$@\" >> '%s'\n"
                    "exec grep -E '^Sig(Blk|Ign)' /proc/self/status > '%s'\n" % (rec, sigs))
        os.chmod(os.path.join(bindir, "ifup"), 0o755)
        old = svc_helper.ENV["PATH"]
        svc_helper.ENV["PATH"] = bindir + ":" + old
        try:
            s = self.svc(["bf3,booted=1"], net=True)
        finally:
            svc_helper.ENV["PATH"] = old
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(rec), 30), s.text())
            self.assertTrue(wait_for(lambda: self.text_of(rec) == "tmfifo_net%d\n" % BASE, 30))
            self.assertTrue(s.tap(BASE)["up"])
            self.assertTrue(wait_for(lambda: os.path.exists(sigs) and
                                     "SigIgn" in self.text_of(sigs), 30))
            state = dict(ln.split(":") for ln in self.text_of(sigs).split("\n") if ln)
            self.assertEqual(int(state["SigBlk"], 16), 0, state)
            self.assertEqual(int(state["SigIgn"], 16) & (1 << (signal.SIGPIPE - 1)), 0, state)
        finally:
            shutil.rmtree(bindir, ignore_errors=True)

    @staticmethod
    def text_of(path):
        with open(path) as f:
            return f.read()

    def test_net_telemetry_client(self):
        s = self.svc(["bf3"])
        tool = os.environ.get("RSHIM_PMD_TELEMETRY",
                              os.path.join(HERE, "..", "..", "usertools", "rshim-pmd-telemetry"))
        p = subprocess.run([sys.executable, tool, "-f", s.prefix, "/rshim/list",
                            "/rshim/info,%d" % BASE], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [json.loads(ln) for ln in p.stdout.splitlines()]
        self.assertEqual(lines[0]["/rshim/list"], [BASE])
        self.assertEqual(lines[1]["/rshim/info"]["device"], "sim:bf3,peer=none")
        p = subprocess.run([sys.executable, tool, "-f", "no-such-%d" % os.getpid(), "/"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("is rshim-pmd running", p.stderr)

    # -- 11. logs a troubleshooter can use ----------------------------------

    def test_logs_register_trace(self):
        s = self.svc(["bf3,booted=1"], extra=["--log-type", "pmd.rshim.reg:debug"])
        self.cmd(s, "-i", str(BASE), "-r", "0x13000518.64", "0x1234")
        text = s.text()
        self.assertRegex(text, r"rshim: reg: sim:bf3[^:]*: [^:]+: W64 BAR 0x000518 <- "
                               r"0x0000000000001234")
        trace = [ln for ln in text.splitlines() if "rshim: reg: " in ln]
        # The ownership check at open (SCRATCHPAD1, BAR 0xc40: read, then
        # the keepalive written), before the request.
        own = [n for n, ln in enumerate(trace) if ": ownership check: " in ln]
        req = [n for n, ln in enumerate(trace) if "W64 BAR 0x000518 <- " in ln]
        self.assertTrue(own and req, trace[:20])
        self.assertLess(own[-1], req[0], trace[:20])
        own_lines = [trace[n] for n in own]
        self.assertTrue(any("R64 BAR 0x000c40 -> " in ln for ln in own_lines), own_lines)
        self.assertTrue(any("W64 BAR 0x000c40 <- 0x0000005089836482" in ln
                            for ln in own_lines), own_lines)
        # Control path only: every line names the command it belongs to.
        self.assertEqual([ln for ln in trace if ": -: " in ln], [])
        # Off by default.
        s2 = self.svc(["bf3"], base=BASE + 5)
        self.cmd(s2, "-i", str(BASE + 5), "-r", "0x13000518.64")
        self.assertNotIn("rshim: reg: ", s2.text())

    def test_logs_pcie_link_and_open_sequence(self):
        root = tempfile.mkdtemp(prefix="rshim-sysfs-")
        fn = os.path.join(root, "bus", "pci", "devices", "0000:03:00.2")
        os.makedirs(fn)
        for name, v in (("current_link_speed", "8.0 GT/s PCIe"), ("max_link_speed", "16.0 GT/s PCIe"),
                        ("current_link_width", "8"), ("max_link_width", "16")):
            with open(os.path.join(fn, name), "w") as f:
                f.write(v + "\n")
        try:
            tmp = tempfile.mkdtemp(prefix="rshim-svc-")
            open(os.path.join(tmp, "none"), "w").close()
            p = subprocess.run([SVC, "-f", "-n", "-l", "4", "-d", "0000:03:00.2",
                                "--sysfs-root", root, "--dev-dir", tmp, "--run-dir",
                                os.path.join(tmp, "run"), "--file-prefix",
                                "rshim-par-%d" % os.getpid(), "-C", os.path.join(tmp, "none")],
                               capture_output=True, text=True, timeout=120, env=ENV)
            out = p.stdout + p.stderr
            self.clean(out)
            self.assertRegex(out, r"WARNING|degraded")
            self.assertIn("PCIe link of 0000:03:00.2 degraded: 8.0 GT/s x8 (capable of "
                          "16.0 GT/s x16)", out)
            # The open sequence at -l 4 (info).
            self.assertIn("opening 0000:03:00.2 (ownership check)", out)
        finally:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(tmp, ignore_errors=True)

    # -- 2. a BMC owns the rshim when the service starts -------------------

    def test_owner_at_start_drop_mode_and_force_cmd(self):
        s = self.svc(["bf3,owner=bmc"])
        text = misc_lines(s, BASE)
        self.assertRegex(text, r"(?m)^DROP_MODE\s+1")
        self.assertIn("served in drop mode", s.text())
        # NVIDIA's daemon answers EINVAL on a boot open in drop mode.
        with self.assertRaises(OSError) as e:
            open(s.node(BASE, "boot"), "wb").close()
        self.assertEqual(e.exception.errno, errno.EINVAL)
        misc_write(s, BASE, "FORCE_CMD 1")
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+0")
        self.assertTrue(wait_for(lambda: "TM FIFO channels attached" in s.text(), 30),
                        s.text())
        self.assertIsNone(s.proc.poll())

    def test_owner_at_start_force_option(self):
        # -F: one takeover request at start; the emulated BMC hands over.
        s = self.svc(["bf3,owner=bmc"], extra=["-F"])
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+0")
        self.assertNotIn("served in drop mode", s.text())
        # A BMC that ignores the request: drop mode, still served.
        s2 = self.svc(["bf3,owner=bmc-old"], base=BASE + 5, extra=["-F"])
        self.assertRegex(misc_lines(s2, BASE + 5), r"(?m)^DROP_MODE\s+1")

    def test_owner_at_start_force_mode_conf(self):
        # FORCE_MODE 1 in the configuration acts as -F: one takeover
        # request at start, acknowledged by the emulated BMC, no drop mode.
        s = self.svc(["bf3,owner=bmc"], conf="FORCE_MODE 1\n", extra=["-l", "4"])
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+0")
        text = s.text()
        self.assertEqual(text.count("(ownership check, with a takeover request)"), 1, text)
        self.assertEqual(text.count("acknowledged the takeover (OSP_ACK)"), 1, text)
        self.assertNotIn("served in drop mode", text)
        # FORCE_MODE 0: no request; served in drop mode.
        s2 = self.svc(["bf3,owner=bmc"], base=BASE + 5, conf="FORCE_MODE 0\n",
                      extra=["-l", "4"])
        self.assertRegex(misc_lines(s2, BASE + 5), r"(?m)^DROP_MODE\s+1")
        self.assertIn("served in drop mode", s2.text())
        self.assertNotIn("with a takeover request", s2.text())
        self.assertNotIn("acknowledged the takeover", s2.text())

    def test_owner_at_start_released(self):
        # An emulated BMC in a process of its own holds the device for a
        # while, then stops; the service, started meanwhile, takes it.
        name = "par%d" % os.getpid()
        bmc = subprocess.Popen([SIM_BMC, "--device", "sim:bf3,shared=%s,owner=bmc" % name,
                                "--time", "4"], stdout=subprocess.PIPE, text=True, env=ENV)
        self.procs.append(bmc)
        self.assertEqual(bmc.stdout.readline().strip(), "ready")
        s = self.svc(["bf3,shared=%s" % name])
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+1")
        bmc.wait(60)
        self.assertTrue(wait_for(lambda: "let go: this service owns it now" in s.text(), 60),
                        s.text())
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+0")
        self.assertTrue(wait_for(lambda: "TM FIFO channels attached" in s.text(), 30))

    def test_owner_drop_mode_from_conf(self):
        # DROP_MODE 1 from the configuration: every device starts dropped.
        s = self.svc(["bf3"], conf="DROP_MODE 1\n")
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+1")
        misc_write(s, BASE, "DROP_MODE 0")
        self.assertRegex(misc_lines(s, BASE), r"(?m)^DROP_MODE\s+0")

    # -- 3. NVIDIA's rshim.conf ---------------------------------------------

    def test_config_nvidia_sample(self):
        path = os.environ.get("RSHIM_PMD_NVIDIA_CONF")
        sample = open(path).read() if path else NVIDIA_SAMPLE
        conf = uncomment(sample, "DISPLAY_LEVEL", "BOOT_TIMEOUT", "USB_TIMEOUT",
                         "DROP_MODE", "USB_RESET_DELAY", "PCIE_RESET_DELAY",
                         "PCIE_INTR_POLL_INTERVAL", "PCIE_HAS_VFIO", "PCIE_HAS_UIO",
                         "rshim0", "rshim1", "none")
        conf += "SOME_FUTURE_KEY 1\n"
        s = self.svc(["bf3"], conf=conf)
        text = s.text()
        warn = [ln for ln in text.splitlines() if "rshim-pmd.conf:" in ln]
        # One warning per line rshim-pmd does not act on, naming it.
        self.assertEqual(len([w for w in warn if "usb-" in w]), 2, text)
        # none pcie-lf-BDF names a livefish function: a device line like any.
        self.assertEqual(len([w for w in warn if "pcie-lf-" in w]), 0, text)
        self.assertEqual(len([w for w in warn if "USB_RESET_DELAY" in w]), 1, text)
        self.assertEqual(len([w for w in warn if "SOME_FUTURE_KEY" in w]), 1, text)
        # rshim1 pcie-0000:04:00.2 is there is no such device: index 1 is
        # reserved, nothing else fails. The keys act.
        misc = misc_lines(s, BASE)
        self.assertIn("BOOT_TIMEOUT    300", misc)
        self.assertIn("USB_TIMEOUT     40", misc)
        self.assertRegex(misc, r"(?m)^DROP_MODE\s+0")
        rc, out, _ = self.cmd(s, "-p", "all", "-C", s.conf)
        self.assertEqual(out.split(), ["BOOT_TIMEOUT", "300", "PCIE_RESET_DELAY", "5",
                                       "USB_RESET_DELAY", "1", "USB_TIMEOUT", "40"])

    def test_config_unknown_key_shapes(self):
        # A key rshim-pmd does not know is skipped with one warning, whatever
        # follows it; a malformed line of a known key is still an error.
        conf = ("NO_VALUE_KEY\n"
                "TWO_VALUES a b\n"
                + "K" * 40 + " 1\n"
                + "LONG_VALUE " + "v" * 100 + "\n"
                + "LONG_LINE " + "w " * 1500 + "\n"
                "BOOT_TIMEOUT 77\n")
        s = self.svc(["bf3"], conf=conf)
        warn = [ln for ln in s.text().splitlines() if "rshim-pmd.conf:" in ln]
        self.assertEqual(len(warn), 5, s.text())
        for n, w in enumerate(warn):
            self.assertIn("rshim-pmd.conf:%d: unknown key: skipped" % (n + 1), w)
        self.assertIn("BOOT_TIMEOUT    77", misc_lines(s, BASE))
        # The command mode reads the same file: values on stdout only.
        rc, out, err = self.cmd(s, "-p", "BOOT_TIMEOUT", "-C", s.conf)
        self.assertEqual(out, "77\n")
        self.assertEqual(err.count("unknown key: skipped"), 5, err)
        for text, why in (("BOOT_TIMEOUT 1 2\n", "more than one value"),
                          ("BOOT_TIMEOUT\n", "missing value"),
                          ("NODE_GROUP " + "g" * 40 + "\n", "group name longer than 31"),
                          ("BOOT_TIMEOUT 5 " + "w " * 1500 + "\n", "line longer than 1024")):
            bad = Service(["bf3"], BASE + 5, conf=text)
            self.svcs.append(bad)
            bad.start(timeout=30)
            self.assertEqual(bad.proc.wait(30), 2, bad.text())
            self.assertIn("rshim-pmd.conf:1: " + why, bad.text())

    def test_config_fallback_nvidia_file(self):
        # No rshim-pmd.conf and NVIDIA's rshim.conf present: the service and
        # `-c -p` both read NVIDIA's file (RSHIM_PMD_TEST_ETC puts both
        # files in a directory of this run).
        etc = tempfile.mkdtemp(prefix="rshim-etc-")
        with open(os.path.join(etc, "rshim.conf"), "w") as f:
            f.write("BOOT_TIMEOUT 123\nUSB_TIMEOUT 9\n")
        env = dict(ENV, RSHIM_PMD_TEST_ETC=etc)
        try:
            p = subprocess.run([SVC, "-c", "-p", "BOOT_TIMEOUT", "-p", "all"],
                               capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.split(), ["123", "BOOT_TIMEOUT", "123",
                                                "PCIE_RESET_DELAY", "5", "USB_RESET_DELAY",
                                                "1", "USB_TIMEOUT", "9"])
            svc_helper.ENV["RSHIM_PMD_TEST_ETC"] = etc
            try:
                s = Service(["bf3"], BASE)
                i = s.args.index("-c")
                del s.args[i:i + 2]
                self.svcs.append(s)
                self.assertTrue(s.start(), s.text())
            finally:
                del svc_helper.ENV["RSHIM_PMD_TEST_ETC"]
            self.assertIn("reading NVIDIA's %s/rshim.conf" % etc, s.text())
            self.assertIn("BOOT_TIMEOUT    123", misc_lines(s, BASE))
            # rshim-pmd.conf, once there, is the one read.
            with open(os.path.join(etc, "rshim-pmd.conf"), "w") as f:
                f.write("BOOT_TIMEOUT 77\n")
            p = subprocess.run([SVC, "-c", "-p", "BOOT_TIMEOUT"], capture_output=True,
                               text=True, timeout=60, env=env)
            self.assertEqual(p.stdout, "77\n", p.stderr)
        finally:
            shutil.rmtree(etc, ignore_errors=True)

    def test_config_device_kinds_on_command_line(self):
        p = subprocess.run([SVC, "-f", "-d", "usb-2-1.7"], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("not served by rshim-pmd", p.stderr)
        # NVIDIA's livefish name is the function's address: looked up as
        # one (no such function here: exit 3, "none ... could be served").
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "dev"))
            os.mkdir(os.path.join(d, "run"), 0o755)
            p = subprocess.run([SVC, "-f", "-d", "pcie-lf-0000:84:00.0",
                                "--sysfs-root", d, "--dev-dir", os.path.join(d, "dev"),
                                "--run-dir", os.path.join(d, "run"),
                                "--file-prefix", "rsh-lf-%d" % os.getpid()],
                               capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("0000:84:00.0: no such PCI address", p.stderr)

    # -- 4. option letters and command mode ---------------------------------

    def test_cmdmode_reg_syntax(self):
        s = self.svc(["bf3"])
        # NVIDIA's syntax and output through the node (-i N).
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", "0x13000518.64", "0x1234")
        self.assertEqual(out, "[0x13000518] <- 0x0000000000001234\n")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", "0x13000518.64")
        self.assertEqual(out, "[0x13000518] -> 0x0000000000001234\n")
        # channel<<16|offset form, and 32 bits.
        _, out, _ = self.cmd(s, "-i", str(BASE), "-r", "0x518.32")
        self.assertEqual(out, "[0x518] -> 0x0000000000001234\n")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-s", "1")
        self.assertEqual(out, "")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-g")
        self.assertEqual(out, "0x1\n")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-s", "0")
        _, out, _ = self.cmd(s, "-i", str(BASE), "-g")
        self.assertEqual(out, "0x0\n")
        for bad in (["-r", "0x518"], ["-r", "0x518.16"], ["-r", "zz.64"], ["-p", "NOPE"]):
            rc, out, err = self.cmd(s, "-i", str(BASE), *bad, ok=False)
            self.assertEqual(rc, 2, bad)
            self.assertEqual(len(err.strip().splitlines()), 1, err)
        rc, _, err = self.cmd(s, "-i", str(BASE), "-m", ok=False)
        self.assertEqual(rc, 1)
        self.assertIn("bfdump", err)
        # The register writes went through the service: audited there.
        self.assertIn("register write 0x13000518 <- 0x1234: ok", s.text())

    def test_cmdmode_set_debug_values(self):
        # -s reads its argument as NVIDIA's atol(): non-zero sets the flag,
        # 0 or anything without a leading number clears it.
        s = self.svc(["bf3"])
        for arg, want in (("2", "0x1\n"), ("0", "0x0\n"), ("-1", "0x1\n"),
                          ("off", "0x0\n"), ("7x", "0x1\n")):
            _, out, _ = self.cmd(s, "-i", str(BASE), "--set-debug=" + arg, "-g")
            self.assertEqual(out, want, arg)

    def test_cmdmode_operations_in_order(self):
        s = self.svc(["bf3"])
        with open(s.conf, "w") as f:
            f.write("BOOT_TIMEOUT 77\n")
        # Every operation runs, in the order given, as NVIDIA's.
        _, out, _ = self.cmd(s, "-i", str(BASE), "-s", "1", "-g", "-r", "0x13000518.64",
                             "-p", "BOOT_TIMEOUT", "-s", "0", "-g", "-r", "0x518.64", "0x5",
                             "-r", "0x13000518.64", "-C", s.conf)
        self.assertEqual(out.splitlines(), ["0x1", "[0x13000518] -> 0x0000000040000000", "77",
                                            "0x0", "[0x518] <- 0x0000000000000005",
                                            "[0x13000518] -> 0x0000000000000005"])
        # A syntax error anywhere: nothing runs (the flag stays clear).
        rc, out, err = self.cmd(s, "-i", str(BASE), "-s", "1", "-r", "0x518", ok=False)
        self.assertEqual((rc, out), (2, ""), err)
        _, out, _ = self.cmd(s, "-i", str(BASE), "-g")
        self.assertEqual(out, "0x0\n")
        # A failing operation ends the run: what ran before it printed.
        rc, out, err = self.cmd(s, "-i", str(BASE), "-g", "-r", "0x14000000.64", "-s", "1",
                                ok=False)
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, "0x0\n")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        _, out, _ = self.cmd(s, "-i", str(BASE), "-g")
        self.assertEqual(out, "0x0\n")

    def test_cmdmode_default_index(self):
        # No -i: rshim0's node (the service here serves rshim0 in its own
        # node directory).
        s = self.svc(["bf3"], base=0)
        _, out, _ = self.cmd(s, "-r", "0x13000518.64", "0x99")
        self.assertEqual(out, "[0x13000518] <- 0x0000000000000099\n")
        self.assertIn("rshim0: audit: ", s.text())
        self.assertIn("register write 0x13000518 <- 0x99: ok", s.text())
        _, out, _ = self.cmd(s, "-g")
        self.assertEqual(out, "0x0\n")

    def test_cmdmode_direct_and_held(self):
        # -d DEV on a device no service holds: opened directly.
        p = subprocess.run([SVC, "-c", "-d", "sim:bf2,peer=none", "-r", "0x00000518.64"],
                           capture_output=True, text=True, timeout=60, env=ENV)
        self.clean(p.stderr)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "[0x518] -> 0x0000000000000000\n")
        # -d DEV held by a service: through its node (the lock names it).
        name = "parc%d" % os.getpid()
        s = self.svc(["bf3,shared=%s" % name])
        _, out, _ = self.cmd(s, "-d", "sim:bf3,shared=%s,peer=none" % name, "-r",
                             "0x13000518.64", "0x77")
        self.assertEqual(out, "[0x13000518] <- 0x0000000000000077\n")
        self.assertIn("register write 0x13000518 <- 0x77: ok", s.text())

    def test_cmdmode_options_letters(self):
        p = subprocess.run([SVC, "-h"], capture_output=True, text=True, timeout=30)
        self.assertIn("-C, --config FILE", p.stdout)
        # The file the build installs is the one the binary reads.
        etc = os.environ.get("RSHIM_PMD_SYSCONFDIR")
        if etc:
            self.assertIn("(" + os.path.join(etc, "rshim-pmd.conf") + ";", p.stdout)
        self.assertIn("-c, --cmdmode", p.stdout)
        for b, code in (("pcie", None), ("pcie_lf", None), ("usb", 2)):
            p = subprocess.run([SVC, "-f", "-b", b, "-d", "sim:bf3", "-l", "9"],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, p.stderr)
            if code == 2:
                self.assertIn("USB rshim is not served", p.stderr)
            else:
                self.assertIn("-l: '9' is not a number 0-4", p.stderr)
        # -l 4 (debug): the open sequence at info level is in the log.
        s = self.svc(["bf3"], extra=["-l", "4"])
        self.assertIn("opening sim:bf3", s.text())


if __name__ == "__main__":
    why = fuse_missing()
    if why is not None:
        print("skipped: " + why)
        sys.exit(77)
    if not os.path.exists(DEMO):
        print("skipped: no demo BFB at " + DEMO)
        sys.exit(77)
    unittest.main(verbosity=2)
