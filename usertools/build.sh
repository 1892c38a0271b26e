#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Configure (once) and build one build directory: build.sh DIR [meson options]
set -euo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$dir/build.ninja" ]; then
	meson setup "$dir" "$top" "$@" >/dev/null
else
	meson configure "$dir" "$@" >/dev/null
fi
ninja -C "$dir" >/dev/null
