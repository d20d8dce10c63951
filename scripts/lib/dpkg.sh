# shellcheck shell=sh
# dpkg and apt helpers shared by scripts/deps and scripts/check-stock
# (POSIX sh; sourced).

# installed PACKAGE: whether dpkg has PACKAGE fully installed.
installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# dpkg_wait: wait while another apt or dpkg (an unattended upgrade, say)
# holds dpkg's lock, ten minutes at most; 1 if it is still held then.
dpkg_wait() {
	_n=0
	while lslocks -rn -o PATH 2>/dev/null |
		grep -qE '^/var/lib/dpkg/lock(-frontend)?$'; do
		[ "$_n" -lt 600 ] || return 1
		sleep 5
		_n=$((_n + 5))
	done
}

# dpkg_retry CMD...: CMD after dpkg_wait, once more if it fails (another
# apt may take the lock between the wait and CMD).
dpkg_retry() {
	dpkg_wait && "$@" && return 0
	sleep 5
	dpkg_wait && "$@"
}

# apt_update: apt-get update, tried again for five minutes: it takes the
# lists lock, which DPkg::Lock::Timeout does not cover.
apt_update() {
	_n=0
	until apt-get update -qq; do
		_n=$((_n + 1))
		[ "$_n" -lt 30 ] || return 1
		sleep 10
	done
}
