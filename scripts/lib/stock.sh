# shellcheck shell=bash
# Debian's packaged kernels on this host (sourced by scripts/check and
# scripts/check-stock).

# stock_kver SERIES: the newest generic Debian kernel of SERIES (6.1,
# 6.12; not the rt or cloud flavour) whose image and headers are both
# installed; prints nothing if there is none.
stock_kver() {
	local v
	for v in $(cd /lib/modules 2>/dev/null && printf '%s\n' "$1".[0-9]*-amd64 | sort -rV); do
		case $v in *-rt-amd64|*-cloud-amd64) continue ;; esac
		[ -f "/boot/vmlinuz-$v" ] && [ -d "/usr/src/linux-headers-$v" ] && { echo "$v"; return; }
	done
}
