# SPDX-License-Identifier: BSD-3-Clause
"""Fake sysfs trees for the tests of the PCI path, the doctor and
rshim-devbind.py (one writer, not a copy per test): PCI functions with
their attributes, BAR0 as a sparse resource0 file, config space, driver
directories with bind/unbind, IOMMU groups."""

import os
import struct


def write(path, text):
    """Write text to path, creating its directory."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_driver(root, name):
    """A driver directory with bind/unbind files; its path."""
    drv = os.path.join(root, "bus", "pci", "drivers", name)
    os.makedirs(drv, exist_ok=True)
    for f in ("bind", "unbind"):
        open(os.path.join(drv, f), "a").close()
    return drv


def make_fn(root, bdf, vendor, device, bar=0x100000, driver=None, group=None,
            speed=("8.0 GT/s PCIe", "8.0 GT/s PCIe"), width=(16, 16)):
    """One fake PCI function under root/bus/pci/devices; its path."""
    d = os.path.join(root, "bus", "pci", "devices", bdf)
    attrs = {"vendor": "0x%04x" % vendor, "device": "0x%04x" % device,
             "class": "0x080100", "revision": "0x01", "irq": "16",
             "numa_node": "0", "enable": "0", "driver_override": "(null)",
             "current_link_speed": speed[0], "max_link_speed": speed[1],
             "current_link_width": str(width[0]),
             "max_link_width": str(width[1]),
             "resource": "0x00000000e0000000 0x%016x 0x000000000014220c\n"
                         "0x0000000000000000 0x0000000000000000 "
                         "0x0000000000000000" % (0xe0000000 + bar - 1)}
    for name, val in attrs.items():
        write(os.path.join(d, name), val + "\n")
    with open(os.path.join(d, "resource0"), "wb") as f:
        f.truncate(bar)
    cfg = bytearray(256)
    cfg[0:4] = struct.pack("<HH", vendor, device)
    cfg[8] = 1
    with open(os.path.join(d, "config"), "wb") as f:
        f.write(cfg)
    if driver:
        os.symlink(make_driver(root, driver), os.path.join(d, "driver"))
    if group is not None:
        g = os.path.join(root, "kernel", "iommu_groups", str(group))
        os.makedirs(os.path.join(g, "devices"), exist_ok=True)
        os.symlink(d, os.path.join(g, "devices", bdf))
        os.symlink(g, os.path.join(d, "iommu_group"))
    return d


def bar_rw(d, off, val=None):
    """Read (or write) one 64-bit register in a fake resource0."""
    with open(os.path.join(d, "resource0"), "r+b") as f:
        f.seek(off)
        if val is None:
            return struct.unpack("<Q", f.read(8))[0]
        f.write(struct.pack("<Q", val))
        return val
