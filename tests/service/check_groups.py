#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every case of a service test file runs in exactly one service-* meson
test: the groups select cases by the -k substrings listed in meson.build.
The groups of test_hardening.py are named hard-*, those of
test_parity.py parity-*, those of test_service.py are the others.

  check_groups.py TEST_FILE meson.build [hard-|parity-]
"""
import re
import sys

cases = re.findall(r"^    def (test_\w+)\(", open(sys.argv[1]).read(), re.M)
prefix = sys.argv[3] if len(sys.argv) > 3 else ""
text = open(sys.argv[2]).read()
groups = [(g, p) for g, p in re.findall(r"\['([\w-]+)', \[([^\]]*)\]\]", text)
          if (g.startswith(prefix) if prefix else not re.match(r"(hard|parity)-", g))]
bad = 0
for c in cases:
    hits = [g for g, pats in groups
            if any(p in c for p in re.findall(r"'-k', '([^']+)'", pats))]
    if len(hits) != 1:
        print("%s: in %d groups %s" % (c, len(hits), hits))
        bad += 1
print("%d cases, %d groups, %d problems" % (len(cases), len(groups), bad))
sys.exit(1 if bad else 0)
