#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd-app on the real-hardware path, against fake sysfs trees.

No BlueField here: a fake tree (vendor/device/class/revision files, a sparse
resource0, config space, driver and iommu_group links) stands for /sys, and
the app is run with --sysfs-root. The direct backend maps the fake resource0,
so a whole push lands in that file: the test reads back the registers at the
BF3 offsets (hardware-notes §1.5).
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
DEMO = os.environ.get("RSHIM_PMD_DEMO", "demo.bfb")
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1")

BF3_FABRIC_DIM = 0x110
BF3_BOOT_FIFO_DATA = 0x2000
BF3_RESET_CONTROL = 0x500
BF3_BOOT_CONTROL = 0x528
BF3_WDOG1 = 0x40000


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from fake_sysfs import bar_rw, make_fn, write  # noqa: E402,F401


class AppPciTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="rsh-app-pci-")
        self.bf2 = make_fn(self.root, "0000:03:00.2", 0x15b3, 0xc2d3,
                           0x100000, "mlx5_core", 7)
        self.bf3 = make_fn(self.root, "0000:65:00.1", 0x15b3, 0xc2d5,
                           0x800000, None, 9,
                           speed=("2.5 GT/s PCIe", "16.0 GT/s PCIe"),
                           width=(4, 16))
        make_fn(self.root, "0000:04:00.0", 0x15b3, 0x0214, 0x100000)
        make_fn(self.root, "0000:00:1f.0", 0x8086, 0x1234, 0x1000, "e1000e")
        bar_rw(self.bf3, BF3_FABRIC_DIM, 0x33)
        # Values the push must overwrite: proof that its writes land here.
        bar_rw(self.bf3, BF3_WDOG1, 0xFFFF)
        bar_rw(self.bf3, BF3_BOOT_CONTROL, 3)
        bar_rw(self.bf3, BF3_RESET_CONTROL, 0x500000000)

    def tearDown(self):
        shutil.rmtree(self.root)

    def app(self, *args, rc=0, eal=False):
        argv = list(args) if eal else ["--quiet", "--sysfs-root", self.root] + list(args)
        p = subprocess.run([APP] + argv,
                           capture_output=True, text=True, env=ENV,
                           stdin=subprocess.DEVNULL, timeout=60)
        if rc is not None:
            self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p

    def one_line(self, p, *words):
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        self.assertEqual(len(lines), 1, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertNotIn("pushed", p.stdout)

    def test_list(self):
        out = self.app("--list").stdout
        self.assertIn("0000:03:00.2", out)
        self.assertIn("0000:65:00.1", out)
        self.assertIn("BlueField-3", out)
        self.assertIn("mlx5_core", out)
        # Livefish: no usable BAR, served through the config-space gateway.
        self.assertRegex(out, r"0000:04:00.0 .*livefish .*unusable: not bound")
        self.assertRegex(out, r"0000:04:00.0 +livefish \(no NIC firmware\): boot push")
        self.assertNotIn("0000:00:1f.0", out)
        self.assertNotIn("sim:bf3", out)
        self.assertIn("sim:bf3", self.app("--list", "--sim").stdout)

    def test_list_usability(self):
        out = self.app("--list").stdout
        self.assertRegex(out, r"0000:03:00.2 .*mlx5_core .*1 MiB .*unusable: bound to mlx5_core")
        self.assertIn("fix: rshim-devbind.py -b vfio-pci 0000:03:00.2", out)
        self.assertRegex(out, r"0000:65:00.1 .*8 MiB .*unusable: not bound")
        doc = json.loads(self.app("--list", "--json").stdout)
        by = {d["device"]: d for d in doc["devices"]}
        self.assertEqual(by["0000:03:00.2"]["kernel_driver"], "mlx5_core")
        self.assertFalse(by["0000:03:00.2"]["usable"])
        self.assertEqual(by["0000:65:00.1"]["bar0_bytes"], 0x800000)
        self.assertTrue(by["0000:65:00.1"]["link_degraded"])
        # The IOMMU group is listed (table and JSON); none for livefish.
        self.assertEqual(by["0000:03:00.2"]["iommu_group"], 7)
        self.assertEqual(by["0000:65:00.1"]["iommu_group"], 9)
        self.assertIsNone(by["0000:04:00.0"]["iommu_group"])
        self.assertIn("IOMMU", out.splitlines()[0])
        self.assertRegex(out, r"0000:65:00.1 .*8 MiB +0 +9 ")

    def test_list_nothing_found(self):
        empty = tempfile.mkdtemp(prefix="rsh-app-empty-")
        try:
            p = subprocess.run([APP, "--list", "--sysfs-root", empty],
                               capture_output=True, text=True, env=ENV,
                               stdin=subprocess.DEVNULL, timeout=60)
            self.assertEqual(p.returncode, 4, p.stderr)
            self.assertIn("no rshim function found", p.stderr)
        finally:
            shutil.rmtree(empty)

    def test_no_device_never_the_emulator(self):
        """No --device and no usable function: list them, exit 4."""
        p = self.app("--push-boot", DEMO, rc=4)
        self.assertIn("no usable rshim function found", p.stderr)
        self.assertIn("0000:03:00.2", p.stderr)
        self.assertIn("--device sim:bf3", p.stderr)
        self.assertNotIn("pushed", p.stdout)
        self.assertNotIn("DPU is ready", p.stdout)

    def test_no_device_single_usable(self):
        """One usable function (vfio-pci): chosen without --device."""
        make_fn(self.root, "0000:81:00.2", 0x15b3, 0xc2d3, 0x100000, "vfio-pci", 11)
        p = self.app("--push-boot", DEMO, "--reset-delay", "0", rc=None)
        self.assertNotIn("no usable rshim function", p.stderr)
        self.assertIn("0000:81:00.2", p.stderr)

    def test_poll_lcore_on_numa_node(self):
        """The poll lcore runs on a CPU of the device's NUMA node."""
        if os.cpu_count() < 2:
            self.skipTest("one CPU")
        write(os.path.join(self.root, "devices", "system", "node", "node0",
                           "cpulist"), "1\n")
        p = self.app("--log-level=user.rshim.app:info", "--", "--quiet",
                     "--sysfs-root", self.root, "--device", "0000:65:00.1",
                     "--mapping", "direct", "--reset-delay", "0", "--no-log",
                     "--push-boot", DEMO, rc=None, eal=True)
        self.assertIn("poll lcore on CPU 1, on the device's NUMA node 0", p.stderr)

    def test_list_degraded_link(self):
        line = [ln for ln in self.app("--list").stdout.splitlines()
                if ln.startswith("0000:65:00.1")][0]
        self.assertIn("2.5GT/s", line)
        self.assertRegex(line, "(?i)degraded|below")

    def test_bound_elsewhere(self):
        for dev in ("0000:03:00.2", "03:00.2", "pcie-0000:03:00.2"):
            p = self.app("--device", dev, "--push-boot", DEMO, rc=4)
            self.one_line(p, "mlx5_core",
                          "rshim-devbind.py -b vfio-pci 0000:03:00.2")

    def test_no_such_address(self):
        p = self.app("--device", "0000:99:00.0", "--push-boot", DEMO, rc=4)
        self.one_line(p, "0000:99:00.0")

    def test_not_rshim(self):
        p = self.app("--device", "0000:00:1f.0", "--push-boot", DEMO, rc=4)
        self.one_line(p, "0000:00:1f.0", "--force-id")

    def test_direct_push_lands_in_bar(self):
        """Unbound BF3: direct mapping of resource0; the push lands there."""
        p = self.app("--device", "pcie-0000:65:00.1", "--mapping", "direct",
                     "--reset-delay", "0", "--no-log", "--quiet",
                     "--push-boot", DEMO)
        self.assertIn("pushed", p.stdout)
        with open(DEMO, "rb") as f:
            data = f.read()
        data += b"\0" * (-len(data) % 8)
        last = struct.unpack("<Q", data[-8:])[0]
        self.assertEqual(bar_rw(self.bf3, BF3_BOOT_FIFO_DATA), last)
        # The key went in read-modify-write: bits 63:32 kept (§3.2).
        self.assertEqual(bar_rw(self.bf3, BF3_RESET_CONTROL), 0x5CA710001)
        self.assertEqual(bar_rw(self.bf3, BF3_BOOT_CONTROL), 1)
        # hardware-notes §3.2 notes: WDOG1 is never written on BF3.
        self.assertEqual(bar_rw(self.bf3, BF3_WDOG1), 0xFFFF)
        with open(os.path.join(self.bf3, "driver_override")) as f:
            self.assertNotIn("rshim", f.read())


if __name__ == "__main__":
    unittest.main()
