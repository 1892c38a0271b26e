#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""NVIDIA's bfb-install and bf-reg against rshim-pmd's nodes.

The contract test does, in order, what bfb-install (rshim-user-space 2.8.2,
local mode) does to /dev/rshimN: test that boot exists; read DEV_NAME and
DEV_INFO from misc (awk '{print $2}'); bf-reg reads and writes SCRATCHPAD2
and SWINT (open for writing with truncation, the 13-byte ioctl, address
ORed with 0x10000000); `sh -c "cat bfb | pv | cat - > boot"`; misc writes
CLEAR_ON_READ 1 and DISPLAY_LEVEL 2; misc read filtered from the first
' INFO'/' ERR'/' WARN' line until "DPU is ready"; CLEAR_ON_READ 0.

With RSHIM_PMD_BFB_INSTALL=/path/to/bfb-install (bf-reg beside it) the
real script runs, unchanged, against an emulated BlueField-3 served at
/dev/rshimN (bf-reg only looks in /dev).
"""

import fcntl
import os
import re
import shutil
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svc_helper import (DEMO, Service, finish, fuse_missing, run_bfb_install,  # noqa: E402
                        wait_for)

IOC_READ2, IOC_WRITE2 = 0xC00D5200, 0xC00D5201
BF3 = {"SCRATCHPAD2": 0x13000C48, "SWINT": 0x13000318,
       "BOOT_FIFO_COUNT": 0x13001000}
BASE = 60 + (os.getpid() % 10) * 2


def bf_reg(node, reg, value=None):
    """What bf-reg does: pack('LLLC'), ioctl on a file opened with '>'."""
    addr = BF3[reg] | 0x10000000
    v = value or 0
    buf = bytearray(struct.pack("<IIIB", addr, v & 0xFFFFFFFF, v >> 32, 8))
    with open(node, "w") as f:
        fcntl.ioctl(f, IOC_WRITE2 if value is not None else IOC_READ2, buf, True)
    lo, hi = struct.unpack("<IIIB", bytes(buf))[1:3]
    return lo | hi << 32


class BfbInstallTest(unittest.TestCase):
    def setUp(self):
        self.svc = None

    def tearDown(self):
        finish(self, [self.svc] if self.svc else [])

    def start(self, dev_dir=None):
        self.svc = Service(["bf3,drain=400M"], BASE)
        if dev_dir:
            self.svc.dev_dir = dev_dir
            self.svc.args[self.svc.args.index("--dev-dir") + 1] = dev_dir
        self.assertTrue(self.svc.start(), self.svc.text())
        return self.svc.node(BASE)

    def misc(self, node, text=None):
        if text is not None:
            subprocess.run(["sh", "-c", "echo '%s' > %s/misc" % (text, node)], check=True)
            return None
        with open(os.path.join(node, "misc")) as f:
            return f.read()

    def test_contract(self):
        node = self.start()
        self.assertTrue(os.path.exists(os.path.join(node, "boot")))
        dev_name = re.search(r"(?m)^DEV_NAME\s+(\S+)", self.misc(node)).group(1)
        self.assertEqual(dev_name, "sim:bf3,drain=400M,peer=none")
        chip = re.search(r"(?m)^DEV_INFO\s+(\S+)", self.misc(node)).group(1)
        self.assertEqual(chip[:11], "BlueField-3")
        # clear_sp2_267: SP2 &= ~196, SWINT = 4.
        rshim = os.path.join(node, "rshim")
        bf_reg(rshim, "SCRATCHPAD2", 0xC4 | 0x30)
        sp2 = bf_reg(rshim, "SCRATCHPAD2")
        self.assertEqual(sp2, 0xF4)
        bf_reg(rshim, "SCRATCHPAD2", sp2 & ~196)
        self.assertEqual(bf_reg(rshim, "SCRATCHPAD2"), 0x30)
        bf_reg(rshim, "SWINT", 0x4)
        self.assertEqual(bf_reg(rshim, "BOOT_FIFO_COUNT"), 0)
        pv = "| pv -q | cat -" if shutil.which("pv") else ""
        subprocess.run(["sh", "-c", "cat %s %s > %s/boot" % (DEMO, pv, node)], check=True,
                       timeout=300)
        self.misc(node, "CLEAR_ON_READ 1")
        self.misc(node, "DISPLAY_LEVEL 2")
        # CLEAR_ON_READ: each read takes the records; keep what was read.
        seen = []
        self.assertTrue(wait_for(lambda: seen.append(self.misc(node)) or
                                 "DPU is ready" in "".join(seen), 60), seen)
        log = "".join(ln for ln in seen if re.search(r"(?m)^ (INFO|ERR|WARN)", ln))
        lines = log[re.search(r"(?m)^ (INFO|ERR|WARN)", log).start():].splitlines()
        self.assertTrue(lines[0].startswith(" INFO["), lines)
        self.assertIn(" INFO[UEFI]: DPU is ready", lines)
        self.misc(node, "CLEAR_ON_READ 0")
        audit = [ln for ln in self.svc.text().splitlines() if "audit:" in ln]
        self.assertEqual(len([a for a in audit if "register write" in a]), 3)
        self.assertEqual(len([a for a in audit if "boot push end" in a and a.endswith(": ok")]), 1)

    @unittest.skipUnless(os.environ.get("RSHIM_PMD_BFB_INSTALL"),
                         "set RSHIM_PMD_BFB_INSTALL=/path/to/bfb-install (bf-reg beside it)")
    def test_nvidia_bfb_install(self):
        if os.path.exists("/dev/rshim%d" % BASE):
            self.skipTest("/dev/rshim%d is in use" % BASE)
        self.start(dev_dir="/dev")
        run_bfb_install(self, self.svc, BASE, DEMO)


if __name__ == "__main__":
    why = fuse_missing()
    if why:
        print("skipped: " + why)
        sys.exit(77)
    unittest.main(verbosity=2)
