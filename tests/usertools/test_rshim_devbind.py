#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-devbind.py against fake sysfs trees (run by meson test)."""

import importlib.machinery
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.environ.get("RSHIM_DEVBIND",
                        os.path.join(HERE, "..", "..", "usertools",
                                     "rshim-devbind.py"))
PCI_IDS_H = os.environ.get("RSH_PCI_IDS_H",
                           os.path.join(HERE, "..", "..", "lib", "util",
                                        "rsh_pci_ids.h"))


sys.path.insert(0, os.path.join(HERE, "..", "common"))
from fake_sysfs import make_driver  # noqa: E402
from fake_sysfs import make_fn as make_full_fn  # noqa: E402


def make_fn(root, bdf, vendor, device, driver=None, group=None):
    """One fake PCI function with optional driver and iommu_group links."""
    make_full_fn(root, bdf, vendor, device, driver=driver, group=group)


def read(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


class DevbindTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="rsh-devbind-")
        make_fn(self.root, "0000:03:00.2", 0x15b3, 0xc2d3, "mlx5_core", 7)
        make_fn(self.root, "0000:65:00.1", 0x15b3, 0xc2d5, None, 9)
        make_fn(self.root, "0000:04:00.0", 0x15b3, 0x0214)
        make_fn(self.root, "0000:03:00.0", 0x15b3, 0xa2d6, "mlx5_core", 7)
        make_fn(self.root, "0000:00:1f.0", 0x8086, 0xc2d3)
        make_driver(self.root, "vfio-pci")

    def tearDown(self):
        shutil.rmtree(self.root)

    def run_tool(self, *args, rc=0):
        p = subprocess.run([sys.executable, SCRIPT, "--sysfs-root",
                            self.root] + list(args), capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, rc, p.stdout + p.stderr)
        return p.stdout + p.stderr

    def test_status_lists_rshim_only(self):
        out = self.run_tool("--status")
        self.assertIn("0000:03:00.2 'BlueField-2 rshim c2d3' drv=mlx5_core "
                      "unused=vfio-pci", out)
        self.assertIn("0000:65:00.1 'BlueField-3 rshim c2d5' unused=vfio-pci",
                      out)
        self.assertIn("0000:04:00.0 'BlueField-2 livefish rshim 0214' "
                      "unused=vfio-pci *livefish: no NIC firmware", out)
        self.assertNotIn("0000:03:00.0", out)
        self.assertNotIn("0000:00:1f.0", out)

    def test_status_sections_like_dpdk_devbind(self):
        make_fn(self.root, "0000:05:00.2", 0x15b3, 0xc2d4, "vfio-pci")
        make_fn(self.root, "0000:02:00.2", 0x15b3, 0xc2d2, "vfio-pci")
        out = self.run_tool("--status").split("\n")
        dpdk = "BlueField rshim devices using DPDK-compatible driver"
        kern = "BlueField rshim devices using kernel driver"
        other = "Other BlueField rshim devices"
        for title in (dpdk, kern, other):
            i = out.index(title)
            self.assertEqual(out[i + 1], "=" * len(title))
            self.assertEqual(out[i - 1], "")
        self.assertLess(out.index(dpdk), out.index(kern))
        self.assertLess(out.index(kern), out.index(other))
        i = out.index(dpdk)
        # PCI order inside a section; the bound driver is not "unused".
        self.assertEqual(out[i + 2], "0000:02:00.2 'BlueField-1 rshim c2d2' "
                         "drv=vfio-pci unused=")
        self.assertEqual(out[i + 3], "0000:05:00.2 'BlueField-3 rshim c2d4' "
                         "drv=vfio-pci unused=")

    def test_status_none_found(self):
        shutil.rmtree(os.path.join(self.root, "bus", "pci", "devices"))
        out = self.run_tool("--status")
        self.assertIn("No 'BlueField rshim' devices detected", out)

    def persist_dirs(self):
        udev = os.path.join(self.root, "udev")
        mods = os.path.join(self.root, "modules")
        return udev, mods, ["--persist", "--no-driverctl", "--udev-dir", udev,
                            "--modules-dir", mods]

    def test_persist_udev_rule_and_module(self):
        udev, mods, opts = self.persist_dirs()
        out = self.run_tool("-b", "vfio-pci", "03:00.2", *opts)
        self.assertIn("bound to vfio-pci at boot", out)
        rules = read(udev, "90-rshim-pmd.rules")
        self.assertIn('SUBSYSTEM=="pci", KERNEL=="0000:03:00.2", '
                      'ATTR{driver_override}="vfio-pci"', rules)
        self.assertIn("drivers_probe", rules)
        self.assertEqual(read(mods, "rshim-pmd.conf"), "vfio_pci\n")
        # A second function adds a rule; rebinding replaces, never doubles.
        self.run_tool("-b", "vfio-pci", "65:00.1", *opts)
        self.run_tool("-b", "vfio-pci", "03:00.2", *opts)
        rules = read(udev, "90-rshim-pmd.rules")
        self.assertEqual(rules.count('KERNEL=="0000:03:00.2"'), 1)
        self.assertEqual(rules.count('KERNEL=="0000:65:00.1"'), 1)
        # -u --persist drops only that function's rule.
        out = self.run_tool("-u", "03:00.2", *opts)
        self.assertIn("no longer bound at boot", out)
        rules = read(udev, "90-rshim-pmd.rules")
        self.assertNotIn("0000:03:00.2", rules)
        self.assertIn('KERNEL=="0000:65:00.1"', rules)

    def test_persist_dry_run_writes_nothing(self):
        udev, mods, opts = self.persist_dirs()
        out = self.run_tool("--dry-run", "-b", "vfio-pci", "03:00.2", *opts)
        self.assertIn("would write " + os.path.join(udev, "90-rshim-pmd.rules"),
                      out)
        self.assertFalse(os.path.exists(udev))
        self.assertFalse(os.path.exists(mods))

    def test_persist_needs_bind_or_unbind(self):
        out = self.run_tool("--persist", rc=2)
        self.assertIn("--persist goes with -b or -u", out)

    def test_bind_vfio_override_unbind_bind(self):
        self.run_tool("-b", "vfio-pci", "pcie-0000:03:00.2")
        self.assertEqual(read(self.root, "bus/pci/devices/0000:03:00.2/"
                              "driver_override"), "vfio-pci")
        self.assertEqual(read(self.root, "bus/pci/drivers/mlx5_core/unbind"),
                         "0000:03:00.2")
        self.assertEqual(read(self.root, "bus/pci/drivers/vfio-pci/bind"),
                         "0000:03:00.2")

    def test_bind_unbound_short_form(self):
        self.run_tool("-b", "vfio-pci", "65:00.1")
        self.assertEqual(read(self.root, "bus/pci/drivers/vfio-pci/bind"),
                         "0000:65:00.1")

    def test_dry_run_changes_nothing(self):
        out = self.run_tool("--dry-run", "-b", "vfio-pci", "03:00.2")
        self.assertIn("would write vfio-pci to ", out)
        self.assertIn("would write 0000:03:00.2 to ", out)
        self.assertEqual(read(self.root, "bus/pci/drivers/vfio-pci/bind"), "")
        self.assertEqual(read(self.root, "bus/pci/devices/0000:03:00.2/"
                              "driver_override"), "(null)\n")

    def test_unbind_clears_override(self):
        self.run_tool("-u", "0000:03:00.2")
        self.assertEqual(read(self.root, "bus/pci/drivers/mlx5_core/unbind"),
                         "0000:03:00.2")
        self.assertEqual(read(self.root, "bus/pci/devices/0000:03:00.2/"
                              "driver_override"), "\n")

    def test_refuses_non_rshim_and_bad_address(self):
        out = self.run_tool("-b", "vfio-pci", "03:00.0", rc=1)
        self.assertIn("not an rshim function (vendor 0x15b3 device 0xa2d6)",
                      out)
        self.assertIn("--force", out)
        out = self.run_tool("-u", "zz:00.0", rc=1)
        self.assertIn("not a PCI address", out)
        out = self.run_tool("-u", "09:00.0", rc=1)
        self.assertIn("0000:09:00.0: no such PCI address", out)

    def test_driver_not_loaded(self):
        out = self.run_tool("-b", "uio_pci_generic", "03:00.2", rc=1)
        self.assertIn("modprobe uio_pci_generic", out)

    def test_hugepages_dry_run(self):
        out = self.run_tool("--dry-run", "--hugepages", "512M")
        self.assertIn("would run: dpdk-hugepages.py -p 2M --setup 512M", out)

    def test_help_has_examples(self):
        p = subprocess.run([sys.executable, SCRIPT, "--help"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("Examples:", p.stdout)
        self.assertIn("Options:", p.stdout)
        self.assertIn("--persist", p.stdout)
        self.assertIn("-b vfio-pci 0000:03:00.2", p.stdout)


def load_script():
    """rshim-devbind.py as a module (its name has a '-')."""
    loader = importlib.machinery.SourceFileLoader("rshim_devbind", SCRIPT)
    spec = importlib.util.spec_from_loader("rshim_devbind", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class IdTableTest(unittest.TestCase):
    """The script's ID tables are the C table of lib/util/rsh_pci_ids.h."""

    def test_ids_match_c_table(self):
        with open(PCI_IDS_H) as f:
            rows = re.findall(r"\{ (0x[0-9A-Fa-f]{4}), ([1-3]), "
                              r"RSH_PCI_KIND_(\w+) \}", f.read())
        self.assertGreater(len(rows), 0, "no entries parsed")
        c = {"RSHIM": {}, "LIVEFISH": {}}
        for dev, gen, kind in rows:
            if kind in c:
                c[kind][int(dev, 16)] = "BlueField-" + gen
        vendor = re.search(r"#define RSH_PCI_VENDOR_ID (0x[0-9A-Fa-f]+)u",
                           open(PCI_IDS_H).read())
        mod = load_script()
        self.assertEqual(mod.VENDOR, int(vendor.group(1), 16))
        self.assertEqual(mod.IDS, c["RSHIM"])
        self.assertEqual(mod.LIVEFISH, c["LIVEFISH"])


if __name__ == "__main__":
    unittest.main()
