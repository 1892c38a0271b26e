# SPDX-License-Identifier: BSD-3-Clause
# Helpers of the guest-side scripts of the vm suite (sourced by bash in
# the guest). Each check prints "ok: NAME" or "FAIL: NAME: why"; the
# script ends with "N passed, M failed" and fails when one failed.
# From the host runner: APP SVC MKBFB SRC BFB SHARE PEER RSHIM_VM_BDFS.
passes=0 fails=0
W=/tmp/vmw
mkdir -p "$W"
read -r -a BDF <<<"$RSHIM_VM_BDFS"
PY=/usr/bin/python3
. "$(dirname "${BASH_SOURCE[0]}")/../common/rsh_ping.sh"

pass() { echo "ok: $*"; passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run SEC CMD...: CMD with a deadline; output in $W/out, status in $rc.
run() {
	local t=$1; shift
	timeout -s INT "$t" "$@" >"$W/out" 2>&1 </dev/null
	rc=$?
}

# expect NAME RC ERE SEC CMD...: CMD exits RC and its output matches ERE
# (an empty ERE: any output).
expect() {
	local name=$1 want=$2 pat=$3 t=$4; shift 4
	run "$t" "$@"
	if [ "$rc" -eq "$want" ] && { [ -z "$pat" ] || grep -Eq -- "$pat" "$W/out"; }; then
		pass "$name"
	else
		fail "$name: exit $rc (want $want), no /$pat/ in: $(tail -c 600 "$W/out")"
	fi
}

# one_line NAME RC ERE SEC CMD...: as expect, and stderr is one line.
one_line() {
	local name=$1 want=$2 pat=$3 t=$4 n; shift 4
	timeout -s INT "$t" "$@" >/dev/null 2>"$W/err" </dev/null
	rc=$?
	n=$(grep -c . "$W/err")
	if [ "$rc" -eq "$want" ] && [ "$n" -eq 1 ] && grep -Eq -- "$pat" "$W/err"; then
		pass "$name: $(cat "$W/err")"
	else
		fail "$name: exit $rc (want $want), $n lines: $(tail -c 600 "$W/err")"
	fi
}

# layer NAME LAYER STATUS ERE: a line of the last --doctor output.
layer() {
	if grep -Eq -- "^[^ ]+: $2 +$3 .*$4" "$W/out"; then
		pass "$1"
	else
		fail "$1: no '$2 $3 /$4/' in: $(cat "$W/out")"
	fi
}

# wait_for SEC CMD...: until CMD succeeds (every 0.1 s) or SEC pass.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# reap PID SEC: its exit status in $rc, killed (rc 137) after SEC.
reap() {
	wait_for "$2" sh -c "! kill -0 $1" || kill -KILL "$1"
	wait "$1"
	rc=$?
}

# pushing LOG: the app has started streaming (then 1.5 s more: the 16 KiB
# before the emulated stall are in, the push waits on the stall).
pushing() {
	wait_for 60 grep -q "resetting the ARM and pushing" "$1"
	sleep 1.5
}

# host_ctl "kill N": ask rshim-vm on the host; wait for its answer.
host_ctl() {
	echo "$1" >>"$RSHIM_VM_CTL"
	wait_for 10 grep -qx "done $1" "$RSHIM_VM_CTL.ack"
}

# bind DRIVER BDF: driver_override + bind, as rshim-devbind.py does.
bind() {
	"$PY" "$SRC/usertools/rshim-devbind.py" -b "$1" "$2" >/dev/null
}

finish() {
	mkdir -p "$SHARE/w" && cp "$W"/*.out "$SHARE/w/" 2>/dev/null
	echo "$passes passed, $fails failed"
	[ "$fails" -eq 0 ]
	exit
}

# push_console NAME DEV [ARGS...]: push $BFB, then the console in the same
# run: "DPU is ready", a marker typed comes back, SIGTERM ends it (exit 0).
push_console() {
	local name=$1 dev=$2 app m; shift 2
	rm -f "$W/in"; mkfifo "$W/in"
	"$APP" --device "$dev" --reset-delay 100 --no-progress --push-boot "$BFB" --console "$@" \
		<"$W/in" >"$W/$name.out" 2>&1 &
	app=$!
	exec 3>"$W/in"
	if wait_for 90 grep -q "DPU is ready" "$W/$name.out"; then
		pass "$name: push, DPU is ready"
	else
		fail "$name: push: $(tail -5 "$W/$name.out")"
	fi
	m=marker-$RANDOM$RANDOM
	echo "echo $m" >&3
	wait_for 20 sh -c "tr -d '\r' <'$W/$name.out' | grep -q '^$m'" && pass "$name: console round trip" ||
		fail "$name: console: no $m in: $(tail -3 "$W/$name.out")"
	kill -TERM "$app"; reap "$app" 30; exec 3>&-
	[ "$rc" -eq 0 ] && pass "$name: exit 0 on SIGTERM" || fail "$name: exit $rc"
}
