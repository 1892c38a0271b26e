#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd-app --doctor against fake sysfs trees (one broken layer each)
and against the emulator (booted with the built-in peer, or not booted)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from fake_sysfs import make_driver, make_fn, write  # noqa: E402

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1")
RSHIM = "0000:03:00.2"


def hugepages(root, free):
    write(os.path.join(root, "kernel", "mm", "hugepages", "hugepages-2048kB",
                       "free_hugepages"), "%d\n" % free)


class Doctor(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="rsh-doctor-")
        os.makedirs(os.path.join(self.root, "bus", "pci", "devices"))
        hugepages(self.root, 128)

    def tearDown(self):
        shutil.rmtree(self.root)

    def dpu(self, rshim_driver="vfio-pci", group=7, rshim_id=0xc2d3,
            speed=("8.0 GT/s PCIe", "8.0 GT/s PCIe"), width=(16, 16)):
        """A BlueField-2: two NIC PFs and the rshim function."""
        make_fn(self.root, "0000:03:00.0", 0x15b3, 0xa2d6, 0x2000000, "mlx5_core", 5)
        make_fn(self.root, "0000:03:00.1", 0x15b3, 0xa2d6, 0x2000000, "mlx5_core", 6)
        make_fn(self.root, RSHIM, 0x15b3, rshim_id, 0x100000, rshim_driver, group,
                speed=speed, width=width)

    def doctor(self, *args, rc):
        p = subprocess.run([APP, "--doctor", "--sysfs-root", self.root] + list(args),
                           capture_output=True, text=True, env=ENV,
                           stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p

    def layers(self, p):
        """layer -> (status, rest of the line) from the text output."""
        res = {}
        for ln in p.stdout.splitlines():
            parts = ln.split(None, 3)
            if len(parts) >= 3 and parts[2] in ("ok", "FAIL", "warn", "skip"):
                res[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
        return res

    def test_empty_bus(self):
        lay = self.layers(self.doctor(rc=20))
        self.assertEqual(lay["pci"][0], "FAIL")
        self.assertIn("no BlueField function", lay["pci"][1])
        for name in ("driver", "iommu", "rshim", "owner", "tmfifo", "tmfifo_net"):
            self.assertEqual(lay[name][0], "skip", name)

    def test_nic_only(self):
        make_fn(self.root, "0000:03:00.0", 0x15b3, 0xa2dc, 0x2000000, "mlx5_core", 5)
        lay = self.layers(self.doctor(rc=20))
        self.assertIn("no rshim function", lay["pci"][1])
        self.assertIn("NIC PF (15b3:a2dc)", lay["pci"][1])

    def test_livefish(self):
        make_fn(self.root, "0000:04:00.0", 0x15b3, 0x0214, 0x100000)
        # Not a dead end: the layers go on (here: not bound, exit 22).
        p = self.doctor("--device", "0000:04:00.0", rc=22)
        self.assertIn("livefish mode (no NIC firmware): served through the config-space gateway", p.stdout)
        self.assertIn("Livefish recovery", p.stdout)
        self.assertNotIn("flash the NIC firmware", p.stdout)

    def test_not_a_dpu_function(self):
        self.dpu()
        make_fn(self.root, "0000:00:1f.0", 0x8086, 0x1234, 0x1000, "e1000e")
        p = self.doctor("--device", "0000:00:1f.0", rc=20)
        self.assertIn("0000:00:1f.0 is not a DPU rshim function", p.stdout)

    def test_degraded_link(self):
        self.dpu(speed=("2.5 GT/s PCIe", "8.0 GT/s PCIe"), width=(4, 16))
        lay = self.layers(self.doctor(rc=21))
        self.assertEqual(lay["pci"][0], "ok")
        self.assertEqual(lay["link"][0], "FAIL")
        self.assertIn("2.5 GT/s x4 (capable of 8.0 GT/s x16)", lay["link"][1])
        # Later layers still run: the driver is fine.
        self.assertEqual(lay["driver"][0], "ok")

    def test_bound_to_mlx5_core(self):
        self.dpu(rshim_driver="mlx5_core")
        p = self.doctor(rc=22)
        lay = self.layers(p)
        self.assertEqual(lay["driver"][0], "FAIL")
        self.assertIn("bound to mlx5_core", lay["driver"][1])
        self.assertIn("rshim-devbind.py -b vfio-pci %s" % RSHIM, p.stdout)
        self.assertEqual(lay["iommu"][0], "skip")
        self.assertEqual(lay["rshim"][0], "skip")
        # Every line names the device.
        for ln in p.stdout.splitlines():
            self.assertTrue(ln.startswith(RSHIM + ":"), ln)

    def test_unbound(self):
        self.dpu(rshim_driver=None)
        make_driver(self.root, "vfio-pci")
        p = self.doctor(rc=22)
        lay = self.layers(p)
        self.assertIn("not bound to a userspace driver", lay["driver"][1])
        self.assertIn("fix: rshim-devbind.py -b vfio-pci %s\n" % RSHIM, p.stdout)

    def test_unbound_vfio_pci_not_loaded(self):
        # The fix says why vfio-pci was missing and loads it.
        self.dpu(rshim_driver=None)
        p = self.doctor(rc=22)
        lay = self.layers(p)
        self.assertIn("not bound to a userspace driver; vfio-pci is not loaded", lay["driver"][1])
        self.assertIn("fix: modprobe vfio-pci && rshim-devbind.py -b vfio-pci %s" % RSHIM, p.stdout)

    def test_unbound_no_iommu_group(self):
        # vfio-pci cannot take a function with no IOMMU group: the fix is
        # the IOMMU or uio_pci_generic, not a bind that would be refused.
        self.dpu(rshim_driver=None, group=None)
        make_driver(self.root, "vfio-pci")
        p = self.doctor(rc=22)
        lay = self.layers(p)
        self.assertIn("it has no IOMMU group, so vfio-pci cannot take it", lay["driver"][1])
        self.assertIn("enable the IOMMU (intel_iommu=on or amd_iommu=on)", p.stdout)
        self.assertIn("rshim-devbind.py -b uio_pci_generic %s" % RSHIM, p.stdout)
        # With VFIO's no-IOMMU mode on, vfio-pci can take it.
        write(os.path.join(self.root, "module", "vfio", "parameters",
                           "enable_unsafe_noiommu_mode"), "Y\n")
        p = self.doctor(rc=22)
        self.assertIn("fix: rshim-devbind.py -b vfio-pci %s\n" % RSHIM, p.stdout)

    def test_no_iommu_group(self):
        self.dpu(group=None)
        lay = self.layers(self.doctor(rc=23))
        self.assertEqual(lay["iommu"][0], "FAIL")
        self.assertIn("no IOMMU group", lay["iommu"][1])
        self.assertEqual(lay["rshim"][0], "skip")
        # VFIO's no-IOMMU mode makes the layer pass; the rshim layer then
        # runs and fails (a fake tree has no device to map).
        write(os.path.join(self.root, "module", "vfio", "parameters",
                           "enable_unsafe_noiommu_mode"), "Y\n")
        lay = self.layers(self.doctor(rc=25))
        self.assertEqual(lay["iommu"][0], "ok")
        self.assertEqual(lay["rshim"][0], "FAIL")

    def test_noiommu_group(self):
        # A real kernel's no-IOMMU mode still makes a group (its node is
        # /dev/vfio/noiommu-N): the layer passes and names the mode.
        self.dpu()
        write(os.path.join(self.root, "module", "vfio", "parameters",
                           "enable_unsafe_noiommu_mode"), "Y\n")
        lay = self.layers(self.doctor(rc=25))
        self.assertEqual(lay["iommu"][0], "ok")
        self.assertIn("no-IOMMU mode", lay["iommu"][1])

    def test_sysfs_fine_device_unreachable(self):
        self.dpu()
        lay = self.layers(self.doctor(rc=25))
        for name in ("pci", "link", "driver", "iommu", "hugepages"):
            self.assertEqual(lay[name][0], "ok", name)
        self.assertEqual(lay["rshim"][0], "FAIL")
        self.assertEqual(lay["owner"][0], "skip")

    def test_no_hugepages_is_a_warning(self):
        self.dpu(rshim_driver="mlx5_core")
        hugepages(self.root, 0)
        lay = self.layers(self.doctor(rc=22))
        self.assertEqual(lay["hugepages"][0], "warn")

    def test_json(self):
        self.dpu(rshim_driver="mlx5_core")
        doc = json.loads(self.doctor("--json", rc=22).stdout)
        self.assertEqual(doc["exit_code"], 22)
        self.assertEqual(doc["device"], RSHIM)
        by = {x["layer"]: x for x in doc["layers"]}
        self.assertEqual([x["layer"] for x in doc["layers"]],
                         ["pci", "link", "driver", "iommu", "hugepages", "rshim",
                          "owner", "tmfifo", "tmfifo_net"])
        self.assertEqual(by["driver"]["status"], "FAIL")
        self.assertEqual(by["driver"]["code"], 22)
        self.assertIn("rshim-devbind.py", by["driver"]["fix"])
        self.assertEqual(by["pci"]["code"], 0)

    def test_emulator_booted(self):
        p = self.doctor("--device", "sim:bf3,booted=1,peer=none", rc=0)
        lay = self.layers(p)
        self.assertEqual(lay["pci"][0], "skip")
        for name in ("rshim", "owner", "tmfifo", "tmfifo_net"):
            self.assertEqual(lay[name][0], "ok", p.stdout)

    def test_emulator_not_booted(self):
        lay = self.layers(self.doctor("--device", "sim:bf2", rc=27))
        self.assertEqual(lay["rshim"][0], "ok")
        self.assertEqual(lay["tmfifo"][0], "FAIL")
        self.assertEqual(lay["tmfifo_net"][0], "skip")


if __name__ == "__main__":
    unittest.main()
