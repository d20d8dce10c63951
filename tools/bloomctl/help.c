// SPDX-License-Identifier: GPL-2.0
/*
 * The subcommand table and every subcommand's --help text.
 */
#define _GNU_SOURCE
#include <string.h>
#include "bloomctl.h"

#define GEOMETRY_HELP \
"  -n, --capacity N   keys the filter must hold (suffixes k, M, G; or 1e6)\n" \
"  -e, --fp-rate E    false-positive rate at capacity, 1e-9 to 0.5: 0.01, 1%\n" \
"                     or 1e-3 (default 1%)\n" \
"  -m, --bits M       size: bits, or counters for counting (instead of -e; a\n" \
"                     -n given with it is recorded as the capacity, else\n" \
"                     floor(m ln 2 / k)); cuckoo: table bits, 4 f per bucket\n" \
"  -k, --hashes K     probes per key, 1 to 32 (with --bits); cuckoo: the\n" \
"                     fingerprint width f, 4 to 32\n" \
"  -l, --layout L     blocked (default), standard, partitioned, counting or\n" \
"                     cuckoo (deletes; each add stores a copy; an add that\n" \
"                     finds no room fails and changes nothing)\n" \
"  -t, --key T        addr (default), net, addr,port, flow, digest or bytes\n" \
"  -s, --seed S       fixed 64-bit hash seed (default: random)\n" \
"      --family F     inet (IPv4 keys only) or inet6 (IPv6 only); without it\n" \
"                     the filter holds both (keys with addresses)\n"

#define KEYS_HELP \
"Keys come from the arguments, then from every -f FILE in order (- is stdin),\n" \
"or from stdin when neither is given and stdin is not a terminal: one key per\n" \
"line; blank lines are skipped; a comment runs from # or ; at the start of a\n" \
"line or after a blank to the end of the line (1.2.3.4 # why, ; SBL123);\n" \
"surrounding whitespace is trimmed; a UTF-8 byte order mark before the\n" \
"first line (Windows exports) is skipped.\n" \
"The whole input is parsed and validated before anything is sent to the\n" \
"kernel: a malformed line is reported as FILE:LINE and nothing is applied\n" \
"(exit status 2). An input without a key (nothing, or only blank lines and\n" \
"comments) applies nothing to add and del, and is an error of test and\n" \
"build (exit status 2) unless --allow-empty: an empty variable or a failed\n" \
"download is not a list.\n" \
"Key syntax by the filter's key type:\n" \
"  addr       192.0.2.1  2001:db8::1\n" \
"  net        192.0.2.0/24  2001:db8::/32  or a bare address (/32, /128);\n" \
"             host bits past the prefix are an error\n" \
"  ranges     addr and net: 192.0.2.10-192.0.2.20, one family; net filters\n" \
"             get the prefixes that cover it, addr filters every address\n" \
"             (at most 65536 per range)\n" \
"  addr,port  192.0.2.1,80  192.0.2.1,udp:53  [2001:db8::1],443  ::1,sctp:9\n" \
"             (protocol tcp, udp, sctp, udplite, dccp or a number; default tcp)\n" \
"  flow       PROTO,SADDR,SPORT,DADDR,DPORT  e.g. tcp,10.0.0.1,1234,10.0.0.2,80\n" \
"  digest     0x and the 168 bytes of a packet digest key in hex (the\n" \
"             layout is struct bloom_key_digest in the uapi header)\n" \
"  bytes      the text itself (1 to 128 bytes), or 0x followed by hex digits\n"

#define GROW_HELP \
"\nGrowing (scalable) filters, for a number of keys not known beforehand:\n" \
"      --grow         when the newest stage is full, add a larger one; tests\n" \
"                     probe every stage\n" \
"      --growth S     each stage holds S times the keys of the one before,\n" \
"                     2 to 8 (default 2)\n" \
"      --tightening R each stage's false-positive rate is R times the one\n" \
"                     before's, 0.1 to 0.9 (default 0.5)\n" \
"      --max-stages N at most N stages, 1 to 24 (default 16); then, or at the\n" \
"                     namespace's memory limit, it fills up as a plain filter\n" \
"Any of --growth, --tightening and --max-stages implies --grow.\n"

