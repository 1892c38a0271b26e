#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Livefish recovery with rshim-pmd-app on the emulator: a BlueField-1, -2
and -3 with no NIC firmware (livefish=1: no usable BAR, registers only
through the config-space gateway) named with --device is pushed a BFB
and its boot log read to "DPU is ready"; the push summary counts config
cycles; misc and the console (the TM FIFO) work; a gateway whose lock never frees ends
the push with an error line within seconds; the emulator saw no gateway
protocol broken (it would refuse the access and the boot would fail).
"""

import os
import signal
import subprocess
import threading
import time
import unittest

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
DEMO = os.environ.get("RSHIM_PMD_DEMO", "demo.bfb")
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1")
# BF3: a 300 ms quiet window after RESET_CONTROL instead of the 10 s of
# silicon (the unit test pci_lf covers the window itself).
DEVS = {"bf1": "sim:bf1,livefish=1", "bf2": "sim:bf2,livefish=1",
        "bf3": "sim:bf3,livefish=1,lfquiet=300ms"}


def app(*args, timeout=120):
    return subprocess.run([APP] + list(args), capture_output=True, text=True,
                          env=ENV, timeout=timeout, stdin=subprocess.DEVNULL)


class LivefishApp(unittest.TestCase):
    def push(self, gen, extra=""):
        p = app("--device", DEVS[gen] + extra, "--push-boot", DEMO)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(" INFO[BL1]: Boot stream found", p.stdout)
        self.assertIn(" INFO[UEFI]: DPU is ready", p.stdout)
        self.assertIn("MMIO per MiB", p.stdout)
        return p

    def test_push_bf1(self):
        self.push("bf1")

    def test_push_bf2(self):
        self.push("bf2")

    def test_push_bf3(self):
        self.push("bf3")

    def test_push_slow_gateway(self):
        # every trigger stays busy/pending for 3 polls
        for gen in ("bf1", "bf2", "bf3"):
            self.push(gen, ",lfpend=3")

    def test_console(self):
        # The TM FIFO through the gateway: push, then a line typed comes
        # back from the emulated DPU's console (its line echo).
        for gen in ("bf1", "bf2", "bf3"):
            p = subprocess.Popen([APP, "--device", DEVS[gen], "--no-progress", "--push-boot",
                                  DEMO, "--console"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV)
            out = []
            t = threading.Thread(target=lambda: out.extend(iter(lambda: p.stdout.read1(4096), b"")),
                                 daemon=True)
            t.start()
            end = time.monotonic() + 60
            while b"DPU is ready" not in b"".join(out) and time.monotonic() < end:
                time.sleep(0.05)
            marker = b"livefish-%d" % os.getpid()
            p.stdin.write(b"echo " + marker + b"\n")
            p.stdin.flush()
            while b"".join(out).count(marker) < 2 and time.monotonic() < end:
                time.sleep(0.05)
            p.send_signal(signal.SIGTERM)
            rc = p.wait(30)
            t.join(10)
            p.stdin.close()
            p.stdout.close()
            text = b"".join(out).decode(errors="replace")
            self.assertIn("DPU is ready", text)
            self.assertGreaterEqual(text.count(marker.decode()), 1, text)
            self.assertEqual(rc, 0, text)

    def test_misc(self):
        for gen, chip in (("bf1", "BlueField-1"), ("bf2", "BlueField-2"), ("bf3", "BlueField-3")):
            p = app("--device", DEVS[gen], "--misc")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("DEV_INFO        " + chip, p.stdout)

    def test_secure_nic_mode_does_not_apply(self):
        # A LOCK word in SCRATCHPAD1 is not secure NIC mode on livefish.
        p = app("--device", DEVS["bf3"] + ",lock=1", "--misc")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("SECURE_NIC_MODE 0", p.stdout)

    def test_stuck_lock_is_an_error(self):
        t0 = time.monotonic()
        p = app("--device", DEVS["bf3"] + ",lfstuck=lock", "--push-boot", DEMO)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("MSN GW_CR_64B lock (REG0 bit 31)", p.stderr)
        self.assertIn("still reads 0x80000000 after 2000 ms", p.stderr)
        self.assertNotIn("DPU is ready", p.stdout)
        self.assertLess(time.monotonic() - t0, 60)


if __name__ == "__main__":
    unittest.main(verbosity=2)
