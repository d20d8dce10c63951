// SPDX-License-Identifier: GPL-2.0
/*
 * kfunc-test: call bloom.ko's kfuncs through BPF_PROG_TEST_RUN, one call
 * per line of standard input, and print each answer.
 *
 *   kfunc-test OBJECT < lines
 *
 * A line is "PROG ID OP TYPE KEY": PROG xdp, tc, or null (an XDP
 * program that passes an unchecked map value, NULL, as the key), ID a filter id, OP
 * test or add (test and add), TYPE a key type as bloomctl spells it (the
 * key is parsed as that type: a filter of another type can be given it),
 * or raw with KEY in hex ("-" for no bytes). The answer is the kfunc's
 * return value: 1, 0 or a negative errno. Exit status 2 if the object
 * does not load or a line is malformed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "../bloomctl/bloomctl.h"

#define KEY_MAX	176	/* past the longest key, a digest's 168 */

struct kfunc_req {
	u32 id;
	u32 len;
	u32 add;
	s32 result;
	u8 key[KEY_MAX];
};

/* A minimal Ethernet frame: the programs do not read the packet. */
static u8 frame[64] = { [12] = 0x08, [13] = 0x00 };

static size_t parse_hex(const char *s, u8 *out)
{
	size_t n = 0;
	unsigned int b;

	if (!strcmp(s, "-"))
		return 0;
	while (s[0] && s[1] && n < KEY_MAX && sscanf(s, "%2x", &b) == 1) {
		out[n++] = b;
		s += 2;
	}
	if (*s)
		die("bad hex key at '%s'", s);
	return n;
}

static void parse_line(char *line, struct kfunc_req *r, bool *tc,
		       bool *null)
{
	char prog[8], op[8], type[16], why[WHY_MAX];
	u8 rec[KEY_REC_MAX];
	const void *key;
	int at = 0, t;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (sscanf(line, "%7s %u %7s %15s %n", prog, &r->id, op, type,
		   &at) != 4 || !at)
		die("malformed line: %s", line);
	line[strcspn(line, "\n")] = '\0';
	*tc = !strcmp(prog, "tc");
	*null = !strcmp(prog, "null");
	r->add = !strcmp(op, "add");
	if (!strcmp(type, "raw")) {
		r->len = parse_hex(line + at, r->key);
		return;
	}
	t = key_type_parse(type);
	if (t < 0 || key_parse(t, line + at, strlen(line + at), rec, why,
			       sizeof(why)))
		die("bad %s key '%s': %s", type, line + at, t < 0 ? "type" : why);
	key = rec_key(t, rec, &len);
	memcpy(r->key, key, len);
	r->len = len;
}

int main(int argc, char **argv)
{
	struct bpf_program *xdp, *tc, *null;
	struct bpf_object *obj;
	struct bpf_map *bss;
	struct kfunc_req r;
	char line[1024];
	u32 zero = 0;
	bool is_tc, is_null;
	int fd;

	if (argc != 2)
		die("usage: kfunc-test OBJECT < lines");
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj))
		die("cannot load %s", argv[1]);
	xdp = bpf_object__find_program_by_name(obj, "kf_xdp");
	tc = bpf_object__find_program_by_name(obj, "kf_tc");
	null = bpf_object__find_program_by_name(obj, "kf_null");
	bss = bpf_object__find_map_by_name(obj, ".bss");
	if (!xdp || !tc || !null || !bss)
		die("%s is not kfunc-test's object", argv[1]);
	fd = bpf_map__fd(bss);
	while (fgets(line, sizeof(line), stdin)) {
		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame,
			    .data_size_in = sizeof(frame));

		parse_line(line, &r, &is_tc, &is_null);
		if (bpf_map_update_elem(fd, &zero, &r, 0) ||
		    bpf_prog_test_run_opts(bpf_program__fd(is_null ? null :
							   is_tc ? tc : xdp),
					   &run) ||
		    bpf_map_lookup_elem(fd, &zero, &r))
			die("test run: %s", strerror(errno));
		printf("%d\n", r.result);
		fflush(stdout);
	}
	bpf_object__close(obj);
	return 0;
}
