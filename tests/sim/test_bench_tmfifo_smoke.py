#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke run of --bench tmfifo (not a benchmark: tiny rows, no iperf3).

Checks the cost-model rows and the reference daemon's TM FIFO schedule
beside rshim-pmd's: the reference answers on its 1 ms tick, wakes hundreds
of times a second when idle, and both move DPU->host frames with the MMIO
cost model on, below the one-core read ceiling.
"""

import os
import re
import subprocess
import unittest

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1", RSH_BENCH_NO_TCP="1")


def row(out, label):
    """The numbers after a row label."""
    for line in out.splitlines():
        if line.startswith(label):
            return [float(x) for x in re.findall(r"[0-9]+\.[0-9]+|[0-9]+", line[len(label):])]
    raise AssertionError(f"no row '{label}' in:\n{out}")


class BenchTmfifoSmoke(unittest.TestCase):
    def test_rows(self):
        p = subprocess.run([APP, "--quiet", "--bench", "tmfifo", "--bench-time", "200ms"],
                           capture_output=True, text=True, env=ENV, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertNotIn("failed", out)
        mib, rx, ceil, rx_only, mmio = row(out, "net 1500 B, cost model")[0:5]
        self.assertGreater(rx, 0)
        self.assertLess(rx, 8.0)            # one 1 us read per 8 bytes: 7.6 MiB/s
        self.assertGreater(ceil, 0)
        self.assertLessEqual(ceil, 100.5)
        self.assertGreaterEqual(rx_only, ceil)
        pmd, ref = row(out, "rtt 64 B p50, us")
        self.assertGreater(ref, 200)        # the reference answers on its 1 ms tick
        self.assertLess(pmd, ref)
        wakeups = row(out, "idle wake-ups per second")[-1]
        self.assertGreater(wakeups, 50)     # a 1 ms timer, every tick a wake-up
        self.assertLess(wakeups, 1100)
        pmd_net, ref_net = row(out, "net 1500 B echo, DPU->host MiB/s (cost model)")
        self.assertGreater(ref_net, 0)
        self.assertAlmostEqual(pmd_net, rx, delta=0.01)


if __name__ == "__main__":
    unittest.main(verbosity=2)
