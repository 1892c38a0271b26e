#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The vm suite's host side: one guest boot per case.

  vm_case.py CASE

Boots a guest with usertools/rshim-vm, the case's emulated functions
(one rshim-sim-pci each) and IOMMU mode, and runs tests/vm/guest_CASE.sh
inside it; the guest prints "ok:"/"FAIL:" lines and a summary. The host
side adds what only the host can do: a TCP receiver in the emulated
DPU's network namespace. Per-run names: the namespace index, the share
directory. Exit 77 (skip) only when rshim-vm says a guest cannot start.
From meson: RSHIM_VM, RSHIM_SIM_PCI, RSHIM_PMD_APP, RSHIM_PMD, RSHIM_MKBFB.
The nvidia case needs RSHIM_US_DIR: a tree of NVIDIA's rshim-user-space,
whose daemon tests/vm/build_nvidia.py builds into the build tree (cached);
without it the case skips and says so.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import build_nvidia

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))


def peer_index():
    """A namespace index no other emulator uses now (rshim-sim<N>)."""
    rnd = random.Random(os.getpid() ^ int(time.time() * 1000))
    while True:
        n = rnd.randrange(100, 4000)
        if not os.path.exists("/run/netns/rshim-sim%d" % n):
            return n


def cases(peer):
    """CASE -> (IOMMU mode, device strings)."""
    return {
        "vfio": ("--iommu", [
            "sim:bf3,drain=20M,peer=%d" % peer,
            "sim:bf2,stall=60s@16K,peer=none",
            "sim:bf3,stall=5s@16K,peer=none"]),
        "service": ("--iommu", [
            "sim:bf3,drain=20M,peer=none",
            "sim:bf2,drain=20M,peer=none"]),
        "uio": ("--no-iommu-at-all", ["sim:bf3,drain=20M,peer=none"]),
        "noiommu": ("--noiommu", ["sim:bf3,drain=20M,peer=none"]),
        # BF3: a 300 ms quiet window after RESET_CONTROL, not silicon's 10 s
        # NVIDIA's daemon: a BF3 (DPU network), a BF2, and the BF3 again
        # through a second function (shared registers) for rshim-pmd
        "nvidia": ("--iommu", [
            "sim:bf3,drain=20M,peer=%d,shared=nv%d" % (peer, peer),
            "sim:bf2,drain=20M,peer=none",
            "sim:bf3,shared=nv%d,peer=none" % peer]),
        "livefish": ("--iommu", [
            "sim:bf1,livefish=1,peer=none",
            "sim:bf2,livefish=1,peer=none",
            "sim:bf3,livefish=1,lfquiet=300ms,peer=none"]),
    }


# No access the function refused: the proxy's own count (a partial or
# misplaced BAR access, a partial window write) and the device's.
def no_bad(*idx):
    return [(i, p) for i in idx for p in (r"mmio_writes=\d+ bad_accesses=0 fds_closed=",
                                          r"device .* bad_accesses=0 booted=")]


# What each emulator must have counted by the end (its exit lines); an
# emulator the case kills (vfio 1, service 1) has none.
HOST_CHECKS = {
    "vfio": [(2, r"device .* arm_resets=1 ")] + no_bad(0, 2),
    "service": [(0, r"images_ok=5 ")] + no_bad(0),
    "uio": [(0, r"images_ok=5 ")] + no_bad(0),
    "noiommu": [(0, r"rst_requests=1 rst_done=1 ")] + no_bad(0),
    # NVIDIA's daemon booted the BF2 and the BF3 (twice), rshim-pmd the
    # BF3 through its own function
    "nvidia": [(1, r"images_ok=5 "), (0, r"images_ok=5 "), (2, r"images_ok=5 ")]
    + no_bad(0, 1, 2),
    # every push booted, the gateway protocol kept, nothing touched in
    # the BF3 quiet window, no BAR access (there is none)
    "livefish": [(i, p) for i in range(3) for p in (
        r"images_ok=5 ", r"lf_violations=0 lf_early=0", r"mmio_reads=0 mmio_writes=0 ")]
    + no_bad(0, 1, 2),
}


def host_checks(case, share):
    """The emulators' exit counters; returns the number of failures."""
    bad = 0
    for idx, pat in HOST_CHECKS.get(case, []):
        path = os.path.join(share, "rshim-sim-pci.%d.log" % idx)
        text = open(path).read() if os.path.exists(path) else ""
        ok = re.search(pat, text) is not None
        print("%s: emulator %d counted /%s/" % ("ok" if ok else "FAIL", idx, pat))
        bad += not ok
    return bad


