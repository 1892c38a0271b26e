#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Trap and emulate, NVIDIA's rshim daemon against rshim-pmd, and the model.

  RSHIM_US_DIR=/path/to/rshim-user-space bench_nvidia.py BUILD_DIR [ROUNDS]
  bench_nvidia.py BUILD_DIR --analyze BUILD_DIR/bench-nvidia-guest.txt

(NVIDIA's daemon is built from that tree into BUILD_DIR by
build_nvidia.py, once.)

One guest (usertools/rshim-vm), three emulated BlueField-3s behind
rshim-sim-pci (drain unlimited, 200 KB/s, 50 KB/s), both daemons
alternating on the same functions through vfio-pci (tests/vm/
bench_nvidia.sh). Per push (`cat x.bfb > /dev/rshimN/boot`, 256 KiB of
images): MiB/s over the DPU's own clock (first to last word the emulated
boot ROM took), the daemon's open (its reset to its first boot FIFO
word), MMIO reads and writes per MiB counted by rshim-sim-pci from the
first to the last boot FIFO word, the daemon's and cat's CPU per MiB and
the daemon's voluntary context switches (wake-ups) per MiB over the
whole `cat`. Then the console and
network: idle CPU with the console open and tmfifo_net0 up, ping RTT, and
the DPU's first packet after 5 s of quiet. Then, on the host, the
benchmark's models (rshim-pmd-app --bench boot --device ...) on the same
emulated device at the trap costs measured in the guest (and, for the
reference model, the cost of one write() on NVIDIA's boot node), beside
what each daemon did: MiB/s and MMIO per MiB (the model's CPU and
wake-ups cover its stream only, not an open, and are not compared). Medians over ROUNDS. Not silicon figures: every register
access is a trap to QEMU and a round trip to the emulator.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import build_nvidia
from bench_vm import make_bfb

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
DRAINS = [(0, "unlimited"), (200000, "200 KB/s"), (50000, "50 KB/s")]
KV = re.compile(r"(\w+)=([\d.]+)")


def kv(text):
    return {k: float(v) for k, v in KV.findall(text)}


def first_packet(peer, share, stop):
    """On each request from the guest: 5 s of quiet, then one ping from
    the DPU's namespace; its round trip goes back in first.done."""
    req, done = os.path.join(share, "first.req"), os.path.join(share, "first.done")
    while not stop.is_set():
        if not os.path.exists(req):
            time.sleep(0.1)
            continue
        os.unlink(req)
        time.sleep(5)
        p = subprocess.run(["ip", "netns", "exec", "rshim-sim%d" % peer, "ping", "-c", "1",
                            "-W", "5", "192.168.100.1"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        m = re.search(r"time=([\d.]+) ms", p.stdout)
        with open(done + ".tmp", "w") as f:
            f.write("rtt_ms=%s\n" % (m.group(1) if m else "lost"))
        os.rename(done + ".tmp", done)


def guest(share, bfb, rounds, peer, nv):
    env = dict(os.environ, SVC=os.path.join(BUILD, "app", "rshim-pmd", "rshim-pmd"),
               NVIDIA_RSHIM=nv,
               RSH_MMIO_RTT=os.path.join(BUILD, "tests", "vm", "tools", "rsh-mmio-rtt"),
               SRC=SRC, SHARE=share, PEER=str(peer), BFB=bfb, ROUNDS=str(rounds))
    sims = ["sim:bf3,peer=%d" % peer, "sim:bf3,peer=none,drain=200K",
            "sim:bf3,peer=none,drain=50K"]
    cmd = ["nice", "-n", "-10", sys.executable, os.path.join(SRC, "usertools", "rshim-vm"),
           "--share", share, "--timeout", "1500",
           "--sim-pci", os.path.join(BUILD, "drivers", "sim", "pci", "rshim-sim-pci")]
    for s in sims:
        cmd += ["--sim", s]
    cmd += ["--", "/bin/bash", os.path.join(HERE, "bench_nvidia.sh")]
    stop = threading.Event()
    t = threading.Thread(target=first_packet, args=(peer, share, stop), daemon=True)
    t.start()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, universal_newlines=True)
    stop.set()
    if p.returncode != 0 or "bench done" not in p.stdout or "FAIL" in p.stdout:
        sys.exit("bench_nvidia: the guest run failed (exit %d):\n%s" % (p.returncode, p.stdout))
    return p.stdout


def push_figures(line, size):
    """One PUSH line -> the row's figures. MMIO per MiB over the push
    window rshim-sim-pci saw (first to last BOOT_FIFO_DATA write: the
    stream without the daemon's open and close); CPU and wake-ups over the
    whole `cat` (open and close included)."""
    parts = line.split("|")
    c, p0, p1, b, a = (kv(x) for x in parts[:5])
    mib = size / 1048576
    win_mib = (a["host_boot_words"] - b["host_boot_words"]) * 8 / 1048576
    dpu_s = (a["boot_last_ns"] - a["boot_first_ns"]) / 1e9
    win_s = a["push_ns"] / 1e9
    return {
        "mib_s": a["consumed_bytes"] / 1048576 / dpu_s,
        "open_s": a["push_open_ns"] / 1e9,
        "status": a["push_count_reads"] / win_mib,
        "other_s": (a["push_reads"] - a["push_count_reads"]) / win_s,
        "writes": a["push_writes"] / win_mib,
        "access_ns": a["push_ns"] / (a["push_reads"] + a["push_writes"]),
        "cpu_us": ((p1["ticks"] - p0["ticks"]) / CLK_TCK + c["user"] + c["sys"]) * 1e6 / mib,
        "wakeups": (p1["vcsw"] - p0["vcsw"]) / mib,
        "wall": c["wall"],
    }


def model(rd, wr, write_ns, drain):
    """The benchmark's two policies on the same emulated device; the
    reference model pays write_ns per write() on the boot node."""
    dev = "sim:bf3,peer=none,cost=1,rd_ns=%d,wr_ns=%d" % (rd, wr)
    if drain:
        dev += ",drain=%d" % drain
    p = subprocess.run([os.path.join(BUILD, "app", "rshim-pmd-app", "rshim-pmd-app"),
                        "--quiet", "--bench", "boot", "--device", dev, "--bench-size", "1M",
                        "--bench-time", "8", "--bench-write-ns", str(int(write_ns)), "--json"],
                       stdout=subprocess.PIPE,
                       universal_newlines=True, env=dict(os.environ, RSHIM_PMD_NO_HUGE="1"))
    rows = json.loads(p.stdout)["rows"]
    return {r["policy"]: {"mib_s": r["mib_s"], "status": r["status_reads_per_mib"],
                          "other_s": (r["reads_per_mib"] - r["status_reads_per_mib"]) *
                          r["mib_s"],
                          "writes": r["writes_per_mib"]} for r in rows}


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def main():
    nv = None
    try:
        if not ANALYZE:
            nv, why = build_nvidia.nvidia_rshim(BUILD)
    except build_nvidia.BuildError as e:
        sys.exit("bench_nvidia: %s" % e)
    if nv is None and not ANALYZE:
        sys.exit("bench_nvidia: %s" % why)
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    share = tempfile.mkdtemp(prefix="rshim-vm-nvbench-")
    os.chmod(share, 0o755)
    bfb = os.path.join(share, "b.bfb")
    make_bfb(BUILD, bfb, "224K")  # 256 KiB of images
    size = os.path.getsize(bfb)
    peer = 4000 + os.getpid() % 900
    if ANALYZE:
        with open(ANALYZE) as f:
            text = f.read()
        rounds = len([l for l in text.splitlines() if l.startswith("WTRIP daemon=nvidia ")])
    else:
        text = guest(share, bfb, rounds, peer, nv)
        saved = os.path.join(BUILD, "bench-nvidia-guest.txt")
        with open(saved, "w") as f:
            f.write(text)
        print("(the guest's lines: %s; --analyze it to rerun the models only)" % saved)
    rtts = [kv(m) for m in re.findall(r"read_ns=\d+ write_ns=\d+ fifo_write_ns=\d+", text)]
    rd = int(statistics.median(x["read_ns"] for x in rtts))
    wr = int(statistics.median(x["fifo_write_ns"] for x in rtts))
    trips = {d: statistics.median(kv(l)["ns"] for l in text.splitlines()
                                  if l.startswith("WTRIP daemon=%s " % d))
             for d in ("nvidia", "pmd")}
    pushes = {(d, fn): [push_figures(l.split(" ", 4)[4], size) for l in text.splitlines()
                        if l.startswith("PUSH daemon=%s " % d) and " fn=%d " % fn in l]
              for d in ("nvidia", "pmd") for fn in range(len(DRAINS))}
    # the trap cost each daemon's own unlimited push met (every access
    # of it a trap): the models' access cost for that daemon
    cost = {d: statistics.median(r["access_ns"] for r in pushes[(d, 0)])
            for d in ("nvidia", "pmd")}
    write_ns = max(0, trips["nvidia"] - 2 * cost["nvidia"])
    print("trap and emulate: NVIDIA rshim 2.8.2 vs rshim-pmd, QEMU TCG guest, vfio-pci, "
          "emulated BlueField-3 (rshim-sim-pci); medians of %d rounds; not silicon figures" % rounds)
    print("MMIO round trip (rsh-mmio-rtt): read %.1f us, boot FIFO write %.1f us; per access "
          "in the unlimited pushes: NVIDIA %.1f us, rshim-pmd %.1f us (the models' cost); one "
          "8-byte write() on the boot node: NVIDIA %.0f us (kernel round trip %.0f us after its "
          "read and write: the reference model's write cost), rshim-pmd %.0f us" % (
              rd / 1000, wr / 1000, cost["nvidia"] / 1000, cost["pmd"] / 1000,
              trips["nvidia"] / 1000, write_ns / 1000, trips["pmd"] / 1000))
    print("push: %d bytes by `cat x.bfb > boot`; MiB/s on the DPU's clock; open = the "
          "daemon's reset to its first boot FIFO word; MMIO counted by rshim-sim-pci from the "
          "first to the last boot FIFO word: BOOT_FIFO_COUNT reads per MiB (the push's), other "
          "reads per second (housekeeping), writes per MiB; CPU (daemon + cat) and wake-ups "
          "(the daemon's voluntary context switches) per MiB over the whole cat, open "
          "included" % size)
    keys = ("mib_s", "status", "other_s", "writes")
    print("%-10s %-22s %9s %8s %11s %9s %11s %12s %11s" % (
        "drain", "driver", "MiB/s", "open s", "status/MiB", "other/s", "writes/MiB",
        "CPU-us/MiB", "wakeups/MiB"))
    worst = {}
    for fn, (drain, dname) in enumerate(DRAINS):
        for d, label, pol in (("nvidia", "NVIDIA rshim 2.8.2", "reference"),
                              ("pmd", "rshim-pmd", "rshim-pmd")):
            m = model(cost[d], cost[d], write_ns, drain)
            rows = pushes[(d, fn)]
            meas = {k: med(rows, k) for k in keys + ("open_s", "cpu_us", "wakeups")}
            print("%-10s %-22s %9.3f %8.2f %11.1f %9.1f %11.1f %12.0f %11.1f" % (
                dname, label, meas["mib_s"], meas["open_s"], meas["status"], meas["other_s"],
                meas["writes"], meas["cpu_us"], meas["wakeups"]))
            mm = m[pol]
            print("%-10s %-22s %9.3f %8s %11.1f %9.1f %11.1f" % (
                "", "  model (%s)" % pol, mm["mib_s"], "", mm["status"], mm["other_s"],
                mm["writes"]))
            errs = {k: (mm[k] - meas[k]) / meas[k] * 100 if meas[k] else 0.0 for k in keys}
            print("%-10s %-22s %+8.1f%% %8s %+10.1f%% %+8.1f%% %+10.1f%%" % (
                "", "  model error", errs["mib_s"], "", errs["status"], errs["other_s"],
                errs["writes"]))
            for k, e in errs.items():
                if fn > 0 or k != "mib_s":  # unlimited MiB/s is the calibration
                    worst[(label, k)] = max(worst.get((label, k), 0.0), abs(e))
    print("\nconsole and network (function 0): medians of %d rounds" % rounds)
    for d, label in (("nvidia", "NVIDIA rshim 2.8.2"), ("pmd", "rshim-pmd")):
        idle, idle_reads = [], []
        for l in text.splitlines():
            if l.startswith("IDLE daemon=%s " % d):
                parts = l.split("|")
                secs = kv(parts[0])["secs"]
                idle.append((kv(parts[2])["ticks"] - kv(parts[1])["ticks"]) / CLK_TCK / secs * 100)
                idle_reads.append((kv(parts[4])["mmio_reads"] - kv(parts[3])["mmio_reads"]) / secs)
        avg = [float(re.search(r"= ([\d.]+)/([\d.]+)/", l).group(2))
               for l in text.splitlines() if l.startswith("PING daemon=%s " % d)]
        first = [float(x) for x in re.findall(r"FIRST daemon=%s round=\d+ rtt_ms=([\d.]+)" % d, text)]
        print("%-22s idle CPU %5.1f %% and %6.0f MMIO reads/s (console open, tmfifo_net0 up); "
              "ping RTT avg %6.2f ms; DPU's first packet after 5 s idle: RTT %6.2f ms" % (
                  label, statistics.median(idle), statistics.median(idle_reads),
                  statistics.median(avg),
                  statistics.median(first) if first else float("nan")))
    print("\nlargest model error per figure (unlimited MiB/s left out: it sets the cost): " + ", ".join(
        "%s %s %.1f %%" % (l, k, e) for (l, k), e in sorted(worst.items())))
    return 0


if __name__ == "__main__":
    ANALYZE = None
    if "--analyze" in sys.argv:
        i = sys.argv.index("--analyze")
        ANALYZE = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    BUILD = os.path.abspath(sys.argv[1])
    CLK_TCK = os.sysconf("SC_CLK_TCK")
    sys.exit(main())
