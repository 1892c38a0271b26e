#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Smoke run of the boot benchmarks (not a benchmark: tiny rows).

Checks that --bench boot and --bench install produce every row and column
with sane values (no failed row, bytes moved, reads per MiB never below the
floor one status read per credit allows, the reference model costing more
status reads than rshim-pmd), the text table's labels, and that Ctrl-C stops
a benchmark at once with exit 130 and no table.
"""

import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
DEMO = os.environ.get("RSHIM_PMD_DEMO", "demo.bfb")
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1")
CREDIT = {"bf1": 509, "bf2": 509, "bf3": 1021}  # depth - 3 (hardware-notes §3.3, §D6.1)
FIELDS = ("gen", "drain_bps", "policy", "cost_model", "bytes", "time_s", "mib_s",
          "pct_of_limit", "reads_per_mib", "writes_per_mib", "cpu_us_per_mib",
          "wakeups_per_mib", "partial", "rc")


def run(*args, timeout=60):
    return subprocess.run([APP, "--quiet", *args], capture_output=True, text=True,
                          env=ENV, timeout=timeout)


class BenchSmoke(unittest.TestCase):
    def test_boot_json(self):
        p = run("--bench", "boot", "--bench-time", "0.05", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        lf = [r for r in d["rows"] if r["livefish"]]
        rows = [r for r in d["rows"] if not r["livefish"]]
        self.check_livefish(lf)
        gens = {r["gen"] for r in rows}
        self.assertEqual(gens, {"bf1", "bf2", "bf3"})
        self.assertEqual(len(rows) % 2, 0)
        for r in rows:
            for f in FIELDS:
                self.assertIn(f, r)
            self.assertEqual(r["rc"], 0, r)
            self.assertGreater(r["bytes"], 0, r)
            self.assertGreater(r["mib_s"], 0, r)
            self.assertGreaterEqual(r["cpu_us_per_mib"], 0, r)
            # every byte is one posted write per 8 bytes
            self.assertAlmostEqual(r["writes_per_mib"], 131072, delta=200)
            credit = CREDIT[r["gen"]] if r["policy"] == "rshim-pmd" else 509
            floor = 131072 / credit
            if r["gen"] == "bf1":  # plus the reads BF1's drain rule needs
                floor *= 1 + (credit - 1) // 15
            self.assertGreaterEqual(r["reads_per_mib"], floor * 0.99, r)
            # rshim-pmd issues BF1's drain reads itself (hardware-notes §1.9);
            # the reference daemon does not: the emulator adds them
            if r["policy"] == "rshim-pmd":
                self.assertEqual(r["forced_reads_per_mib"], 0, r)
            elif r["gen"] == "bf1" and r["drain_bps"] == 0:  # full credits
                self.assertGreater(r["forced_reads_per_mib"], 8000, r)
        cost = [r for r in rows if r["cost_model"]]
        self.assertGreater(len(cost), len(rows) // 2)
        for pmd, ref in zip(rows[0::2], rows[1::2]):
            self.assertEqual((pmd["policy"], ref["policy"]), ("rshim-pmd", "reference"))
            self.assertEqual((pmd["gen"], pmd["drain_bps"]), (ref["gen"], ref["drain_bps"]))
            if pmd["drain_bps"] == 20e6 and pmd["gen"] != "bf1":
                self.assertLess(pmd["reads_per_mib"], ref["reads_per_mib"], (pmd, ref))

    def check_livefish(self, rows):
        """Livefish rows: per generation rshim-pmd then the reference; config
        cycles at the gateway's floor (rshim-pmd), fewer than the reference's
        on BF1 and BF3 (its sequence takes and frees the lock per access)."""
        self.assertEqual([(r["gen"], r["policy"]) for r in rows],
                         [(g, p) for g in ("bf1", "bf2", "bf3")
                          for p in ("rshim-pmd", "reference")])
        for pmd, ref in zip(rows[0::2], rows[1::2]):
            for r in (pmd, ref):
                self.assertEqual(r["rc"], 0, r)
                self.assertGreater(r["bytes"], 0, r)
                self.assertTrue(r["cost_model"], r)
            cyc = pmd["reads_per_mib"] + pmd["writes_per_mib"]
            floor = pmd["cfg_floor_per_mib"]
            self.assertGreater(floor, 0, pmd)
            self.assertLess(abs(cyc / floor - 1), 0.02, pmd)
            ref_cyc = ref["reads_per_mib"] + ref["writes_per_mib"]
            if pmd["gen"] == "bf2":  # the reference is at the floor there
                self.assertLess(abs(ref_cyc / floor - 1), 0.02, ref)
            else:
                self.assertGreater(ref_cyc, 2 * cyc, (pmd, ref))
                self.assertGreater(pmd["mib_s"], 2 * ref["mib_s"], (pmd, ref))

    def test_boot_text_livefish(self):
        p = run("--bench", "boot", "--bench-time", "0.05")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("boot FIFO push through livefish", p.stdout)
        self.assertIn("floor/MiB", p.stdout)
        self.assertIn("faster than the reference's sequence", p.stdout)
        self.assertNotIn("failed", p.stdout)

    def test_install_text(self):
        p = run("--bench", "install", "--bench-time", "0.1")
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        for word in ("install profile", "rshim-pmd", "reference", "time s", "CPU s",
                     "reads", "wakeups", "rshim-pmd / reference"):
            self.assertIn(word, out)
        pmd = [l for l in out.splitlines() if l.startswith("rshim-pmd ")][0].split()
        ref = [l for l in out.splitlines() if l.startswith("reference ")][0].split()
        self.assertGreater(float(pmd[1]), 0)
        self.assertGreater(float(ref[1]), 0)
        self.assertNotIn("failed", out)

    def reads_per_mib(self, p):
        m = re.search(r"MMIO per MiB: ([0-9.]+) reads", p.stdout)
        self.assertIsNotNone(m, p.stdout + p.stderr)
        return float(m.group(1))

    def test_bf3_depth(self):
        """BF3 pushes assume 1024 words (one status read per 1021 words);
        --boot-fifo-words 512 is the fallback that a 512-word FIFO needs."""
        p = run("--device", "sim:bf3", "--push-boot", DEMO, "--log-wait", "5")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(self.reads_per_mib(p), 131072 / 1021 * 1.05)
        shallow = "sim:bf3,bootdepth=512,drain=200M"
        p = run("--device", shallow, "--boot-fifo-words", "512", "--push-boot", DEMO,
                "--log-wait", "5")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(self.reads_per_mib(p), 131072 / 509 * 0.99)
        p = run("--device", shallow, "--push-boot", DEMO, "--log-wait", "5")
        self.assertEqual(p.returncode, 7, p.stdout + p.stderr)  # words dropped: bad CRC
        self.assertIn("CRC", p.stdout)
        p = run("--device", "sim:bf3", "--boot-fifo-words", "600", "--push-boot", DEMO)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--boot-fifo-words", p.stderr)

    def test_boot_one_device(self):
        """--bench boot --device sim:...: both policies on that device, its
        own costs applied; other modes and devices refused with one line."""
        rows = {}
        for rd in (1000, 20000):
            dev = "sim:bf3,peer=none,cost=1,rd_ns=%d,wr_ns=100,drain=20M" % rd
            p = run("--bench", "boot", "--device", dev, "--bench-size", "1M",
                    "--bench-time", "0.05", "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            r = json.loads(p.stdout)["rows"]
            self.assertEqual([x["policy"] for x in r], ["rshim-pmd", "reference"])
            for x in r:
                self.assertEqual((x["gen"], x["rc"], x["cost_model"]), ("bf3", 0, True), x)
                self.assertAlmostEqual(x["writes_per_mib"], 131072, delta=200)
            self.assertGreater(r[1]["reads_per_mib"], r[0]["reads_per_mib"], r)
            rows[rd] = r
        # the device's own read cost is applied: at 20 us a status read
        # the 20 MB/s drain frees 50 words, so the reference, which reads
        # the count whenever its known-free words are used up, reads far less
        self.assertLess(rows[20000][1]["reads_per_mib"],
                        rows[1000][1]["reads_per_mib"] / 4, rows)
        for args in (("--bench", "tmfifo", "--device", "sim:bf3"),
                     ("--bench", "boot", "--device", "0000:03:00.2")):
            p = run(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("--bench boot --device sim:bfN", p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_boot_write_ns(self):
        """--bench-write-ns: the reference model pays a kernel round trip
        per write() on the boot node; with a drain-limited DPU its short
        writes come further apart, so it reads the count far less; refused
        without --bench boot."""
        reads = {}
        for ns in (0, 1000000):
            p = run("--bench", "boot", "--device", "sim:bf3,peer=none,cost=1,drain=2M",
                    "--bench-size", "1M", "--bench-time", "0.3", "--bench-write-ns", str(ns),
                    "--json")
            self.assertEqual(p.returncode, 0, p.stderr)
            r = json.loads(p.stdout)["rows"]
            self.assertEqual(r[1]["policy"], "reference")
            reads[ns] = (r[0]["reads_per_mib"], r[1]["reads_per_mib"])
        self.assertLess(reads[1000000][1], reads[0][1] / 4, reads)
        p = run("--bench", "tmfifo", "--bench-write-ns", "1000")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--bench-write-ns goes with --bench boot", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_load_rows(self):
        """--load: every busy-host row, competitors measured, the poll
        lcore raised only where the policy says so (root), no failed
        row; --load needs --bench boot."""
        p = run("--bench", "boot", "--load", "1", "--bench-time", "0.05", "--json",
                timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        d = json.loads(p.stdout)
        self.assertEqual((d["bench"], d["load"], d["nice"]), ("boot-load", 1, 0))
        rows = d["rows"]
        pols = ("rshim-pmd", "pmd no-rt", "pmd busy", "reference")
        self.assertEqual(len(rows), 2 * 3 * 2 * len(pols))
        self.assertEqual({(r["gen"], r["drain_bps"], r["cost_model"]) for r in rows},
                         {(g, d_, c) for g in ("bf2", "bf3") for d_ in (2e6, 20e6, 50e6)
                          for c in (True, False)})
        for r in rows:
            self.assertIn(r["policy"], pols)
            self.assertEqual(r["rc"], 0, r)
            self.assertGreater(r["bytes"], 0, r)
            self.assertGreater(r["mib_s"], 0, r)
            self.assertLessEqual(r["pct_of_drain"], 102, r)  # the DPU's own clock
            # a row of a few ms may pass before a competitor runs at all
            self.assertGreaterEqual(r["competitor_work_pct"], 0, r)
            self.assertLessEqual(r["late_p50_ns"], r["late_p99_ns"], r)
            self.assertLessEqual(r["late_p99_ns"], r["late_max_ns"], r)
            self.assertGreaterEqual(r["empty_s"], 0, r)
            raised = r["policy"] == "rshim-pmd" and os.geteuid() == 0
            self.assertEqual(r["rt_raises"] > 0, raised, r)
            if r["policy"] in ("rshim-pmd", "pmd no-rt"):
                self.assertGreater(r["sleeps"], 0, r)  # it paces with timed sleeps
            if r["policy"] == "pmd busy":
                self.assertEqual(r["sleeps"], 0, r)
        # the competitors ran and were measured
        self.assertGreater(max(r["competitor_work_pct"] for r in rows), 0, rows)
        p = run("--bench", "tmfifo", "--load", "2")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--load goes with --bench boot", p.stderr)

    def test_ctrl_c_exits_130(self):
        proc = subprocess.Popen([APP, "--quiet", "--bench", "boot", "--bench-time", "5"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=ENV)
        # Until the EAL is up and a row runs (its lcore threads exist).
        end = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < end and \
                len(os.listdir("/proc/%d/task" % proc.pid)) < 3:
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        # The whole bench takes minutes at --bench-time 5: ending within
        # the timeout is ending at once.
        out, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assertNotIn("MiB/s", out)
        self.assertIn("interrupted", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