def tcp_receiver(peer, share, stop):
    """When the DPU's namespace appears: accept one TCP transfer in it."""
    ns = "/run/netns/rshim-sim%d" % peer
    while not stop.is_set() and not os.path.exists(ns):
        time.sleep(0.1)
    if stop.is_set():
        return
    xfer = os.path.join(SRC, "tests", "sim", "tmfifo", "tcp_xfer.py")
    out = os.path.join(share, "tcp.sha")
    with open(out + ".tmp", "w") as f:
        subprocess.run(["ip", "netns", "exec", "rshim-sim%d" % peer,
                        "/usr/bin/python3", xfer, "recv", "5001"],
                       stdout=f, stderr=subprocess.DEVNULL, timeout=120)
    os.rename(out + ".tmp", out)


def make_bfb(share, kib=8):
    """A 56 KiB BFB (kib=8): each trapped access costs tens of
    microseconds; livefish takes 4-10 config cycles a word: 14 KiB."""
    bfb = os.path.join(share, "tiny.bfb")
    k, k2 = "%dK" % kib, "%dK" % (2 * kib)
    subprocess.check_call([os.environ["RSHIM_MKBFB"], "--random", "bl2:%s:1" % k,
                           "--random", "bl31:%s:3" % k, "--random", "bl33:%s:5" % k,
                           "--random", "image:%s:62" % k2, "--random",
                           "initramfs:%s:63" % k2, bfb], stdout=subprocess.DEVNULL)
    return bfb


def main():
    """One case; exit status as the suite reads it."""
    case = sys.argv[1]
    if os.geteuid() != 0:
        print("skipped: the vm suite needs root (QEMU's guest binds drivers, "
              "the emulator makes namespaces)")
        return 77
    if case == "noiommu":
        # Debian's kernel has no CONFIG_VFIO_NOIOMMU: build (once, cached)
        # a vfio.ko with it; without the kernel sources, skip with why.
        b = subprocess.run([sys.executable, os.environ["RSHIM_VM"], "--build-noiommu"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        print(b.stdout.strip())
        if b.returncode != 0:
            print("skipped: no noiommu-capable vfio.ko (above)")
            return 77
    nv = ""
    if case == "nvidia":
        build = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(os.environ["RSHIM_PMD_APP"]))))
        try:
            nv, why = build_nvidia.nvidia_rshim(build)
        except build_nvidia.BuildError as e:
            print("FAIL: %s" % e)
            return 1
        if nv is None:
            print("skipped: NVIDIA's rshim daemon: %s; set RSHIM_US_DIR to a "
                  "rshim-user-space tree (doc/vm.md)" % why)
            return 77
        print("NVIDIA's rshim daemon: %s (built from %s)" % (nv, os.environ["RSHIM_US_DIR"]))
    peer = peer_index()
    mode, sims = cases(peer)[case]
    share = tempfile.mkdtemp(prefix="rshim-vm-%s-" % case)
    os.chmod(share, 0o755)
    env = dict(os.environ, APP=os.environ["RSHIM_PMD_APP"],
               SVC=os.environ.get("RSHIM_PMD", ""), MKBFB=os.environ["RSHIM_MKBFB"],
               SRC=SRC, SHARE=share, PEER=str(peer), NVIDIA_RSHIM=nv,
               BFB=make_bfb(share, 2 if case == "livefish" else 8))
    stop = threading.Event()
    rx = threading.Thread(target=tcp_receiver, args=(peer, share, stop), daemon=True)
    rx.start()
    cmd = [sys.executable, os.environ["RSHIM_VM"], "--share", share,
           "--timeout", "280", mode]
    for s in sims:
        cmd += ["--sim", s]
    cmd += ["--", "/bin/bash", os.path.join(HERE, "guest_%s.sh" % case)]
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    stop.set()
    print(p.stdout)
    print("guest run: %.1f s, rshim-vm exit %d" % (time.monotonic() - t0, p.returncode))
    for f in sorted(os.listdir(share)):
        if f.startswith("rshim-sim-pci."):
            print("--- %s: %s" % (f, open(os.path.join(share, f)).read().strip()))
    wdir = os.path.join(share, "w")
    if "FAIL" in p.stdout and os.path.isdir(wdir):
        for f in sorted(os.listdir(wdir)):
            print("--- guest %s (last lines):\n%s" % (f, "".join(
                open(os.path.join(wdir, f), errors="replace").readlines()[-15:])))
    if p.returncode == 77:
        shutil.rmtree(share, ignore_errors=True)
        return 77
    bad = host_checks(case, share)
    # QEMU gone: each emulator exited 0 and closed its device, whose DPU
    # namespace is removed with it
    if case == "vfio":
        left = os.path.exists("/run/netns/rshim-sim%d" % peer)
        print("%s: the DPU's namespace rshim-sim%d %s" % (
            "FAIL" if left else "ok", peer, "left behind" if left else "removed"))
        bad += left
    shutil.rmtree(share, ignore_errors=True)
    if bad:
        return 1
    if " passed, " not in p.stdout:
        print("FAIL: the guest script did not finish")
        return 1
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
