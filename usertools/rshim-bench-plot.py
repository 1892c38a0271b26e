#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot `rshim-pmd-app --bench boot --json` results as a PNG with gnuplot.

    rshim-pmd-app --bench boot --json > boot.json
    usertools/rshim-bench-plot.py boot.json doc/img/bench-boot.png
    usertools/rshim-bench-plot.py --table boot1.json boot2.json boot3.json
    usertools/rshim-bench-plot.py --table install1.json install2.json ...

Several JSON files (runs of the same benchmark) are reduced to the median
of each row. Three panels per generation against the drain rate: the share
of the limit reached (drain rate or the one-core MMIO ceiling), status
reads per MiB and host CPU microseconds per MiB (log scales), for both
policies. Needs gnuplot (Debian: gnuplot-nox); not used by the tests.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

GENS = ("bf1", "bf2", "bf3")
POLS = ("rshim-pmd", "reference")
PANELS = (("pct_of_limit", "% of limit (drain or MMIO ceiling)", False),
          ("reads_per_mib", "status reads per MiB", True),
          ("cpu_us_per_mib", "host CPU us per MiB", True))


def load(paths):
    """Rows keyed by (gen, drain, policy), cost-model rows only, medians."""
    acc = {}
    for p in paths:
        with open(p) as f:
            for r in json.load(f)["rows"]:
                # livefish rows (config-space gateway) have a table of their own
                if not r["cost_model"] or r["rc"] != 0 or r.get("livefish"):
                    continue
                acc.setdefault((r["gen"], r["drain_bps"], r["policy"]), []).append(r)
    return {k: {f: statistics.median(x[f] for x in v) for f, _, _ in PANELS}
            for k, v in acc.items()}


def write_data(rows, tmp):
    """One data file per generation and policy: drain (MB/s, 1000 = unlimited)."""
    files = {}
    for g in GENS:
        for pol in POLS:
            pts = sorted((d / 1e6 if d > 0 else 1000.0, v)
                         for (gg, d, pp), v in rows.items() if gg == g and pp == pol)
            path = os.path.join(tmp, f"{g}-{pol}.dat")
            with open(path, "w") as f:
                for x, v in pts:
                    f.write(f"{x} " + " ".join(str(v[k]) for k, _, _ in PANELS) + "\n")
            files[(g, pol)] = path
    return files


def script(files, out):
    """The gnuplot program: 3 x 3 panels."""
    s = [f'set terminal pngcairo size 1500,1000 font ",10"', f'set output "{out}"',
         "set multiplot layout 3,3 title "
         '"boot FIFO push, MMIO cost model on (read 1 us, posted write 100 ns); '
         'x: drain rate MB/s, 1000 = unlimited"',
         "set logscale x", "set grid", "set key bottom right"]
    for col, (key, label, log) in enumerate(PANELS, start=2):
        for g in GENS:
            s.append("set logscale y" if log else "unset logscale y")
            s.append("set key top right" if log else "set key bottom right")
            s.append('set yrange [0:110]' if not log else "set autoscale y")
            s.append(f'set title "{g}: {label}"')
            s.append("plot " + ", ".join(
                f'"{files[(g, p)]}" using 1:{col} with linespoints title "{p}"' for p in POLS))
    s.append("unset multiplot")
    return "\n".join(s) + "\n"


def med(rows, f):
    return statistics.median(r[f] for r in rows)


def table(paths):
    """The median of each row over the runs, as the bench prints it."""
    runs = []
    for p in paths:
        with open(p) as f:
            runs.append(json.load(f))
    if runs[0]["bench"] == "install":
        n = runs[0]["scale"]
        print(f"install profile, sim:bf3,profile=install/{n},cost=1; medians of {len(runs)} runs")
        print(f"{'':10} {'time s':>8} {'CPU s':>8} {'reads':>9} {'wakeups':>8}"
              f" {'x N: s':>8} {'CPU s':>8}")
        for i in range(len(runs[0]["rows"])):
            rows = [r["rows"][i] for r in runs]
            print(f"{rows[0]['policy']:10} {med(rows, 'time_s'):8.2f} {med(rows, 'cpu_s'):8.3f}"
                  f" {med(rows, 'reads'):9.0f} {med(rows, 'wakeups'):8.0f}"
                  f" {med(rows, 'full_time_s'):8.1f} {med(rows, 'full_cpu_s'):8.2f}")
        return 0
    print(f"boot FIFO push, MMIO cost model on (read {runs[0]['rd_ns']} ns, posted write"
          f" {runs[0]['wr_ns']} ns); medians of {len(runs)} runs")
    print(f"{'gen':4} {'drain':10} {'policy':10} {'MiB/s':>8} {'of limit':>9} {'reads/MiB':>10}"
          f" {'CPU-us/MiB':>11} {'wakeups/MiB':>11}")
    for i in range(len(runs[0]["rows"])):
        rows = [r["rows"][i] for r in runs]
        r0 = rows[0]
        drain = f"{r0['drain_bps'] / 1e6:g} MB/s" if r0["drain_bps"] else "unlimited"
        lim = f"{med(rows, 'pct_of_limit'):.1f}%" if r0["cost_model"] else "-"
        note = "" if r0["cost_model"] else "  emulator CPU, not hardware"
        print(f"{r0['gen']:4} {drain:10} {r0['policy']:10} {med(rows, 'mib_s'):8.1f} {lim:>9}"
              f" {med(rows, 'reads_per_mib'):10.1f} {med(rows, 'cpu_us_per_mib'):11.0f}"
              f" {med(rows, 'wakeups_per_mib'):11.1f}{note}")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "--table":
        return table(argv[2:])
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: rshim-bench-plot.py RUN.json [RUN.json ...] OUT.png", file=sys.stderr)
        return 2
    if shutil.which("gnuplot") is None:
        print("rshim-bench-plot: gnuplot not found (apt-get install gnuplot-nox)", file=sys.stderr)
        return 1
    rows = load(argv[1:-1])
    if not rows:
        print("rshim-bench-plot: no cost-model rows in the input", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        prog = script(write_data(rows, tmp), argv[-1])
        subprocess.run(["gnuplot"], input=prog, text=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