#define FILE_HELP \
"NAME may be a snapshot FILE, read without the kernel. An argument is a file\n" \
"when it is - (stdin), holds a '/' (which no filter name can), or names a\n" \
"snapshot file in the current directory (the file wins: info drop.bloom\n" \
"reads it); anything else is a filter name. The file is verified as a\n" \
"restore would verify it, and answered with the kernel's own filter code.\n" \
"Other subcommands need the kernel and refuse a file. A compressed FILE\n" \
"larger than --max-memory B once decoded (default 1GiB) is refused.\n"

#define STATIC_HELP \
"Static filters and maps (layout fuse): built once from every key, never\n" \
"added to; about 1.13 f bits a key for the rate 2^-f. Every key is held in\n" \
"memory while it is built (about 40 bytes a key).\n" \
"      --kind K       fuse8 (f = 8: 0.39 %) or fuse16 (f = 16: 0.0015 %);\n" \
"                     refused with an --fp-rate below its rate, a --layout\n" \
"                     other than fuse, or --capacity (but a net list's)\n" \
"      --layout fuse --fp-rate E  the narrowest f whose 2^-f is at most E\n" \
"      --values       a static map: each key gets a value, 0 to 65535, the\n" \
"                     last field of its line (192.0.2.0/24 3), or its file's\n" \
"  -f FILE=VALUE      with --values: every key of FILE has VALUE (a line's\n" \
"                     own value comes first)\n" \
"--bits, --hashes, --grow, --transport and aging do not apply.\n"

#define COMPRESS_HELP \
"      --compress     write a compressed snapshot, for shipping: bit arrays\n" \
"                     golomb-rice coded, counters and fingerprints zstd;\n" \
"                     restore, info and test read it as any snapshot\n"

#define NETMASK_HELP \
"      --netmask4 LEN, --netmask6 LEN  net: a bare address stands for its\n" \
"                     network of LEN bits (host bits cleared): 2001:db8::7\n" \
"                     with --netmask6 64 is 2001:db8::/64\n"

#define PREFIX_HELP \
"Net keys are stored at a few prefix lengths, whatever the list holds, so\n" \
"that a packet probes only those: a prefix goes in as the prefixes of the\n" \
"next chosen length that cover it (a /23 as two /24s; no prefix becomes\n" \
"more than 65536). The answer for every address is unchanged.\n" \
"      --prefix-lengths LIST  the lengths: 16,24,32 (IPv4), 6:48 (IPv6),\n" \
"                     'all' (every length listed: no expansion; build's\n" \
"                     --capacity then counts keys, one a prefix) or 'auto'\n" \
"                     (default: the fewest lengths that at most double the\n" \
"                     keys, within the capacity when it is given)\n" \
"      --probes P     at most P lengths, the fewest keys for them\n" \
"A lookup probes each length the filter holds (an IPv4 address only the\n" \
"IPv4 ones), and --fp-rate is a lookup's rate. add never takes a filter\n" \
"past the lengths it was created for (create --probes) unless --force.\n"

#define OUT_HELP \
"--out FILE: a regular file is replaced atomically (a temporary file in the\n" \
"same directory, fsync, rename) with mode 0600, because it holds the seed;\n" \
"a symlink is followed to its target; a device, FIFO or pipe (/dev/stdout,\n" \
">(...)) is written in place. FILE - writes to stdout, but not to a terminal.\n" \
"FILE must not be one of the input files (-f).\n"

