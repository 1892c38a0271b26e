#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every case of test_service.py runs in exactly one service-* meson test:
the groups select cases by the -k substrings listed in meson.build.

  check_groups.py test_service.py meson.build
"""
import re
import sys

cases = re.findall(r"^    def (test_\w+)\(", open(sys.argv[1]).read(), re.M)
text = open(sys.argv[2]).read()
groups = re.findall(r"\['(\w+)', \[([^\]]*)\]\]", text)
bad = 0
for c in cases:
    hits = [g for g, pats in groups
            if any(p in c for p in re.findall(r"'-k', '([^']+)'", pats))]
    if len(hits) != 1:
        print("%s: in %d groups %s" % (c, len(hits), hits))
        bad += 1
print("%d cases, %d groups, %d problems" % (len(cases), len(groups), bad))
sys.exit(1 if bad else 0)
