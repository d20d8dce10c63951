# shellcheck shell=bash
# What the ban-manager benchmarks (crowdsec-guest, fail2ban-guest) share,
# in the guest, with scripts/lib/udp-pair.sh's namespaces: enforcement
# counted by traffic where it arrives, after every backend's drop.
#
# bm_observer puts an nft chain at input priority 100 in sb counting UDP
# to port 9. A round (bm_round) sends one packet from each source and
# then one from a never-banned marker, in order from one process, and is
# taken as complete a tenth of a second after the marker is counted: the
# count less one is what got through. bm_passing does a round of the probes p4 and p6 (the
# caller's arrays); bm_wait_passing waits for a number of them.

bm_say() { echo "bench: $*" >&2; }
bm_now() { date +%s.%N; }
bm_since() { awk -v a="$1" -v b="$(bm_now)" 'BEGIN { printf "%.1f", b - a }'; }

bm_kmem() {	# KiB of Slab + vmalloc + per-CPU memory
	awk '/^(Slab|VmallocUsed|Percpu):/ { k += $2 } END { print k }' /proc/meminfo
}

bm_modules() {	# bm_modules MODDIR: bloom.ko and xt_bloom.ko loaded
	local m
	modprobe x_tables	# insmod loads no dependency
	for m in bloom xt_bloom; do
		grep -q "^$m " /proc/modules || insmod "$1/$m.ko" || return 1
	done
}

bm_observer() {
	$B nft -f - <<-'EOF'
	table inet obs {
		chain in {
			type filter hook input priority 100;
			udp dport 9 counter
		}
	}
	EOF
}

bm_arrived() {
	$B nft list chain inet obs in |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

# bm_round DST MARKER SRC...: how many of SRC's packets arrived.
bm_round() {
	local dst=$1 marker=$2 c0 c i
	shift 2
	c0=$(bm_arrived)
	$A bloom-send "$dst" 9 "$@" "$marker" >/dev/null 2>&1 ||
		{ bm_say "bloom-send to $dst failed"; exit 1; }
	for ((i = 0; i < 100; i++)); do
		c=$(bm_arrived)
		[ "$c" -le "$c0" ] || break
		sleep 0.05
	done
	sleep 0.1
	c=$(bm_arrived)
	echo $((c - c0 - 1))
}

# shellcheck disable=SC2154 # p4, p6 and limit are the caller's
bm_passing() {
	local a b
	a=$(bm_round 10.99.0.2 192.0.2.1 "${p4[@]}")
	b=$(bm_round fd99::2 2001:db8:ffff::1 "${p6[@]}")
	echo $((a + b))
}

# shellcheck disable=SC2154
# bm_wait_passing WANT T0: until bm_passing is WANT; prints the seconds
# since T0, or "-" after LIMIT (the caller's $limit) seconds.
bm_wait_passing() {
	local want=$1 t0=$2
	while [ "$(bm_passing)" != "$want" ]; do
		if [ "$(bm_since "$t0" | cut -d. -f1)" -ge "$limit" ]; then
			echo -
			return
		fi
		sleep 0.2
	done
	bm_since "$t0"
}
