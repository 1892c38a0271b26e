#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""List, bind and unbind BlueField rshim PCI functions for rshim-pmd.

A thin wrapper in the style of DPDK's usertools: it finds the rshim
functions (vendor 15b3; BF1 c2d2, BF2 c2d3, BF3 c2d4/c2d5; livefish 0211,
0214, 021c, reached through config space), binds them through driver_override
+ bind (loading the driver's module first on the real /sys), and reserves
hugepages through dpdk-hugepages.py. Facts: hardware-notes §1.1, §2.2.

dpdk-devbind.py is not used to bind: its device table (DPDK 22.11) has no
rshim IDs, so it refuses an rshim function as an "Unknown device"
(hardware-notes §V6).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

# The IDs of lib/util/rsh_pci_ids.h (the usertools suite checks they agree).
VENDOR = 0x15B3
IDS = {0xC2D2: "BlueField-1", 0xC2D3: "BlueField-2", 0xC2D4: "BlueField-3",
       0xC2D5: "BlueField-3"}
LIVEFISH = {0x0211: "BlueField-1", 0x0214: "BlueField-2",
            0x021C: "BlueField-3"}
DRIVERS = ("vfio-pci", "uio_pci_generic")
VERSION = "@VERSION@"
UDEV_RULES = "90-rshim-pmd.rules"
MODULES_CONF = "rshim-pmd.conf"
# At boot: claim the function for DRIVER before (or instead of) any other
# driver, and re-probe it if one was faster.
UDEV_RULE = ('ACTION=="add", SUBSYSTEM=="pci", KERNEL=="%(bdf)s", '
             'ATTR{driver_override}="%(drv)s", RUN+="/bin/sh -c \''
             'd=/sys/bus/pci/devices/$kernel; [ -e $d/driver ] && '
             'echo $kernel > $d/driver/unbind; '
             'echo $kernel > /sys/bus/pci/drivers_probe\'"\n')
BDF_RE = re.compile(r"^(?:pcie-)?(?:([0-9a-fA-F]{4}):)?([0-9a-fA-F]{2}):"
                    r"([0-9a-fA-F]{2})\.([0-7])$")

EXAMPLES = """Examples:
  List rshim functions and their drivers:
        %(prog)s --status
  Bind a BlueField-2 rshim function to vfio-pci (the default backend):
        %(prog)s -b vfio-pci 0000:03:00.2
  Bind to uio_pci_generic (no IOMMU, no noiommu mode):
        %(prog)s -b uio_pci_generic 03:00.2
  Bind to vfio-pci now and at every boot (driverctl, else a udev rule):
        %(prog)s -b vfio-pci --persist 0000:03:00.2
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


def unused_modules(fs, current):
    """DPDK-compatible drivers loaded and not bound, as dpdk-devbind shows."""
    loaded = [d for d in DRIVERS if os.path.isdir(
        os.path.join(fs.root, "bus", "pci", "drivers", d))]
    return ",".join(d for d in loaded if d != current)


def status_line(fs, bdf, gen, ok):
    """One function in dpdk-devbind.py's --status format."""
    drv = fs.driver(bdf)
    dev = (fs.read(bdf, "device") or "0x0000")[2:]
    line = "%s '%s rshim %s'" % (bdf, gen, dev)
    if drv:
        line += " drv=%s" % drv
    line += " unused=%s" % unused_modules(fs, drv)
    if not ok:
        line += " *livefish: no NIC firmware, config-space gateway*"
    return line


def status_section(title, lines, out):
    """A titled, underlined, PCI-ordered block (or <none>)."""
    print("\n%s\n%s" % (title, "=" * len(title)), file=out)
    print("\n".join(sorted(lines)) if lines else "<none>", file=out)


def status(fs, out):
    """Print the rshim functions grouped by driver, like dpdk-devbind.py."""
    funcs = fs.functions()
    if not funcs:
        msg = "No 'BlueField rshim' devices detected"
        print("\n%s\n%s" % (msg, "=" * len(msg)), file=out)
        return 0
    groups = {"dpdk": [], "kernel": [], "none": []}
    for bdf, gen, ok in funcs:
        drv = fs.driver(bdf)
        key = "none" if not drv else ("dpdk" if drv in DRIVERS else "kernel")
        groups[key].append(status_line(fs, bdf, gen, ok))
    if groups["dpdk"]:
        status_section("BlueField rshim devices using DPDK-compatible driver",
                       groups["dpdk"], out)
    if groups["kernel"]:
        status_section("BlueField rshim devices using kernel driver",
                       groups["kernel"], out)
    if groups["none"]:
        status_section("Other BlueField rshim devices", groups["none"], out)
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


def real_sysfs(args):
    """True when --sysfs-root is the machine's own /sys."""
    return os.path.realpath(args.sysfs_root) == "/sys"


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


def bind_one(fs, bdf, driver, load):
    """driver_override + unbind + bind (hardware-notes §2.2); with load,
    modprobe the driver's module when it is not loaded."""
    drv_dir = os.path.join(fs.root, "bus", "pci", "drivers", driver)
    if not os.path.isdir(drv_dir) and load and shutil.which("modprobe"):
        run(["modprobe", driver.replace("-", "_")], fs.dry_run, fs.out)
    if not os.path.isdir(drv_dir) and not (fs.dry_run and load):
        mod = driver.replace("-", "_")
        raise SystemExit("Error: driver %s is not loaded; run: modprobe %s"
                         % (driver, mod))
    if fs.driver(bdf) == driver:
        print("%s already bound to %s" % (bdf, driver), file=fs.out)
        return
    fs.write(os.path.join(fs.dev_dir(bdf), "driver_override"), driver)
    if fs.driver(bdf):
        fs.write(os.path.join(fs.dev_dir(bdf), "driver", "unbind"), bdf)
    try:
        fs.write(os.path.join(drv_dir, "bind"), bdf)
    except OSError as e:
        fs.write(os.path.join(fs.dev_dir(bdf), "driver_override"), "\n")
        raise SystemExit(bind_error(fs, bdf, driver, e))


def bind_error(fs, bdf, driver, err):
    """One line: why the kernel refused the bind, and what to do."""
    if driver == "vfio-pci" and fs.iommu_group(bdf) is None:
        return ("Error: %s has no IOMMU group, so vfio-pci cannot take it; "
                "boot with intel_iommu=on iommu=pt (AMD: amd_iommu=on), or "
                "(a VM without vIOMMU) modprobe vfio "
                "enable_unsafe_noiommu_mode=1 where the kernel has "
                "CONFIG_VFIO_NOIOMMU, or bind uio_pci_generic" % bdf)
    return "Error: %s: %s refused the bind: %s" % (bdf, driver, err.strerror)


def use_driverctl(args):
    """driverctl keeps overrides itself; it only works on the real /sys."""
    return (not args.no_driverctl and os.path.realpath(args.sysfs_root) ==
            "/sys" and shutil.which("driverctl") is not None)


def write_file(path, text, dry_run, out):
    """Replace a file's contents (printed instead with --dry-run)."""
    if dry_run:
        print("would write %s:\n%s" % (path, text or "(empty)"), file=out)
        return
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def persist_udev(args, bdfs, out):
    """Keep one udev rule per persistent function (and load its module)."""
    path = os.path.join(args.udev_dir, UDEV_RULES)
    try:
        with open(path) as f:
            lines = f.readlines()
    except FileNotFoundError:
        lines = ["# SPDX-License-Identifier: BSD-3-Clause\n",
                 "# BlueField rshim functions bound at boot for rshim-pmd "
                 "(rshim-devbind --persist).\n"]
    keep = [ln for ln in lines
            if not any('KERNEL=="%s"' % b in ln for b in bdfs)]
    if args.bind:
        keep += [UDEV_RULE % {"bdf": b, "drv": args.bind} for b in bdfs]
        write_file(os.path.join(args.modules_dir, MODULES_CONF),
                   args.bind.replace("-", "_") + "\n", args.dry_run, out)
    write_file(path, "".join(keep), args.dry_run, out)
    what = ("bound to %s at boot" % args.bind) if args.bind else \
        "no longer bound at boot"
    print("%s: %s (%s; udevadm control --reload applies it now)"
          % (" ".join(bdfs), what, path), file=out)


def persist(args, bdfs, out):
    """Make -b/-u survive a reboot: driverctl, else a udev rule."""
    if not use_driverctl(args):
        persist_udev(args, bdfs, out)
        return 0
    rc = 0
    for bdf in bdfs:
        cmd = (["driverctl", "set-override", bdf, args.bind] if args.bind
               else ["driverctl", "unset-override", bdf])
        rc |= run(cmd, args.dry_run, out)
    return rc


class RshHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse help with GNU-style "Usage:" (man pages come from it)."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups,
                          "Usage: " if prefix is None else prefix)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="List, bind and unbind BlueField rshim functions for "
        "rshim-pmd.", epilog=EXAMPLES,
        formatter_class=RshHelpFormatter, add_help=False)
    pos = p.add_argument_group("Arguments")
    opt = p.add_argument_group("Options")
    opt.add_argument("-h", "--help", action="help",
                     help="show this help and exit")
    opt.add_argument("-s", "--status", action="store_true",
                   help="list rshim functions and their drivers (default)")
    opt.add_argument("-b", "--bind", metavar="DRIVER", choices=DRIVERS,
                   help="bind the devices to DRIVER (vfio-pci or "
                   "uio_pci_generic)")
    opt.add_argument("-u", "--unbind", action="store_true",
                   help="unbind the devices from their driver")
    opt.add_argument("--force", action="store_true",
                   help="also act on functions that are not rshim IDs")
    opt.add_argument("--hugepages", metavar="SIZE",
                   help="reserve SIZE (e.g. 512M, 1G) of hugepages through "
                   "dpdk-hugepages.py")
    opt.add_argument("--pagesize", default="2M",
                   help="hugepage size for --hugepages (default 2M)")
    opt.add_argument("--persist", action="store_true",
                   help="with -b/-u: also at every boot (driverctl when "
                   "installed, else a udev rule in --udev-dir)")
    opt.add_argument("--no-driverctl", action="store_true",
                   help="with --persist: write the udev rule even when "
                   "driverctl is installed")
    opt.add_argument("--udev-dir", default="/etc/udev/rules.d", metavar="DIR",
                   help="where --persist keeps its udev rule (default "
                   "/etc/udev/rules.d)")
    opt.add_argument("--modules-dir", default="/etc/modules-load.d",
                   metavar="DIR", help="where --persist names the driver's "
                   "module to load at boot (default /etc/modules-load.d)")
    opt.add_argument("--dry-run", action="store_true",
                   help="print what would be done; change nothing")
    opt.add_argument("--no-devbind", action="store_true",
                   help="do not load the driver's module (binding always "
                   "writes sysfs directly)")
    opt.add_argument("--sysfs-root", default="/sys", metavar="DIR",
                   help="directory standing for /sys (tests, containers)")
    pos.add_argument("devices", nargs="*", metavar="DEVICE",
                   help="PCI address: 0000:03:00.2, 03:00.2 or "
                   "pcie-0000:03:00.2")
    opt.add_argument("-V", "--version", action="version",
                   version="%(prog)s (rshim-pmd) " + VERSION,
                     help="show the version and exit")
    args = p.parse_args(argv)
    if args.bind and args.unbind:
        p.error("-b and -u are exclusive")
    if (args.bind or args.unbind) and not args.devices:
        p.error("-b/-u need at least one DEVICE")
    if args.persist and not (args.bind or args.unbind):
        p.error("--persist goes with -b or -u")
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
        if args.bind:
            bind_one(fs, bdf, args.bind, real_sysfs(args) and not args.no_devbind)
        elif args.unbind:
            unbind_one(fs, bdf)
    if args.persist:
        rc |= persist(args, bdfs, out)
    if args.status or not (args.bind or args.unbind or args.hugepages):
        rc |= status(fs, out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
