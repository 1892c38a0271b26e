# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the shell tests (and the vm suite's guests) that ping across
# tmfifo_net0: the check that no frame was lost.

# ping_every N ARGS...: ping -n -c N -w 120 ARGS, run under $ping_in when
# set (a prefix such as "ip netns exec NS"). Succeeds when every request
# 1..N was answered; otherwise prints the missing sequence numbers and
# ping's summary and fails. With -w, ping runs until N replies came and
# keeps sending while they are late, so on a loaded host "transmitted"
# can exceed "received" with nothing lost; without -w it stops waiting
# two round trips after its last request. The answered sequence numbers
# are what a dropped frame breaks.
ping_in=
ping_every() {
	local n=$1 out missing; shift
	out=$($ping_in ping -n -c "$n" -w 120 "$@" 2>&1)
	missing=$(comm -23 <(seq 1 "$n" | sort) \
		<(grep -o 'icmp_seq=[0-9]*' <<<"$out" | cut -d= -f2 | sort -u))
	[ -z "$missing" ] && return 0
	echo "no reply to icmp_seq $(echo $missing | cut -c1-60); $(tail -2 <<<"$out" | tr '\n' ' ')"
	return 1
}