const struct command commands[] = {
	{ "create", cmd_create,
	  "NAME [--capacity N [--fp-rate E] | --bits M --hashes K] [OPTIONS]",
	  "Create an empty filter. Give its capacity and target false-positive rate\n"
	  "(the kernel picks the smallest m and k for the layout), or m and k.\n\n"
	  GEOMETRY_HELP
	  "      --exist        no error if an identical filter (layout, key type,\n"
	  "                     m and k, and seed if given) exists: scripts can rerun\n"
	  "      --probes P     net: a lookup probes at most P prefix lengths (1 to\n"
	  "                     129, default 16); each probe is sized at E/P so that\n"
	  "                     a lookup, as a packet sees it, stays at E. For net,\n"
	  "                     --capacity counts prefixes as listed (twice as many\n"
	  "                     keys are held: what add stores a list as by default)\n"
	  "      --prefix-lengths all  net: the keys will be added at their own\n"
	  "                     lengths (add --prefix-lengths all): --capacity\n"
	  "                     counts keys, one a prefix\n"
	  "      --value-bits V  cuckoo: a V-bit value (1 to 8) beside each key,\n"
	  "                     given to add as \"KEY VALUE\"; info counts the\n"
	  "                     packets each value matched (per origin, say)\n"
	  "\nAging (time-decaying) filters, for dedup (\"seen in the last T?\"):\n"
	  "      --rotate T     rotate every T (500ms, 60s, 5m, 1h; plain number: s;\n"
	  "                     at least 100ms)\n"
	  "      --generations G  generations, 2 to 8 (default 2 with --rotate)\n"
	  "      --rotate-full  also rotate when the newest generation is full\n"
	  "A key stays present for at least (G-1)*T and at most G*T after its last\n"
	  "add (less when rotations come early: --rotate-full, 'bloomctl rotate').\n"
	  "--capacity is per generation, that is per window; memory is G+1 arrays.\n"
	  GROW_HELP
	  "--capacity is the first stage's; with --fp-rate E the first stage gets\n"
	  "E*(1-R), so that all stages together stay below E. Growing goes with\n"
	  "neither aging nor --layout counting.\n" },
	{ "destroy", cmd_destroy, "NAME...",
	  "Destroy filters. A filter that a rule or kernel user holds is refused,\n"
	  "after waiting up to 3 s for one (iptables-nft lets go of a deleted\n"
	  "rule's filter a moment after the command returns).\n" },
	{ "rename", cmd_rename, "OLD NEW",
	  "Rename a filter. A filter that a rule or kernel user holds is refused,\n"
	  "after the same wait as destroy.\n" },
	{ "clear", cmd_clear, "NAME...",
	  "Empty filters, keeping their geometry and seed.\n" },
	{ "flush", cmd_clear, "NAME...",
	  "The same as clear (ipset's name): empty filters, keeping their\n"
	  "geometry and seed.\n" },
	{ "swap", cmd_swap, "A B",
	  "Exchange the contents of two filters of the same key type, atomically:\n"
	  "build a new filter, swap it in, destroy the old one.\n" },
	{ "list", cmd_list, "[--names]",
	  "List the filters of this network namespace, in creation order; OVER\n"
	  "after the inserted count marks a filter past its capacity. A growing\n"
	  "filter's capacity is that of its stages so far, with a + while it may\n"
	  "grow. ID is the filter's id, by which XDP and tc programs name it.\n\n"
	  "  -n, --names        names only, one per line\n" },
	{ "info", cmd_info, "NAME|FILE",
	  "Show a filter's geometry and statistics, with its capacity; a filter\n"
	  "holding more keys than that is marked OVER CAPACITY. For a growing\n"
	  "filter also its growth, tightening and most stages, the false-positive\n"
	  "rate it stays below, whether it is at its limit, and each stage (m, k,\n"
	  "capacity, inserted, fill, rate, memory), oldest first; m, k and the\n"
	  "capacity above are then the first stage's.\n\n" FILE_HELP },
	{ "limits", cmd_limits, "[--max-filters N] [--max-bytes B]",
	  "Show, or change, the namespace's limits on filters and array memory.\n"
	  "Sizes take k, M, G (powers of 1000) or Ki, Mi, Gi (powers of 1024), e.g. 64MiB.\n" },
	{ "add", cmd_add, "NAME [KEY...] [-f FILE]... [--force]",
	  "Add keys to a filter. Refused, with nothing added, when the keys new to\n"
	  "the filter would take it past its capacity (the false-positive rate it\n"
	  "would reach is in the message), unless --force. A growing filter takes\n"
	  "as many as its newest stage and the stages it may still add hold.\n\n"
	  "      --force        add past the capacity anyway\n"
	  "  -f, --file FILE    read keys from FILE (- is stdin); repeatable\n"
	  NETMASK_HELP "\n"
	  PREFIX_HELP
	  "A net filter that holds keys already keeps its lengths (adding one of the\n"
	  "list's only where the keys would otherwise be more than twice as many);\n"
	  "del, count and an exact test of a prefix look for what add stored, or\n"
	  "for the lengths given with --prefix-lengths LIST.\n\n"
	  KEYS_HELP },
	{ "del", cmd_del, "NAME [KEY...] [-f FILE]... [--exist]",
	  "Delete keys from a counting or cuckoo filter. Delete only keys that were\n"
	  "added: deleting a key never added can remove another key that shares its\n"
	  "counters (counting) or its fingerprint and bucket (cuckoo), which then\n"
	  "tests absent. Keys are deleted in order; an\n"
	  "absent key stops the command there (exit 2) unless --exist.\n\n"
	  "  -f, --file FILE    read keys from FILE (- is stdin); repeatable\n"
	  "      --exist        skip absent keys instead of failing\n"
	  NETMASK_HELP
	  "      --prefix-lengths LIST  net: a prefix is deleted as add stored it\n"
	  "                     at these lengths (default: the filter's)\n\n"
	  KEYS_HELP },
	{ "test", cmd_test, "NAME|FILE [KEY...] [-f FILE]... [--verbose] [--match]",
	  "Test keys. Exit status 0 when every key is present, 1 when any is\n"
	  "absent, 2 on error. A Bloom filter may say present for a key never added\n"
	  "(a false positive); it never says absent for a key that was added.\n"
	  "In a net filter a bare address is tested as the packet path tests a\n"
	  "packet from it: every prefix length the filter holds, longest first\n"
	  "(10.1.2.3 is present when 10.0.0.0/8 is; the output names the prefix that\n"
	  "matched); a prefix ADDRESS/LEN is looked up exactly. The output says which\n"
	  "lookup each key had (JSON: \"lookup\", and \"matched\" with --verbose).\n\n"
	  "  -f, --file FILE    read keys from FILE (- is stdin); repeatable\n"
	  "  -v, --verbose      a line per key: KEY present, or KEY absent\n"
	  "      --allow-empty  no key at all is success (exit 0), not an error\n"
	  "      --match        net filters: prefixes too match as packets from\n"
	  "                     their first address do\n"
	  "      --prefix-lengths LIST  net: an exact prefix is looked for as add\n"
	  "                     stored it at these lengths (default: the filter's;\n"
	  "                     present when every covering prefix is)\n\n"
	  FILE_HELP "\n" KEYS_HELP },
	{ "count", cmd_count, "NAME|FILE KEY",
	  "Print how often KEY was added to a counting filter (an upper bound;\n"
	  "15 means saturated). Other layouts print 1 if present, 0 if absent.\n"
	  "A net prefix stored as several covering prefixes counts the least of\n"
	  "theirs (--prefix-lengths LIST as for del).\n\n"
	  FILE_HELP },
	{ "save", cmd_save, "NAME --out FILE [--compress]",
	  "Save a filter to a snapshot file.\n\n" OUT_HELP "\n"
	  "      --out FILE     the snapshot to write (- is stdout)\n"
	  COMPRESS_HELP },
	{ "restore", cmd_restore, "FILE [--name NAME] [--replace]",
	  "Create a filter from a snapshot file, verified (checksum, size,\n"
	  "geometry) before anything changes. The filter is named NAME, or by\n"
	  "default after the file: its basename without the extension\n"
	  "(/var/lib/bloom/bad.bloom restores as 'bad'). FILE - reads stdin and\n"
	  "needs --name. A compressed snapshot (save or build --compress) is\n"
	  "decoded first, by bloomctl; the kernel gets the snapshot inside.\n\n"
	  "      --name NAME    the filter's name\n"
	  "      --max-memory B a compressed FILE decodes to at most B (1GiB)\n"
	  "      --replace      replace the contents of an existing filter of the\n"
	  "                     same key type (rules using it see the new contents)\n" },
	{ "save-all", cmd_save_all, "DIR",
	  "Save every filter to DIR/NAME.bloom, with DIR/manifest listing each\n"
	  "filter's geometry. DIR is replaced as one step: the set is written to a\n"
	  "new directory beside it, synced, and renamed over it, so DIR holds exactly\n"
	  "the filters that exist and an interrupted save leaves the previous set\n"
	  "whole. The netfilter programs attached in this namespace (nf status) go\n"
	  "to DIR/nf-attachments. DIR must hold nothing but what save-all writes.\n"
	  "Refused when bloom.ko is not loaded (DIR is then left as it was).\n" },
	{ "restore-all", cmd_restore_all, "DIR [--replace]",
	  "Restore the filters listed in DIR/manifest, then any other DIR/*.bloom,\n"
	  "each named after its file. Without --replace, nothing changes if any name\n"
	  "is taken. A filter whose snapshot is missing or damaged is created empty\n"
	  "with the geometry the manifest records, so that firewall rules naming it\n"
	  "still load; that is logged as an error (stderr and syslog) and the exit\n"
	  "status is 3. Then the netfilter programs of DIR/nf-attachments not\n"
	  "attached are attached again; one that cannot be is logged, exit status\n"
	  "3. Exit status 2 if some filter could not be restored at all.\n\n"
	  "      --replace      replace the contents of existing filters (a damaged\n"
	  "                     snapshot then leaves the existing filter as it is)\n" },
	{ "build", cmd_build,
	  "--out FILE [GEOMETRY | --transport | --kind K [--values]] [--compress]\n"
	  "               [KEY...] [-f FILE[=VALUE]]...",
	  "Build a snapshot file offline, without the kernel, from a list of keys.\n"
	  "The same geometry, seed and keys give exactly the bits of 'create --seed'\n"
	  "and 'add'. Without --seed the seed is random. Without --capacity or\n"
	  "--bits the filter is sized for the distinct keys read. More distinct keys\n"
	  "than the capacity are refused (nothing is written) unless --force.\n\n"
	  OUT_HELP "\n"
	  "      --allow-empty  an input without a key builds an empty filter\n"
	  "                     (otherwise an error: nothing is written)\n"
	  "      --force        build past the capacity anyway\n"
	  "      --out FILE     the snapshot to write (- is stdout)\n"
	  COMPRESS_HELP
	  "      --transport    the m, k and layout of calc --transport for\n"
	  "                     --capacity and --fp-rate: the smallest compressed\n"
	  "                     snapshot; implies --compress\n"
	  "      --max-memory B with --transport: the filter's memory at most B\n"
	  "                     (default 1GiB, the kernel's default limit)\n"
	  "  -f, --file FILE    read keys from FILE (- is stdin); repeatable\n"
	  GEOMETRY_HELP "\n" STATIC_HELP "\n" PREFIX_HELP "\n" KEYS_HELP },
	{ "union", cmd_union, "DST SRC",
	  "Add every key of SRC to DST (bitwise OR). Both need the same layout,\n"
	  "size, hashes, seed and key type: create them with the same --seed.\n" },
	{ "intersect", cmd_intersect, "DST SRC",
	  "Keep in DST only what SRC also holds (bitwise AND; counting: the smaller\n"
	  "counter). Same requirements as union.\n" },
	{ "halve", cmd_halve, "NAME...",
	  "Fold a filter to half its size, keeping every key (the false-positive\n"
	  "rate rises). Needs a power-of-two probe range: m for standard and\n"
	  "counting, m/k for partitioned, m/512 for blocked.\n" },
	{ "rotate", cmd_rotate, "NAME...",
	  "Rotate aging filters now: the oldest generation is emptied and becomes\n"
	  "the newest. Keys added before the last G-1 rotations are forgotten.\n" },
	{ "estimate", cmd_estimate, "NAME [OTHER]",
	  "Estimate the number of distinct keys in a filter from its fill, or with\n"
	  "two filters of the same geometry and seed, the sizes of their\n"
	  "intersection and union.\n" },
	{ "calc", cmd_calc,
	  "--capacity N [--fp-rate E] [--grow [GROWING] | --transport] | -f LIST [--fp-rate E]",
	  "Size a filter for each layout: m, k, bits per key, memory and the exact\n"
	  "theoretical false-positive rate at capacity, beside the information-\n"
	  "theoretic lower bound log2(1/E) bits per key. Needs no kernel.\n"
	  "With --grow, what a growing filter of first capacity N costs once it\n"
	  "holds 10, 100 and 1000 times N keys (stages, memory, bits per key, its\n"
	  "rate then, and the rate it stays below), beside a filter sized for that\n"
	  "many keys from the start (SIZED), in one layout.\n"
	  "With --transport, the filter for shipping (Mitzenmacher, Compressed\n"
	  "Bloom Filters): for k = 1 to 8 in the standard and blocked layouts,\n"
	  "the smallest m at E, its memory, and the expected size of its\n"
	  "compressed snapshot (WIRE), beside the sized filters; the smallest WIRE\n"
	  "within --max-memory is the one build --transport builds.\n"
	  "With -f LIST (a net list), the prefix lengths its prefixes could be\n"
	  "stored at: for 1 to 8 lengths and for all of them, the lengths, the keys\n"
	  "they become and the memory of a blocked filter whose lookups (a probe\n"
	  "per length) stay at E; * marks the default of build and add.\n\n"
	  "  -f, --file LIST    a net list (- is stdin): its prefix lengths\n"
	  "  -n, --capacity N   keys (suffixes k, M, G; or 1e6)\n"
	  "  -e, --fp-rate E    target rate, 1e-9 to 0.5: 0.01, 1% or 1e-3 (default 1%)\n"
	  "  -l, --layout L     with --grow: blocked (default), standard or\n"
	  "                     partitioned\n"
	  GROW_HELP
	  "      --transport    sizes for the smallest compressed snapshot\n"
	  "      --max-memory B with --transport: memory at most B (default 1GiB)\n\n"
	  "Exit status 2 when no layout can hold N keys at E under the size cap.\n" },
	{ "xdp", cmd_xdp,
	  "attach IFACE --set NAME [--dir src|dst] [--key addr|net] [--mode native|generic]\n"
	  "       [--priority P|--plain|--tc] | detach IFACE | detach --all | status [IFACE]",
	  "Drop packets at XDP, before the stack, whose source (or destination)\n"
	  "address is in an addr filter, or inside a prefix of a net filter. The\n"
	  "filter is that of the interface's network namespace, named by its id\n"
	  "(info): renames and swaps keep it; once it is destroyed every packet\n"
	  "passes and the errors counter grows. Needs bloom.ko's BTF and an\n"
	  "Ethernet device.\n\n"
	  "  attach IFACE       attach (or replace bloomctl's program on IFACE)\n"
	  "                     through libxdp's dispatcher, beside programs\n"
	  "                     loaded through it (xdp-filter, xdp-loader);\n"
	  "                     alone where the dispatcher cannot load (said so).\n"
	  "                     Refused when IFACE has another program attached\n"
	  "                     alone\n"
	  "      --set NAME     the filter\n"
	  "      --dir D        src (default) or dst address\n"
	  "      --key K        addr or net: refuse a filter of the other type\n"
	  "      --mode M       native (default; the driver's) or generic\n"
	  "      --priority P   its place in the dispatcher: lower runs first\n"
	  "                     (default 50); a drop ends the chain\n"
	  "      --plain        alone, without the dispatcher\n"
	  "      --tc           at tc ingress (clsact) instead of XDP: after GRO,\n"
	  "                     beside other tc filters\n"
	  "  detach IFACE       detach bloomctl's programs (XDP and tc); --all:\n"
	  "                     from every interface of this namespace\n"
	  "  status [IFACE]     each XDP program (each of the dispatcher's, with\n"
	  "                     its priority), and bloomctl's tc ones: filter,\n"
	  "                     mode, packets seen, matched, dropped, and errors\n"
	  "                     (filter gone)\n\n"
	  "libxdp pins the dispatcher in bpffs: $LIBXDP_BPFFS, else $BLOOM_BPFFS,\n"
	  "else /sys/fs/bpf.\n"
	  "Attachments are not saved by save-all: an interface may come up later,\n"
	  "so attach from the network's own configuration (an if-up hook).\n" },
	{ "nf", cmd_nf,
	  "attach --set NAME [--hook H] [--priority P] [--family ip|ip6|inet]\n"
	  "       [--dir src|dst] [--key addr|net] | detach [--hook H] | status",
	  "Drop packets at a netfilter hook whose source (or destination) address\n"
	  "is in an addr filter, or inside a prefix of a net filter, with a BPF\n"
	  "program of its own (Linux 6.4 or later): no iptables, no nft_compat,\n"
	  "ordered among nftables' chains by its priority. The filter is that of\n"
	  "this network namespace, named by its id (info), as for xdp. Needs\n"
	  "bloom.ko's BTF; on older kernels use -m bloom.\n\n"
	  "  attach             attach, for this namespace\n"
	  "      --set NAME     the filter\n"
	  "      --hook H       prerouting (default), input, forward, output or\n"
	  "                     postrouting\n"
	  "      --priority P   as nft's (default -250: before conntrack at -200\n"
	  "                     and a filter chain at 0); a priority another\n"
	  "                     hook holds is refused\n"
	  "      --family F     ip, ip6 or inet (both, the default)\n"
	  "      --dir D        src (default) or dst address\n"
	  "      --key K        addr or net: refuse a filter of the other type\n"
	  "  detach             detach bloomctl's programs of this namespace\n"
	  "                     (--hook: at that hook only)\n"
	  "  status             each attachment: filter, packets seen, matched,\n"
	  "                     dropped, errors (filter gone)\n\n"
	  "Attachments are pinned in bpffs (/sys/fs/bpf/bloom-nf, or\n"
	  "$BLOOM_BPFFS/bloom-nf) and last until detached; save-all records them\n"
	  "and restore-all attaches them again, so the boot unit brings them back.\n" },
	{ "help", cmd_help, "[SUBCOMMAND]",
	  "Show the help of bloomctl or of a subcommand.\n" },
	{ NULL, NULL, NULL, NULL }
};

