# shellcheck shell=bash
# TAP helpers for the project's test scripts.
#
#   . "$(dirname "$0")/lib/tap.sh"
#   tap_check "ipset is listed" ipset list bloomtest
#   if [ "$count" -eq 3 ]; then tap_ok "three rules"; else tap_fail "three rules" "got $count"; fi
#   tap_done
#
# Results are printed as "ok - NAME" or "not ok - NAME", which is what the
# top-level check counts; a test that could not run here prints
# "ok - NAME # SKIP WHY" (tap_skip) and is counted as skipped, not passed.
# Diagnostics follow a failure, indented, so that they are never mistaken
# for results. Every helper returns 0 except
# tap_done, so a "set -e" script carries on past a failed test and then
# exits non-zero from tap_done (make it the script's last command).
#
# This file is sourced: it does not change the caller's shell options.

: "${TAP_PASSED:=0}" "${TAP_FAILED:=0}" "${TAP_SKIPPED:=0}"

# tap_diag [TEXT]: print TEXT (default: stdin) indented, without blank lines.
tap_diag() {
	if [ $# -gt 0 ]; then
		printf '%s\n' "$1" | tap_diag
		return 0
	fi
	sed -e '/^[[:space:]]*$/d' -e 's/^/    /'
}

# tap_ok NAME: record a passed test.
tap_ok() {
	printf 'ok - %s\n' "$1"
	TAP_PASSED=$((TAP_PASSED + 1))
}

# tap_skip NAME [WHY]: record a test that could not run here.
tap_skip() {
	printf 'ok - %s # SKIP%s\n' "$1" "${2:+ $2}"
	TAP_SKIPPED=$((TAP_SKIPPED + 1))
}

# tap_fail NAME [WHY]: record a failed test, with an optional explanation.
tap_fail() {
	printf 'not ok - %s\n' "$1"
	[ -z "${2-}" ] || tap_diag "$(printf '%s\n' "$2" | sed 's/^/# /')"
	TAP_FAILED=$((TAP_FAILED + 1))
}

# tap_check NAME CMD...: run CMD (in a subshell, output captured); it passes
# if CMD exits 0. A failure shows CMD's exit status and its output.
tap_check() {
	local name=$1 out status=0
	shift
	out=$("$@" 2>&1) || status=$?
	if [ "$status" -eq 0 ]; then
		tap_ok "$name"
	else
		tap_fail "$name" "exit status $status: $*"
		tap_diag "$out"
	fi
}

# tap_done: print a summary; return 1 if any test failed.
tap_done() {
	printf '# %d passed, %d failed, %d skipped\n' \
		"$TAP_PASSED" "$TAP_FAILED" "$TAP_SKIPPED"
	[ "$TAP_FAILED" -eq 0 ]
}

# kmemleak_check NAME: scan for leaks after waiting out kmemleak's minimum
# object age (5 s: younger objects are never reported) and an RCU grace
# period or two; NAME passes when two scans report no unreferenced object,
# and the report is then cleared so that the next check sees only new ones.
# Skipped when the kernel has no kmemleak.
kmemleak_check() {
	local k=/sys/kernel/debug/kmemleak leaks
	if [ ! -w "$k" ]; then
		tap_skip "$1" "no kmemleak"
		return 0
	fi
	sleep 6
	# A scan reports an object only when its contents did not change
	# since the scan before, so a new leak needs two. One refused (after
	# an error kmemleak turns itself off) would report nothing: a failure.
	if ! { echo scan >"$k" && echo scan >"$k"; } 2>/dev/null; then
		tap_fail "$1" "kmemleak refuses to scan (off after an error?): $(dmesg | grep -m 1 -i kmemleak)"
		return 0
	fi
	leaks=$(grep -c '^unreferenced object' "$k")
	if [ "$leaks" = 0 ]; then
		tap_ok "$1"
	else
		tap_fail "$1" "$leaks unreferenced objects"
		head -n 60 "$k" | tap_diag
	fi
	echo clear >"$k"
}
