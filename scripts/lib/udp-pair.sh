# shellcheck shell=bash
# Two network namespaces for traffic tests of a blocklist: "sa" sends UDP
# from chosen (spoofed) source addresses, "sb" holds the rules. Per-rule
# packet counters in sb's INPUT say what was dropped and what arrived:
# the test puts a "-m bloom ... -j DROP" rule for UDP to port 9 first and
# "-p udp --dport 9 -j ACCEPT" after it, for iptables and ip6tables.
#
#   . scripts/lib/tap.sh; . scripts/lib/udp-pair.sh
#   pair_setup || ...; dropped "banned" 198.51.100.7; passed "not" 2001:db8::9
#
# Needs the repository's build/ on PATH (bloom-send) and the caller's A
# and B ("ip netns exec sa", "ip netns exec sb"); pair_cleanup deletes
# both namespaces.

A="ip netns exec sa"
B="ip netns exec sb"

pair_setup() {
	ip netns add sa && ip netns add sb &&
		ip link add va netns sa type veth peer name vb netns sb &&
		$A ip addr add 10.99.0.1/24 dev va && $B ip addr add 10.99.0.2/24 dev vb &&
		$A ip addr add fd99::1/64 dev va nodad &&
		$B ip addr add fd99::2/64 dev vb nodad &&
		$A ip link set va up && $B ip link set vb up &&
		$A ip link set lo up && $B ip link set lo up &&
		$A ip route add default via 10.99.0.2 &&
		$A ip -6 route add default via fd99::2
}

pair_cleanup() {
	ip netns del sa 2>/dev/null
	ip netns del sb 2>/dev/null
}

# wait_for SECONDS CMD...: until CMD succeeds; 1 if it never did.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# counts IPT: "DROPPED ARRIVED", the packets sb's IPT (iptables or
# ip6tables) INPUT rules dropped with -m bloom and accepted after them.
counts() {
	$B "$1" -w -nvxL INPUT 2>/dev/null |
		awk '/ bloom / { d += $1 } $3 == "ACCEPT" && / udp / { p += $1 }
		END { printf "%d %d\n", d, p }'
}

# send SRC N: N packets from SRC to sb's port 9, waits until INPUT counted
# them and prints "dropped D passed P".
send() {
	local src=$1 n=$2 dst=10.99.0.2 ipt=iptables d0 p0 d p out i srcs=()
	case "$src" in *:*) dst=fd99::2 ipt=ip6tables ;; esac
	for ((i = 0; i < n; i++)); do
		srcs+=("$src")
	done
	read -r d0 p0 < <(counts $ipt)
	out=$($A bloom-send "$dst" 9 "${srcs[@]}" 2>&1) ||
		tap_fail "bloom-send to $dst from $src" "exit $?: $out"
	for ((i = 0; i < 50; i++)); do
		read -r d p < <(counts $ipt)
		[ $((d - d0 + p - p0)) -lt "$n" ] || break
		sleep 0.1
	done
	echo "dropped $((d - d0)) passed $((p - p0))"
}

expect() {	# expect NAME GOT WANT
	if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_fail "$1" "got '$2', want '$3'"; fi
}

# outcome NAME DROPPED PASSED SRC...: two packets from each SRC, of which
# DROPPED were dropped and PASSED arrived.
outcome() {
	local name=$1 d=$2 p=$3 src got=
	shift 3
	for src; do
		got+="$src: $(send "$src" 2); "
	done
	expect "$name" "$got" "$(for src; do printf '%s: dropped %d passed %d; ' "$src" "$d" "$p"; done)"
}

dropped() {	# dropped NAME SRC...: each SRC's packets are dropped
	outcome "$1" 2 0 "${@:2}"
}

passed() {	# passed NAME SRC...: each SRC's packets arrive
	outcome "$1" 0 2 "${@:2}"
}
