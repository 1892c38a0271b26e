#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# rshim-pmd quick start: install dependencies, build, and push the demo
# boot stream (made by the build) to an emulated BlueField-3 that drains it
# at 20 MB/s, showing progress and the boot log the emulated DPU writes.
set -euo pipefail
cd "$(dirname "$0")/.."
./usertools/install-deps.sh
echo "quickstart: building in ./build"
./usertools/build.sh build
exec ./build/app/rshim-pmd-app/rshim-pmd-app --device sim:bf3,drain=20M \
	--push-boot build/app/rshim-mkbfb/demo.bfb "$@"
