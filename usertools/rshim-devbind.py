#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""List, bind and unbind BlueField rshim PCI functions for rshim-pmd.

A thin wrapper in the style of DPDK's usertools: it finds the rshim
functions (vendor 15b3; BF1 c2d2, BF2 c2d3, BF3 c2d4/c2d5; livefish 0211,
0214, 021c are listed but unsupported), binds them through dpdk-devbind.py
or through driver_override + bind, and reserves hugepages through
dpdk-hugepages.py. Facts: reference/rshim-host-interface.md §1.1, §2.2.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

VENDOR = 0x15B3
IDS = {0xC2D2: "BlueField-1", 0xC2D3: "BlueField-2", 0xC2D4: "BlueField-3",
       0xC2D5: "BlueField-3"}
LIVEFISH = {0x0211: "BlueField-1", 0x0214: "BlueField-2",
            0x021C: "BlueField-3"}
DRIVERS = ("vfio-pci", "uio_pci_generic")
BDF_RE = re.compile(r"^(?:pcie-)?(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):"
                    r"([0-9a-fA-F]{2})\.([0-7])$")

EXAMPLES = """examples:
  List rshim functions and their drivers:
        %(prog)s --status
  Bind a BlueField-2 rshim function to vfio-pci (the default backend):
        %(prog)s -b vfio-pci 0000:03:00.2
  Bind to uio_pci_generic (no IOMMU, no noiommu mode):
        %(prog)s -b uio_pci_generic 03:00.2
  Release a function (e.g. before passing it to a VM):
        %(prog)s -u pcie-0000:03:00.2
  Reserve 512 MiB of 2 MiB hugepages and show what would be done:
        %(prog)s --hugepages 512M --dry-run
"""


def normalise(addr):
    """'03:00.2', 'pcie-0000:03:00.2' -> '0000:03:00.2' (or None)."""
    m = BDF_RE.match(addr)
    if not m:
        return None
    dom = m.group(1) or "0000"
    return "%s:%s:%s.%s" % (dom.lower(), m.group(2).lower(),
                            m.group(3).lower(), m.group(4))


class Sysfs:
    """PCI sysfs below a root that stands for /sys; --dry-run aware."""

    def __init__(self, root, dry_run, out):
        self.root = root
        self.dry_run = dry_run
        self.out = out

    def dev_dir(self, bdf):
        return os.path.join(self.root, "bus", "pci", "devices", bdf)

    def read(self, bdf, name):
        try:
            with open(os.path.join(self.dev_dir(bdf), name)) as f:
                return f.read().strip()
        except OSError:
            return None

    def driver(self, bdf):
        link = os.path.join(self.dev_dir(bdf), "driver")
        if not os.path.islink(link):
            return None
        return os.path.basename(os.readlink(link))

    def iommu_group(self, bdf):
        link = os.path.join(self.dev_dir(bdf), "iommu_group")
        if not os.path.islink(link):
            return None
        return os.path.basename(os.readlink(link))

    def write(self, path, value):
        """Write value to a sysfs file (printed instead with --dry-run)."""
        shown = value if value.strip() else "(empty)"
        if self.dry_run:
            print("would write %s to %s" % (shown, path), file=self.out)
            return
        with open(path, "w") as f:
            f.write(value)

    def functions(self):
        """[(bdf, gen, supported)] of the rshim functions."""
        base = os.path.join(self.root, "bus", "pci", "devices")
        found = []
        for bdf in sorted(os.listdir(base)) if os.path.isdir(base) else []:
            try:
                ven = int(self.read(bdf, "vendor") or "0", 16)
                dev = int(self.read(bdf, "device") or "0", 16)
            except ValueError:
                continue
            if ven != VENDOR:
                continue
            if dev in IDS:
                found.append((bdf, IDS[dev], True))
            elif dev in LIVEFISH:
                found.append((bdf, LIVEFISH[dev] + " livefish", False))
        return found


def status(fs, out):
    """Print the rshim functions with their drivers."""
    funcs = fs.functions()
    if not funcs:
        print("No BlueField rshim functions found", file=out)
        return 0
    print("BlueField rshim functions", file=out)
    print("=========================", file=out)
    for bdf, gen, ok in funcs:
        drv = fs.driver(bdf) or "none"
        grp = fs.iommu_group(bdf) or "none"
        note = "" if ok else " (unsupported: no NIC firmware)"
        print("%s '%s' drv=%s iommu_group=%s%s" % (bdf, gen, drv, grp, note),
              file=out)
    return 0