const struct command *command_find(const char *name)
{
	const struct command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

#define COMMON_HELP \
"\nCommon options:\n" \
"  -o, --output FMT   json or table (default); files are written with --out\n" \
"      --json         the same as -o json\n" \
"  -q, --quiet        print nothing but errors\n" \
"  -h, --help         this help\n" \
"\nExit status: 0 success; 1 test found an absent key; 2 error.\n"

void command_help(const char *name)
{
	const struct command *c = command_find(name);

	if (!c)
		usage_error(NULL, "unknown subcommand '%s'", name);
	printf("Usage: bloomctl %s %s\n\n%s%s", c->name, c->synopsis, c->help,
	       COMMON_HELP);
}

static void usage(void)
{
	const struct command *c;

	printf("Usage: bloomctl [-o json|table] [-q] SUBCOMMAND [ARGS...]\n"
	       "       bloomctl SUBCOMMAND --help\n"
	       "       bloomctl --version\n\n"
	       "Manage the kernel's named Bloom filters (bloom.ko, %s) and\n"
	       "their snapshot files.\n\nSubcommands:\n", BLOOM_DEVICE);
	for (c = commands; c->name; c++)
		printf("  %-12s %s\n", c->name, c->synopsis);
	printf("%s\nSee bloomctl(8).\n", COMMON_HELP);
}

int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		usage_error("help", "too many arguments");
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		command_help("help");
	else if (argc == 2)
		command_help(argv[1]);
	else
		usage();
	return EXIT_OK;
}
