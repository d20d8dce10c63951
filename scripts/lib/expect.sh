# shellcheck shell=bash
# Expectations on a command's exit status and messages, for the offline
# bloomctl tests. The caller sets tmp (a scratch directory) and have_jq
# (1 when jq is installed), and sources scripts/lib/tap.sh first.

# run CMD...: sets out, err (stdout, stderr) and rc.
run() {
	rc=0
	out=$("$@" 2>"$tmp/.stderr") || rc=$?
	err=$(cat "$tmp/.stderr")
}

# expect NAME STATUS REGEX CMD...: CMD exits STATUS and its stdout or
# stderr matches the extended REGEX.
expect() {
	local name=$1 status=$2 re=$3
	shift 3
	run "$@"
	# A here-string, not a pipe: grep -q exits at the first match, and
	# under pipefail the writer's SIGPIPE would fail the test.
	if [ "$rc" = "$status" ] && grep -Eq -- "$re" <<<"$out"$'\n'"$err"; then
		tap_ok "$name"
	else
		tap_fail "$name" "exit $rc (want $status), wanted /$re/ in: $*"
		tap_diag "stdout: ${out:0:400}"
		tap_diag "stderr: ${err:0:400}"
	fi
}

# expect_error NAME REGEX CMD...: exit 2 and exactly one line on stderr,
# "bloomctl: ...", matching REGEX.
expect_error() {
	local name=$1 re=$2
	shift 2
	run "$@"
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		grep -Eq -- "^bloomctl: .*$re" <<<"$err"; then
		tap_ok "$name"
	else
		tap_fail "$name" "exit $rc (want 2 and one line /$re/): $*"
		tap_diag "stderr: ${err:0:400}"
	fi
}

json_ok() {
	python3 -m json.tool >/dev/null 2>&1 &&
		{ [ "$have_jq" = 0 ] || jq -e . >/dev/null 2>&1 <<<"$out"; }
}
