#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Build NVIDIA's rshim daemon from the tree RSHIM_US_DIR names, for the
tests that run it beside rshim-pmd (the vm suite's nvidia case,
tests/vm/bench_nvidia.py).

  build_nvidia.py BUILD_DIR        prints the daemon's path

The tree is copied to BUILD_DIR/nvidia-rshim/tree (the user's tree is
never written) and built there with its own autotools steps (its
bootstrap.sh, or autoreconf; configure; make). The result is cached: a
later call with an unchanged tree (its git HEAD and status, else the
size and mtime of every file) returns the binary at once. Packages:
autoconf, automake, libtool, libusb-1.0-0-dev, libfuse3-dev, libpci-dev,
pkg-config (usertools/packages.txt).

Returns (from nvidia_rshim): the path, or None with the reason when
RSHIM_US_DIR is unset or names no rshim-user-space tree (callers skip);
raises BuildError, with the log's tail, when the build fails.
"""
import hashlib
import os
import shutil
import subprocess
import sys


class BuildError(Exception):
    pass


def tree_key(src):
    """What identifies the tree's contents."""
    h = hashlib.sha256()
    git = subprocess.run(["git", "-C", src, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, universal_newlines=True)
    if git.returncode == 0:
        st = subprocess.run(["git", "-C", src, "status", "--porcelain", "--untracked-files=no"],
                            stdout=subprocess.PIPE, universal_newlines=True)
        h.update((git.stdout + st.stdout).encode())
        if st.stdout.strip() == "":
            return h.hexdigest()
    for top, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for f in sorted(files):
            p = os.path.join(top, f)
            try:
                s = os.stat(p)
            except OSError:
                continue
            h.update(("%s %d %d\n" % (os.path.relpath(p, src), s.st_size,
                                      s.st_mtime_ns)).encode())
    return h.hexdigest()


def run_step(cmd, cwd, log):
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        rc = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        with open(log) as f:
            tail = f.read()[-1500:]
        raise BuildError("building NVIDIA's rshim daemon failed at '%s' (exit %d); log %s:\n%s"
                         % (" ".join(cmd), rc, log, tail))


def nvidia_rshim(build_dir):
    """(path, None) or (None, why-skipped)."""
    src = os.environ.get("RSHIM_US_DIR", "")
    if not src:
        return None, "RSHIM_US_DIR is not set (a rshim-user-space source tree)"
    if not os.path.isfile(os.path.join(src, "src", "rshim.c")) or \
            not os.path.isfile(os.path.join(src, "configure.ac")):
        return None, "RSHIM_US_DIR=%s is not a rshim-user-space tree (no src/rshim.c, " \
                     "configure.ac)" % src
    out = os.path.join(os.path.abspath(build_dir), "nvidia-rshim")
    tree = os.path.join(out, "tree")
    binary = os.path.join(tree, "src", "rshim")
    stamp = os.path.join(out, "stamp")
    key = tree_key(src)
    try:
        with open(stamp) as f:
            if f.read().strip() == key and os.access(binary, os.X_OK):
                return binary, None
    except OSError:
        pass
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    shutil.copytree(src, tree, symlinks=True,
                    ignore=shutil.ignore_patterns("*.o", "autom4te.cache"))
    log = os.path.join(out, "build.log")
    if os.path.exists(os.path.join(tree, "bootstrap.sh")):
        run_step(["sh", "./bootstrap.sh"], tree, log)
    else:
        run_step(["autoreconf", "-fi"], tree, log)
    run_step(["./configure"], tree, log)
    run_step(["make", "clean"], tree, log)
    run_step(["make", "-j%d" % (os.cpu_count() or 1)], tree, log)
    if not os.access(binary, os.X_OK):
        raise BuildError("NVIDIA's rshim built without src/rshim; log %s" % log)
    with open(stamp, "w") as f:
        f.write(key + "\n")
    return binary, None


if __name__ == "__main__":
    try:
        path, why = nvidia_rshim(sys.argv[1] if len(sys.argv) > 1 else "build")
    except BuildError as e:
        sys.exit(str(e))
    if path is None:
        print("build_nvidia: %s" % why, file=sys.stderr)
        sys.exit(77)
    print(path)
