# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests that run emulated DPUs with namespace ends:
# this run's own namespace names and lock directory, and the check that
# none of them is left at the end.

# rsh_sim_names TAG DIR: export RSHIM_SIM_NETNS_PREFIX (rsh<TAG><pid>-)
# and RSHIM_SIM_LOCK_DIR (DIR/sim-locks; DIR is the run's own).
rsh_sim_names() {
	export RSHIM_SIM_NETNS_PREFIX=rsh$1$$-
	export RSHIM_SIM_LOCK_DIR=$2/sim-locks
}

# rsh_sim_left: print what this run left (a namespace with its prefix, a
# namespace lock an emulator still holds); nothing when all is gone.
rsh_sim_left() {
	local f left held=
	left=$(ls /run/netns 2>/dev/null | grep "^$RSHIM_SIM_NETNS_PREFIX")
	for f in "$RSHIM_SIM_LOCK_DIR"/*.lock; do
		[ -e "$f" ] && ! flock -n "$f" true && held="$held $f"
	done
	[ -z "$left$held" ] || echo "namespaces '$left', held locks '$held'"
}
