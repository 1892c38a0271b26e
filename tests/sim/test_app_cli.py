#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""rshim-pmd-app as scripts use it, on the emulator: values refused by the
shared parser, repeated options and conflicting modes, missing values,
closed standard descriptors, a closed stdout pipe, the push from pipes,
FIFOs and stdin, --config/--rootfs, a file shrinking under the push, the
completion wait (exit 10 and 130), --json documents, merged EAL options and
--quiet.
"""

import fcntl
import json
import os
import re
import signal
import struct
import subprocess
import tempfile
import termios
import time
import unittest

APP = os.environ.get("RSHIM_PMD_APP", "rshim-pmd-app")
DEMO = os.environ.get("RSHIM_PMD_DEMO", "demo.bfb")
# A stream larger than the push's chunk pool (4 MiB), where a case needs one.
BIG = os.environ.get("RSHIM_PMD_DEMO_BIG", DEMO)
ENV = dict(os.environ, RSHIM_PMD_NO_HUGE="1")
MAGIC = 0x13026642
OPENAT_NR = {"x86_64": 257, "aarch64": 56}.get(os.uname().machine, 257)


def run(*args, rc=None, timeout=120, **kw):
    if "input" not in kw:
        kw["stdin"] = subprocess.DEVNULL
    p = subprocess.run([APP] + list(args), capture_output=True, env=ENV,
                       timeout=timeout, **kw)
    p.out = p.stdout.decode(errors="replace")
    p.err = p.stderr.decode(errors="replace")
    if rc is not None and p.returncode != rc:
        raise AssertionError("exit %d, expected %d\nstdout: %s\nstderr: %s"
                             % (p.returncode, rc, p.out, p.err))
    return p


def image_offsets(data):
    """(offset, id, following) of every image of a BFB."""
    off, res = 0, []
    while off + 24 <= len(data):
        w0, w1, w2 = struct.unpack_from("<QQQ", data, off)
        if w0 & 0xFFFFFFFF != MAGIC:
            break
        res.append((off, w0 >> 56, w2))
        ln = w1 & 0xFFFFFFFF
        off += 24 + ln + (-ln % 8)
    return res


def padded(n):
    return n + (-n % 8)


def wait_for(pred, timeout=60.0):
    """Poll pred() until it holds or the deadline; its last value."""
    end = time.monotonic() + timeout
    while not pred() and time.monotonic() < end:
        time.sleep(0.01)
    return pred()


def blocked_opening(pid, path):
    """True while process pid's main thread sits in openat(2) (no fd on
    path yet): a FIFO's open waits there for a writer."""
    try:
        with open("/proc/%d/syscall" % pid) as f:
            nr = f.read().split()[0]
        fds = [os.readlink("/proc/%d/fd/%s" % (pid, fd)) for fd in os.listdir("/proc/%d/fd" % pid)]
    except (OSError, IndexError):
        return False
    return nr == str(OPENAT_NR) and path not in fds


def unread(f):
    """Bytes written to a pipe that its reader has not taken yet."""
    return struct.unpack("i", fcntl.ioctl(f, termios.FIONREAD, b"\0" * 4))[0]


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="rsh-app-cli-")
        with open(DEMO, "rb") as f:
            self.demo = f.read()

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.tmp])

    def path(self, name, data=None):
        p = os.path.join(self.tmp, name)
        if data is not None:
            with open(p, "wb") as f:
                f.write(data)
        return p

    def one_line(self, p, *words):
        lines = [ln for ln in p.err.splitlines() if ln.strip()]
        self.assertEqual(len(lines), 1, p.err)
        for w in words:
            self.assertIn(w, lines[0])


