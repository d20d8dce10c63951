# shellcheck shell=bash
# Debian's CrowdSec (unpacked by scripts/crowdsec-pkg, not installed) run
# as an operator's Local API would be, with a configuration of its own in
# a scratch directory: the API only (-no-cs: no log acquisition), no
# Central API, SQLite with WAL as Debian's postinst sets it.
#
#   . scripts/lib/crowdsec.sh
#   cs_init ROOT DIR PORT         # config in DIR, machine registered
#   cs_bouncer NAME KEY           # a bouncer and its API key
#   cs_start [NETNS-EXEC...]      # crowdsec in the background, waits for it
#   cs_cli decisions add -i ADDR  # cscli on that configuration
#   cs_stop
#
# cs_pid is crowdsec's process, cs_log its output.

cs_root='' cs_dir='' cs_port='' cs_pid='' cs_log=''

cs_init() {
	cs_root=$1 cs_dir=$2 cs_port=$3
	cs_log=$cs_dir/crowdsec.out
	mkdir -p "$cs_dir/etc" "$cs_dir/data" "$cs_dir/hub" "$cs_dir/log" || return 1
	cp "$cs_root/etc/crowdsec/profiles.yaml" "$cs_root/etc/crowdsec/simulation.yaml" \
		"$cs_dir/etc/" || return 1
	echo '{}' >"$cs_dir/hub/.index.json"
	: >"$cs_dir/etc/local_api_credentials.yaml"
	cat >"$cs_dir/etc/config.yaml" <<-EOC
	common:
	  daemonize: false
	  log_media: file
	  log_level: info
	  log_dir: $cs_dir/log/
	  working_dir: .
	config_paths:
	  config_dir: $cs_dir/etc/
	  data_dir: $cs_dir/data/
	  simulation_path: $cs_dir/etc/simulation.yaml
	  hub_dir: $cs_dir/hub/
	  index_path: $cs_dir/hub/.index.json
	  notification_dir: $cs_dir/etc/notifications/
	  plugin_dir: $cs_root/usr/lib/crowdsec/plugins/
	cscli:
	  output: human
	  color: no
	db_config:
	  type: sqlite
	  db_path: $cs_dir/data/crowdsec.db
	  use_wal: true
	  flush:
	    max_items: 10000000
	    max_age: 7d
	api:
	  client:
	    credentials_path: $cs_dir/etc/local_api_credentials.yaml
	  server:
	    log_level: info
	    listen_uri: 127.0.0.1:$cs_port
	    profiles_path: $cs_dir/etc/profiles.yaml
	    console_path: $cs_dir/etc/console.yaml
	    trusted_ips: [127.0.0.1, "::1"]
	prometheus:
	  enabled: false
	EOC
	cs_cli machines add --auto --force >"$cs_dir/machines.out" 2>&1 &&
		cs_bouncer cs-lib-probe "cs-lib-probe-$$-$RANDOM$RANDOM"
}

cs_cli() {
	${cs_netns:-} "$cs_root/usr/bin/cscli" -c "$cs_dir/etc/config.yaml" --error "$@"
}

cs_bouncer() {
	cs_cli bouncers add "$1" -k "$2" >/dev/null || return 1
	[ "$1" != cs-lib-probe ] || cs_probe_key=$2
}

# cs_count SCENARIO: how many active decisions of SCENARIO the Local API
# holds (its whole set, as a bouncer of our own asks for it).
cs_count() {
	${cs_netns:-} curl -s -H "X-Api-Key: $cs_probe_key" \
		"http://127.0.0.1:$cs_port/v1/decisions/stream?startup=true" |
		python3 -c 'import json, sys
d = json.load(sys.stdin).get("new") or []
print(sum(1 for x in d if x.get("scenario") == sys.argv[1]))' "$1"
}

# cs_start [NETNS-EXEC...]: e.g. cs_start ip netns exec sb. Later cs_cli
# calls run there too. 0 once the Local API answers, 1 if it never did
# within a minute.
cs_start() {
	cs_netns="$*"
	${cs_netns:-} "$cs_root/usr/bin/crowdsec" -c "$cs_dir/etc/config.yaml" -no-cs -info \
		>"$cs_log" 2>&1 &
	cs_pid=$!
	local end=$((SECONDS + 60))
	# Any HTTP answer will do ("cscli lapi status" wants a hub).
	until [[ $(${cs_netns:-} curl -s -o /dev/null -w '%{http_code}' \
		"http://127.0.0.1:$cs_port/v1/decisions" 2>/dev/null) == [1-5][0-9][0-9] ]]; do
		kill -0 "$cs_pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

cs_stop() {
	[ -n "$cs_pid" ] || return 0
	kill "$cs_pid" 2>/dev/null && wait "$cs_pid" 2>/dev/null
	cs_pid=
}

# cs_import FILE SCENARIO N: "cscli decisions import" of FILE, N lines
# that all give reason SCENARIO. SQLite refuses a long import now and
# then while bouncers poll (each poll records the bouncer's last pull):
# "database is locked", often once every decision is stored. Then the
# import is done if the Local API holds all N; else what got in is
# deleted and the import tried again, three times at most.
# cs_import_tries says how many it took, cs_import_locked how many cscli
# failed with "database is locked", cs_import_t0 when the last began
# (date +%s.%N), and $cs_dir/import.out holds cscli's output.
# shellcheck disable=SC2034 # for the caller
cs_import_tries=0 cs_import_locked=0 cs_import_t0='' cs_probe_key=''

cs_import() {
	cs_import_tries=0 cs_import_locked=0
	while [ "$cs_import_tries" -lt 3 ]; do
		cs_import_tries=$((cs_import_tries + 1))
		# shellcheck disable=SC2034 # for the caller
		cs_import_t0=$(date +%s.%N)
		cs_cli decisions import -i "$1" >"$cs_dir/import.out" 2>&1 && return 0
		grep -q 'database is locked' "$cs_dir/import.out" || return 1
		cs_import_locked=$((cs_import_locked + 1))
		[ "$(cs_count "$2")" != "$3" ] || return 0
		cs_cli decisions delete -s "$2" >/dev/null 2>&1
		sleep 2
	done
	return 1
}
