#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Boot pushes through the service's nodes: one device, four in parallel
from one poll lcore, and rshim-pmd-app --push-boot direct on the same
drain, interleaved, medians of ROUNDS. Prints a Markdown table.

  bench_service.py [--drain 50M] [--size 64M] [--rounds 3]
Needs RSHIM_PMD, RSHIM_PMD_APP, RSHIM_MKBFB (meson sets them).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from svc_helper import MKBFB, Service, fuse_missing  # noqa: E402

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
BASE = 80 + (os.getpid() % 10) * 4


def one_push(node, path):
    t0 = time.monotonic()
    subprocess.run(["sh", "-c", "cat '%s' > '%s'" % (path, node)], check=True)
    return time.monotonic() - t0


def parallel(nodes, path):
    t0 = time.monotonic()
    ps = [subprocess.Popen(["sh", "-c", "cat '%s' > '%s'" % (path, n)]) for n in nodes]
    for p in ps:
        if p.wait() != 0:
            raise RuntimeError("push failed")
    return time.monotonic() - t0


def app_push(dev, path):
    p = subprocess.run([APP, "--device", dev, "--push-boot", path, "--no-log", "--quiet", "--no-progress"],
                       capture_output=True, text=True, check=True,
                       env=dict(os.environ))
    m = re.search(r"pushed (\d+) bytes in ([\d.]+) s", p.stdout + p.stderr)
    return int(m.group(1)) / float(m.group(2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--drain", default="50M")
    ap.add_argument("--size", default="64M")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    why = fuse_missing()
    if why:
        print("skipped: " + why)
        return 77
    sims = ["bf3,drain=%s,rev=%d" % (a.drain, i + 1) for i in range(4)]
    svc = Service(sims, BASE)
    path = os.path.join(svc.tmp, "bench.bfb")
    subprocess.run([MKBFB, "--random", "bl2:64K:1", "--random", "image:%s:62" % a.size,
                    path], check=True, stdout=subprocess.DEVNULL)
    size = os.path.getsize(path)
    mib = size / 1048576.0
    one, four, app = [], [], []
    try:
        if not svc.start(expect=4):
            print(svc.text())
            return 1
        nodes = [svc.node(BASE + i, "boot") for i in range(4)]
        for _ in range(a.rounds):
            one.append(mib / one_push(nodes[0], path))
            four.append(4 * mib / parallel(nodes, path))
            app.append(app_push("sim:" + sims[0] + ",peer=none", path) / 1048576.0)
    finally:
        svc.stop()
        shutil.rmtree(svc.tmp, ignore_errors=True)
    m1, m4, ma = (statistics.median(x) for x in (one, four, app))
    print("| drain per device | file | one device (cat → node) | 4 devices in parallel | "
          "4-device ratio | rshim-pmd-app direct | node / direct |")
    print("|---|---|---|---|---|---|---|")
    m = re.fullmatch(r"(\d+)([KMG]?)", a.drain)
    drain = "%s %sB" % m.groups() if m else a.drain  # 50M -> 50 MB
    print("| %s/s | %.0f MiB | %.1f MiB/s | %.1f MiB/s | %.2f | %.1f MiB/s | %.2f |"
          % (drain, mib, m1, m4, m4 / (4 * m1), ma, m1 / ma))
    print("rounds: one %s; four %s; direct %s" % (
        ["%.1f" % x for x in one], ["%.1f" % x for x in four], ["%.1f" % x for x in app]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
