#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Livefish recovery through the service: emulated BlueField-1, -2 and -3
with no NIC firmware (livefish=1: registers only through the config-space
gateway), served by rshim-pmd.

- By default a livefish function stays dropped, as NVIDIA's daemon keeps
  it; the log line says how to activate it (DROP_MODE 0, FORCE_CMD 1);
  its nodes exist, a push is refused, misc FORCE_CMD 1 activates it and
  a push then boots it.
- With DROP_MODE 0 all three are served: a BFB pushed into /dev/rshimN/boot
  boots them, and misc shows the boot log to "DPU is ready".
- With RSHIM_PMD_BFB_INSTALL=/path/to/bfb-install (bf-reg beside it),
  NVIDIA's script, unchanged, recovers the BlueField-3 through /dev.
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svc_helper import (DEMO, Service, finish, fuse_missing, push,  # noqa: E402
                        run_bfb_install, wait_for)

BASE = 80 + (os.getpid() % 10) * 2
# BF3: the emulator asks for a 300 ms quiet window after RESET_CONTROL
# instead of the hardware's 10 s (the unit test covers the mechanism).
LF1, LF2, LF3 = "bf1,livefish=1", "bf2,livefish=1", "bf3,livefish=1,lfquiet=300ms"


class LivefishServiceTest(unittest.TestCase):
    def setUp(self):
        self.svc = None

    def tearDown(self):
        finish(self, [self.svc] if self.svc else [])

    def misc(self, node, text=None):
        if text is not None:
            subprocess.run(["sh", "-c", "echo '%s' > %s/misc" % (text, node)], check=True)
            return None
        with open(os.path.join(node, "misc")) as f:
            return f.read()

    def boot_log(self, node):
        """misc at DISPLAY_LEVEL 2 until the emulated DPU is up."""
        self.misc(node, "DISPLAY_LEVEL 2")
        seen = []
        ok = wait_for(lambda: seen.append(self.misc(node)) or "DPU is ready" in seen[-1], 60)
        self.assertTrue(ok, seen[-1:])
        return seen[-1]

    def test_dropped_by_default_force_cmd(self):
        # Served in drop mode (its nodes exist), activated by FORCE_CMD 1.
        self.svc = Service([LF2], BASE)
        self.assertTrue(self.svc.start(timeout=30), self.svc.text())
        self.assertTrue(wait_for(lambda: "kept in drop mode by default" in self.svc.text(), 30),
                        self.svc.text())
        line = [ln for ln in self.svc.text().splitlines() if "kept in drop mode" in ln][0]
        self.assertIn("livefish function (no NIC firmware)", line)
        self.assertIn("DROP_MODE 0", line)
        self.assertIn("FORCE_CMD 1", line)
        node = self.svc.node(BASE)
        self.assertRegex(self.misc(node), r"(?m)^DROP_MODE\s+1")
        rc, _ = push(DEMO, os.path.join(node, "boot"))
        self.assertNotEqual(rc, 0)  # refused while dropped
        self.misc(node, "FORCE_CMD 1")
        self.assertTrue(wait_for(lambda: re.search(r"(?m)^DROP_MODE\s+0", self.misc(node)), 30),
                        self.svc.text())
        rc, err = push(DEMO, os.path.join(node, "boot"))
        self.assertEqual(rc, 0, err + self.svc.text())
        self.assertIn(" INFO[UEFI]: DPU is ready", self.boot_log(node))

    def test_drop_mode_0_recovers_bf1_bf2_bf3(self):
        self.svc = Service([LF1, LF2, LF3], BASE, conf="DROP_MODE 0\n")
        self.assertTrue(self.svc.start(expect=3), self.svc.text())
        text = self.svc.text()
        self.assertNotIn("kept in drop mode", text)
        for i, chip in ((0, "BlueField-1"), (1, "BlueField-2"), (2, "BlueField-3")):
            node = self.svc.node(BASE + i)
            info = re.search(r"(?m)^DEV_INFO\s+(\S+)", self.misc(node)).group(1)
            self.assertEqual(info[:11], chip)
            rc, err = push(DEMO, os.path.join(node, "boot"))
            self.assertEqual(rc, 0, err + self.svc.text())
            log = self.boot_log(node)
            self.assertIn(" INFO[BL1]: Boot stream found", log)
            self.assertIn(" INFO[UEFI]: DPU is ready", log)
        self.assertEqual(self.svc.text().count("boot push done"), 3, self.svc.text())

    @unittest.skipUnless(os.environ.get("RSHIM_PMD_BFB_INSTALL"),
                         "set RSHIM_PMD_BFB_INSTALL=/path/to/bfb-install (bf-reg beside it)")
    def test_nvidia_bfb_install(self):
        if os.path.exists("/dev/rshim%d" % BASE):
            self.skipTest("/dev/rshim%d is in use" % BASE)
        self.svc = Service([LF3], BASE, conf="DROP_MODE 0\n")
        self.svc.dev_dir = "/dev"
        self.svc.args[self.svc.args.index("--dev-dir") + 1] = "/dev"
        self.assertTrue(self.svc.start(), self.svc.text())
        run_bfb_install(self, self.svc, BASE, DEMO)


if __name__ == "__main__":
    why = fuse_missing()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    unittest.main(verbosity=2)