class Cli(Base):
    """What a script meets; every case pushes the small BFB at most."""

    # --- the command line -------------------------------------------------

    def test_float_values_refused(self):
        for opt in ("--timeout", "--log-wait", "--linger", "--bench-time",
                    "--reset-delay", "--max-sleep"):
            for val in ("nan", "inf", "-inf", "1e300", "-1", "0x10", "1s2"):
                p = run("--device", "sim:bf3", "--push-boot", DEMO, opt, val, rc=2)
                self.one_line(p, val, opt)
        for opt, val in (("--timeout", "0.0001"), ("--max-sleep", "0"),
                         ("--bench-time", "2h"), ("--net-index", "100"),
                         ("--bench-size", "1K")):
            p = run("--device", "sim:bf3", "--push-boot", DEMO, opt, val, rc=2)
            self.one_line(p, "out of range", opt)

    def test_repeated_and_conflicting(self):
        p = run("--device", "sim:bf3", "--device", "sim:bf2", "--push-boot", DEMO, rc=2)
        self.one_line(p, "--device given twice")
        p = run("--device", "sim:bf3", "--push-boot", DEMO, "--push-boot", DEMO, rc=2)
        self.one_line(p, "--push-boot given twice")
        for modes in (("--list", "--bench", "boot"), ("--push-boot", DEMO, "--bench", "boot"),
                      ("--doctor", "--list"), ("--console", "--bench", "tmfifo")):
            p = run(*modes, rc=2)
            self.one_line(p, "cannot be combined")
        p = run("--device", "sim:bf3", "--push-boot", "-", "--console", rc=2)
        self.one_line(p, "both read stdin")
        p = run("--device", "sim:bf3", "--push-boot", DEMO, "--console", "--json", rc=2)
        self.one_line(p, "--json and --console cannot be combined")
        self.assertEqual(p.out, "")
        p = run("--config", DEMO, "--list", rc=2)
        self.one_line(p, "--config needs --push-boot")

    def test_missing_value(self):
        for opt in ("--device", "--push-boot", "--timeout", "--config"):
            p = run("--list", opt, rc=2)
            self.one_line(p, "option %s needs a value" % opt)
            self.assertNotIn("unknown option", p.err)

    def test_help_complete(self):
        out = run("--help", rc=0).out
        for word in ("--doctor", "--json", "--config", "--rootfs", "Exit codes",
                     "10 the boot did not complete", "pmd.rshim", "--log-wait"):
            self.assertIn(word, out)

    # --- descriptors and signals -------------------------------------------

    def test_closed_std_fds(self):
        """fds 0-2 closed: reopened on /dev/null, the run still succeeds."""
        p = subprocess.run(
            ["sh", "-c", 'exec "$0" --list --sim --json <&- >&- 2>&-', APP],
            env=ENV, timeout=60)
        self.assertEqual(p.returncode, 0)

    def test_stdout_pipe_closed(self):
        """A closed reader gives one line and exit 1, not a SIGPIPE death."""
        r, w = os.pipe()
        os.close(r)
        p = subprocess.run([APP, "--list", "--sim"], stdout=w,
                           stderr=subprocess.PIPE, env=ENV, timeout=60)
        os.close(w)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"cannot write the output: Broken pipe", p.stderr)

    # --- inputs ------------------------------------------------------------

    def test_stdin_pipe(self):
        for src in ("-", "/dev/stdin"):
            p = run("--device", "sim:bf2", "--push-boot", src, "--quiet",
                    input=self.demo, rc=0)
            self.assertIn("pushed %d bytes" % padded(len(self.demo)), p.out)
            self.assertIn("DPU is ready", p.out)

    def test_fifo(self):
        fifo = self.path("boot.fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([APP, "--device", "sim:bf3", "--push-boot", fifo, "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             stdin=subprocess.DEVNULL)
        with open(fifo, "wb") as f:
            f.write(self.demo)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn(b"DPU is ready", out)

    def test_fifo_without_writer_ctrl_c(self):
        fifo = self.path("idle.fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([APP, "--device", "sim:bf3", "--push-boot", fifo],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             stdin=subprocess.DEVNULL)
        # Until it blocks opening the FIFO (no writer yet).
        self.assertTrue(wait_for(lambda: blocked_opening(p.pid, fifo)), "never opened the FIFO")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        self.assertNotIn(b"pushed", out)

    def test_process_substitution(self):
        p = subprocess.run(["bash", "-c", '"$0" --device sim:bf3 --quiet --push-boot <(cat "$1")',
                            APP, DEMO], capture_output=True, env=ENV,
                           stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(b"DPU is ready", p.stdout)

    def test_fifo_writer_stalls_ctrl_c(self):
        """Ctrl-C while a FIFO's writer stalls mid-stream: 130, state restored."""
        fifo = self.path("stall.fifo")
        os.mkfifo(fifo)
        p = subprocess.Popen([APP, "--device", "sim:bf3", "--push-boot", fifo, "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                             stdin=subprocess.DEVNULL)
        with open(BIG, "rb") as f:
            head = f.read(3 << 20)  # past the 1 MiB read ahead before the reset
        w = open(fifo, "wb")
        w.write(head)
        w.flush()
        # Until the app took everything written and waits for more.
        self.assertTrue(wait_for(lambda: unread(w) == 0), "the app never read the FIFO")
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        w.close()
        self.assertEqual(p.returncode, 130, err)
        self.assertIn(b"BOOT_CONTROL restored", err)
        self.assertNotIn(b"DPU is ready", out)

    def test_pipe_garbage_refused_before_reset(self):
        p = run("--device", "sim:bf3", "--push-boot", "-", "--quiet",
                input=os.urandom(100000), rc=3)
        self.one_line(p, "stdin", "not a BFB", "nothing pushed")
        p = run("--device", "sim:bf3", "--push-boot", "-", "--quiet",
                input=b"", rc=3)
        self.one_line(p, "stdin", "empty")

    def test_pipe_corrupt_late(self):
        """A CRC error past the first MiB of a pipe stops the push: exit 3."""
        with open(BIG, "rb") as f:
            big = f.read()
        imgs = image_offsets(big)
        last = imgs[-1][0]
        self.assertGreater(last, 2 << 20)
        bad = bytearray(big)
        bad[last + 24 + 1000] ^= 1
        p = run("--device", "sim:bf3", "--push-boot", "-", "--quiet",
                input=bytes(bad), rc=3)
        self.assertIn("CRC", p.err)
        self.assertIn("push stopped after", p.err)
        self.assertNotIn("DPU is ready", p.out)

    def test_config_and_rootfs_appended(self):
        cfg = self.path("bf.cfg", b"HOSTNAME=dpu-under-test\n")
        rootfs = self.path("rootfs.tar", os.urandom(5000))
        p = run("--device", "sim:bf3", "--push-boot", DEMO, "--config", cfg,
                "--rootfs", rootfs, "--quiet", "--json", rc=0)
        doc = json.loads(p.out)
        self.assertEqual(doc["inputs"], [DEMO, cfg, rootfs])
        total = len(self.demo) + 24 + 5000
        self.assertEqual(doc["push"]["bytes_read"], total)
        self.assertEqual(doc["push"]["bytes_pushed"], padded(total))
        self.assertEqual(doc["boot"]["completion"], "DPU is ready")
        # The same bytes as cat FILE CFG ROOTFS | app --push-boot -.
        with open(cfg, "rb") as a, open(rootfs, "rb") as b:
            cat = self.demo + a.read() + b.read()
        p2 = run("--device", "sim:bf3", "--push-boot", "-", "--quiet", "--json",
                 input=cat, rc=0)
        self.assertEqual(json.loads(p2.out)["push"]["bytes_pushed"], padded(total))
        p = run("--device", "sim:bf3", "--push-boot", DEMO, "--config",
                self.path("nope.cfg"), rc=3)
        self.one_line(p, "nope.cfg", "nothing pushed")

    def read_pos(self, pid, path):
        """Where process pid reads path (its fd's offset), or -1."""
        try:
            for fd in os.listdir("/proc/%d/fd" % pid):
                if os.readlink("/proc/%d/fd/%s" % (pid, fd)) == path:
                    with open("/proc/%d/fdinfo/%s" % (pid, fd)) as fi:
                        return int(fi.readline().split()[1])
        except OSError:
            pass
        return -1

    def test_file_shrinks(self):
        with open(BIG, "rb") as src:
            f = self.path("shrink.bfb", src.read())
        # The DPU stops reading at 1 MiB for 3 s. The app validates the
        # whole file, says it pushes, then reads ahead into its chunks
        # (4 MiB) until they are all in flight: past 5 MiB the push runs
        # and waits for the DPU; truncate the file behind its back then.
        p = subprocess.Popen([APP, "--device", "sim:bf3,stall=3s@1M", "--push-boot", f,
                              "--no-progress", "--no-log"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ENV, stdin=subprocess.DEVNULL)
        os.set_blocking(p.stderr.fileno(), False)
        err = b""

        def pushing():
            nonlocal err
            err += p.stderr.read() or b""
            return b"and pushing" in err and self.read_pos(p.pid, f) >= (5 << 20)
        self.assertTrue(wait_for(pushing), err)
        os.truncate(f, 1 << 20)
        os.set_blocking(p.stderr.fileno(), True)
        out, rest = p.communicate(timeout=120)
        err += rest
        self.assertEqual(p.returncode, 3, err)
        self.assertIn(b"shrank", err)
        self.assertIn(b"BOOT_CONTROL restored", err)

    # --- completion --------------------------------------------------------

    def no_last(self):
        """The demo without its last image: the ROM keeps waiting."""
        imgs = image_offsets(self.demo)
        return self.path("nolast.bfb", self.demo[:imgs[-1][0]])

    def test_no_completion_exit_10(self):
        p = run("--device", "sim:bf3", "--push-boot", self.no_last(), "--force",
                "--log-wait", "1s", "--quiet", rc=10)
        self.assertIn("no completion line", p.err)
        self.assertIn("sim:bf3", p.err)

    def test_ctrl_c_during_log_wait(self):
        p = subprocess.Popen([APP, "--device", "sim:bf3", "--push-boot", self.no_last(),
                              "--force", "--quiet"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=ENV, stdin=subprocess.DEVNULL)
        deadline = time.time() + 60
        # Wait for the summary line: the push is done, the log wait runs.
        out = b""
        os.set_blocking(p.stdout.fileno(), False)
        while b"pushed" not in out and time.time() < deadline:
            time.sleep(0.1)
            out += p.stdout.read() or b""
        self.assertIn(b"pushed", out)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130, err)
        self.assertIn(b"cancelled while waiting for the boot", err)

    def test_device_name_on_every_line(self):
        """Parallel runs stay apart: every line names the device or the file."""
        p = run("--device", "sim:bf1", "--push-boot", DEMO, "--no-progress", rc=0)
        for ln in p.out.splitlines():
            self.assertTrue(ln.startswith("sim:bf1: "), ln)
        for ln in p.err.splitlines():
            self.assertTrue(ln.startswith("rshim-pmd-app: sim:bf1: ") or
                            ln.startswith("rshim-pmd-app: %s: " % DEMO), ln)
        p = run("--device", "sim:bf3", "--push-boot", self.no_last(), "--force",
                "--log-wait", "0.5", rc=10)
        for ln in p.err.splitlines():
            self.assertRegex(ln, r"^rshim-pmd-app: (sim:bf3|\S+nolast.bfb): ")

    # --- JSON --------------------------------------------------------------

    def test_json_list(self):
        doc = json.loads(run("--list", "--sim", "--json", rc=0).out)
        names = [d["device"] for d in doc["devices"]]
        self.assertEqual(sorted(names), ["sim:bf1", "sim:bf2", "sim:bf3"])
        bf3 = [d for d in doc["devices"] if d["device"] == "sim:bf3"][0]
        self.assertEqual(bf3["bar0_bytes"], 8 << 20)
        self.assertTrue(bf3["usable"])
        self.assertIsNone(bf3["kernel_driver"])

    def test_json_push(self):
        p = run("--device", "sim:bf2", "--push-boot", DEMO, "--json", rc=0)
        doc = json.loads(p.out)
        self.assertEqual(doc["device"], "sim:bf2")
        self.assertEqual(doc["exit_code"], 0)
        self.assertIsNone(doc["error"])
        self.assertEqual(doc["push"]["bytes_pushed"], padded(len(self.demo)))
        self.assertGreater(doc["push"]["mib_per_s"], 0)
        self.assertEqual(doc["boot"]["result"], "completed")
        self.assertTrue(any("DPU is ready" in ln for ln in doc["boot"]["log"]))
        # Messages stay on stderr, one document on stdout.
        self.assertTrue(p.out.lstrip().startswith("{"))
        p = run("--device", "sim:bf3", "--push-boot", self.no_last(), "--force",
                "--log-wait", "1", "--json", rc=10)
        doc = json.loads(p.out)
        self.assertEqual(doc["exit_code"], 10)
        self.assertEqual(doc["boot"]["result"], "no-completion")
        self.assertIn("no completion line", doc["error"])

    # --- docs -------------------------------------------------------------

    def test_readme_commands(self):
        """Every ./build/... program the README runs exists and runs."""
        src = os.environ.get("RSHIM_PMD_SRC")
        if not src:
            self.skipTest("RSHIM_PMD_SRC not set")
        build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(APP))))
        with open(os.path.join(src, "README.md")) as f:
            text = f.read()
        progs = set(re.findall(r"(?:^|\s)\./build/(\S+)", text))
        self.assertTrue(progs)
        for rel in progs:
            path = os.path.join(build, rel)
            self.assertTrue(os.path.isfile(path) and os.access(path, os.X_OK),
                            "README runs ./build/%s: not an executable file" % rel)
        # The quick-start command, as written (emulated device).
        m = re.search(r"\./build/(app/rshim-pmd-app/rshim-pmd-app --device sim:\S+ \\\n\s*--push-boot \S+)", text)
        self.assertIsNotNone(m)
        args = m.group(1).replace("\\\n", " ").split()[1:]
        args = [a.replace("build/", build + "/", 1) if a.startswith("build/") else a
                for a in args]
        p = run(*args, "--quiet", rc=0, timeout=300)
        self.assertIn("DPU is ready", p.out)

    # --- EAL and logging ---------------------------------------------------

    def test_eal_merged(self):
        """A user's --log-level keeps the defaults (no PCI scan, memory)."""
        p = run("--log-level=pmd.rshim.boot:info", "--", "--device", "sim:bf3",
                "--push-boot", DEMO, rc=0)
        self.assertIn("DPU is ready", p.out)
        p = run("--log-level=user.rshim.app:debug", "--", "--device", "sim:bf3",
                "--list", "--sim", rc=0)
        p = run("--log-level=user.rshim.app:debug", "-m", "64", "--", "--device", "sim:bf3",
                "--push-boot", DEMO, "--no-log", rc=0)
        line = [ln for ln in p.err.splitlines() if "EAL arguments:" in ln][0]
        args = line.split("EAL arguments:")[1].split()
        for kept in ("--no-pci", "--iova-mode=va", "--no-telemetry", "-l"):
            self.assertIn(kept, args)
        # -m replaced our size, not our mode; the user's options come last.
        self.assertIn("--no-huge", args)
        self.assertNotIn("256", args)
        self.assertEqual(args[-3:], ["--log-level=user.rshim.app:debug", "-m", "64"])
        # One lcore given: the default -l is dropped, not doubled.
        p = run("-l", "0", "--", "--device", "sim:bf3", "--push-boot", DEMO, rc=0)
        self.assertIn("polling from a control thread", p.err)

    def _policies_during_push(self, *extra):
        """Scheduling policies the app's threads had while it pushed the
        small BFB at 2 MB/s (about 0.8 s), sampled every 5 ms."""
        p = subprocess.Popen([APP, "--device", "sim:bf2,drain=2M", "--push-boot", DEMO,
                              "--no-log", "--no-progress", *extra], env=ENV,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        seen = set()
        while p.poll() is None:
            try:
                for tid in os.listdir("/proc/%d/task" % p.pid):
                    with open("/proc/%d/task/%s/stat" % (p.pid, tid)) as f:
                        seen.add(int(f.read().rsplit(")", 1)[1].split()[38]))
            except (OSError, IndexError, ValueError):
                pass
            time.sleep(0.005)
        out, err = p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn(b"pushed %d bytes" % padded(len(self.demo)), out)
        return seen, err.decode(errors="replace")

    def test_push_raises_priority(self):
        """While a push streams the poll lcore runs SCHED_FIFO (root);
        --no-rt-boost keeps every thread SCHED_OTHER."""
        seen, err = self._policies_during_push()
        if os.geteuid() == 0:
            self.assertIn(1, seen, "no thread ran SCHED_FIFO during the push")
            self.assertNotIn("may not raise its priority", err)
        else:
            self.assertNotIn(1, seen)
            self.assertIn("may not raise its priority", err)
        seen, err = self._policies_during_push("--no-rt-boost")
        self.assertEqual(seen, {0}, err)
        self.assertNotIn("may not raise its priority", err)

    def test_quiet_silences_library(self):
        p = run("-l", "0", "--", "--device", "sim:bf3", "--push-boot", DEMO,
                "--quiet", rc=0)
        self.assertEqual(p.err.strip(), "")



class LongCli(Base):
    """The long suite: a push that takes longer than 7 s (the TSC to ns
    conversion that once wrapped after 7 s is also covered by a unit test
    of the clock)."""

    def test_long_push_elapsed(self):
        """A push longer than 7 s is reported with its real length."""
        p = run("--device", "sim:bf3,drain=1800K", "--push-boot", DEMO,
                "--quiet", "--json", "--no-log", rc=0, timeout=300)
        doc = json.loads(p.out)
        expect = len(self.demo) / 1.8e6
        self.assertGreater(doc["push"]["elapsed_s"], 7.0)
        self.assertGreater(doc["push"]["elapsed_s"], expect * 0.8)
        self.assertLess(doc["push"]["elapsed_s"], expect * 3)


if __name__ == "__main__":
    unittest.main()