def check_rshim(fs, bdf, force):
    """Refuse non-rshim functions unless --force."""
    known = {b for b, _, _ in fs.functions()}
    if not os.path.isdir(fs.dev_dir(bdf)):
        raise SystemExit("Error: %s: no such PCI address" % bdf)
    if bdf not in known and not force:
        raise SystemExit("Error: %s: not an rshim function (vendor %s "
                         "device %s); use --force to override"
                         % (bdf, fs.read(bdf, "vendor"),
                            fs.read(bdf, "device")))


def use_devbind(args):
    """dpdk-devbind.py only works on the real /sys."""
    return (not args.no_devbind and os.path.realpath(args.sysfs_root) ==
            "/sys" and shutil.which("dpdk-devbind.py") is not None)


def run(cmd, dry_run, out):
    """Run (or with --dry-run print) a command."""
    if dry_run:
        print("would run: %s" % " ".join(cmd), file=out)
        return 0
    return subprocess.call(cmd)


def unbind_one(fs, bdf):
    """Unbind from the current driver and clear driver_override."""
    drv = fs.driver(bdf)
    if drv:
        fs.write(os.path.join(fs.dev_dir(bdf), "driver", "unbind"), bdf)
    override = os.path.join(fs.dev_dir(bdf), "driver_override")
    if os.path.exists(override):
        fs.write(override, "\n")


def bind_one(fs, bdf, driver):
    """driver_override + unbind + bind (reference §2.2)."""
    drv_dir = os.path.join(fs.root, "bus", "pci", "drivers", driver)
    if not os.path.isdir(drv_dir):
        mod = driver.replace("-", "_")
        raise SystemExit("Error: driver %s is not loaded; run: modprobe %s"
                         % (driver, mod))
    if fs.driver(bdf) == driver:
        print("%s already bound to %s" % (bdf, driver), file=fs.out)
        return
    fs.write(os.path.join(fs.dev_dir(bdf), "driver_override"), driver)
    if fs.driver(bdf):
        fs.write(os.path.join(fs.dev_dir(bdf), "driver", "unbind"), bdf)
    fs.write(os.path.join(drv_dir, "bind"), bdf)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="List, bind and unbind BlueField rshim functions for "
        "rshim-pmd.", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-s", "--status", action="store_true",
                   help="list rshim functions and their drivers (default)")
    p.add_argument("-b", "--bind", metavar="DRIVER", choices=DRIVERS,
                   help="bind the devices to DRIVER (vfio-pci or "
                   "uio_pci_generic)")
    p.add_argument("-u", "--unbind", action="store_true",
                   help="unbind the devices from their driver")
    p.add_argument("--force", action="store_true",
                   help="also act on functions that are not rshim IDs")
    p.add_argument("--hugepages", metavar="SIZE",
                   help="reserve SIZE (e.g. 512M, 1G) of hugepages through "
                   "dpdk-hugepages.py")
    p.add_argument("--pagesize", default="2M",
                   help="hugepage size for --hugepages (default 2M)")
    p.add_argument("--dry-run", action="store_true",
                   help="print what would be done; change nothing")
    p.add_argument("--no-devbind", action="store_true",
                   help="do not use dpdk-devbind.py; write sysfs directly")
    p.add_argument("--sysfs-root", default="/sys", metavar="DIR",
                   help="directory standing for /sys (tests, containers)")
    p.add_argument("devices", nargs="*", metavar="DEVICE",
                   help="PCI address: 0000:03:00.2, 03:00.2 or "
                   "pcie-0000:03:00.2")
    args = p.parse_args(argv)
    if args.bind and args.unbind:
        p.error("-b and -u are exclusive")
    if (args.bind or args.unbind) and not args.devices:
        p.error("-b/-u need at least one DEVICE")
    return args


def main(argv=None, out=sys.stdout):
    args = parse_args(argv)
    fs = Sysfs(args.sysfs_root, args.dry_run, out)
    bdfs = []
    for d in args.devices:
        bdf = normalise(d)
        if bdf is None:
            raise SystemExit("Error: %s: not a PCI address (use "
                             "0000:03:00.2, 03:00.2 or pcie-0000:03:00.2)"
                             % d)
        check_rshim(fs, bdf, args.force)
        bdfs.append(bdf)
    rc = 0
    if args.hugepages:
        rc |= run(["dpdk-hugepages.py", "-p", args.pagesize, "--setup",
                   args.hugepages], args.dry_run, out)
    for bdf in bdfs:
        if use_devbind(args):
            cmd = ["dpdk-devbind.py"] + (["-b", args.bind] if args.bind
                                         else ["-u"]) + [bdf]
            rc |= run(cmd, args.dry_run, out)
        elif args.bind:
            bind_one(fs, bdf, args.bind)
        elif args.unbind:
            unbind_one(fs, bdf)
    if args.status or not (args.bind or args.unbind or args.hugepages):
        rc |= status(fs, out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
