# SPDX-License-Identifier: GPL-2.0
#
#   make demo         the demo: a real blocklist dropping traffic in a VM
#   make              modules (bloom.ko, xt_bloom.ko, bloom_kunit.ko), tools
#   make check        everything: deps, kernel, builds, unit tests, fuzzing,
#                     KUnit and integration tests in the QEMU guest
#   make check-reliability  fault injection (every ioctl, module load,
#                     namespace creation, rule insertion), stress and the
#                     KCSAN flavour; prints the figures (scripts/check-reliability)
#   make compat-check build the modules against Debian's 6.1 and 6.12 headers
#   make bench        benchmarks: the core natively, the packet path in a
#                     User-Mode Linux kernel; build/bench/report.md
#   make install, userspace, deb, check-stock: see install.mk
#
# KDIR defaults to the running kernel's build tree when there is one, and
# otherwise to the project's own test kernel (built and cached on demand).

BUILD    := build
CORE_SRC := $(wildcard module/core/*.c)
CORE_HDR := $(wildcard module/core/*.h) uapi/bloom.h
TEST_SRC := tools/tests/kunit_shim.c kunit/geometry_test.c \
	    kunit/filter_test.c kunit/algebra_test.c kunit/snapshot_test.c \
	    kunit/estimate_test.c kunit/digest_test.c kunit/cuckoo_test.c \
	    kunit/fuse_test.c kunit/summary_test.c
TEST_HDR := tools/tests/kunit_shim.h kunit/bloom_test.h kunit/vectors.h
BLOOMCTL_SRC := $(wildcard tools/bloomctl/*.c)
BLOOMCTL_HDR := $(wildcard tools/bloomctl/*.h)

CC       ?= cc
CLANG    ?= clang
UCFLAGS  := -std=gnu11 -g -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
LDLIBS   := -lxxhash
# bloomctl's compressed snapshots (tools/bloomctl/compress.c)
BLOOMCTL_LIBS := -lzstd -lxdp -lbpf

host_kdir := /lib/modules/$(shell uname -r)/build
kdir = $(or $(KDIR),$(if $(wildcard $(host_kdir)/Makefile),$(host_kdir),$(shell scripts/test-kernel --quiet)))

.PHONY: all modules tools deps check check-reliability compat-check sparse bench clean unit-test fuzz demo

all: modules tools

deps:
	@scripts/deps

modules:
	$(MAKE) -C $(kdir) M=$(CURDIR) W=1 modules

sparse:
	$(MAKE) -C $(kdir) M=$(CURDIR) C=2 CHECK="sparse -Wno-decl" modules

tools: $(BUILD)/unit-tests $(BUILD)/ioctl-test64 \
	$(BUILD)/ioctl-test32 $(BUILD)/hardening-test \
	$(BUILD)/xtables/libxt_bloom.so $(BUILD)/bloom-send \
	$(BUILD)/nft-compat-test $(BUILD)/caps-test \
	$(BUILD)/fault-test $(BUILD)/fail-nth $(BUILD)/libfailnth.so \
	$(BUILD)/stress-test $(BUILD)/ioctl-fuzz $(BUILD)/snapflip-test \
	$(if $(BLOOMCTL_SRC),$(BUILD)/bloomctl $(BUILD)/prefix-test) \
	$(BUILD)/bloom_xdp.bpf.o $(BUILD)/bloom_nf.bpf.o $(BUILD)/kfunc-test $(BUILD)/kfunc_test.bpf.o \
	$(BUILD)/xdp_pass.bpf.o $(BUILD)/first-seen $(BUILD)/first_seen.bpf.o

# BPF programs: Debian's clang, libbpf-dev's headers, BTF for the kfuncs.
BPF_CFLAGS := -O2 -g -Wall -Werror -target bpf \
	      -I/usr/include/$(shell gcc -dumpmachine)
$(BUILD)/%.bpf.o: tools/xdp/%.bpf.c tools/xdp/bloom_xdp.h tools/xdp/bloom_nf.h \
		tools/xdp/bloom_counters.bpf.h
	@mkdir -p $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

# The iptables extension; tests find it with XTABLES_LIBDIR=build/xtables:...
$(BUILD)/xtables/libxt_bloom.so: tools/libxt_bloom/libxt_bloom.c \
		module/core/names.c uapi/xt_bloom.h $(CORE_HDR)
	@mkdir -p $(BUILD)/xtables
	$(CC) $(UCFLAGS) -O2 -fPIC -shared -o $@ $(filter %.c,$^) -lxtables


$(BUILD)/bloomctl: $(BLOOMCTL_SRC) $(BLOOMCTL_HDR) $(CORE_SRC) $(CORE_HDR) \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $(BLOOMCTL_SRC) $(CORE_SRC) $(LDLIBS) \
		$(BLOOMCTL_LIBS) -lm

$(BUILD)/ioctl-test64 $(BUILD)/ioctl-test32: $(BUILD)/ioctl-test%: \
		tools/tests/ioctl_test.c uapi/bloom.h uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -m$* -o $@ tools/tests/ioctl_test.c

$(BUILD)/hardening-test: tools/tests/hardening_test.c uapi/bloom.h \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -pthread -o $@ $< $(LDLIBS)

$(BUILD)/fault-test: tools/tests/fault_test.c uapi/bloom.h uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< $(LDLIBS)

$(BUILD)/fail-nth: tools/tests/fail_nth.c
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $<

$(BUILD)/libfailnth.so: tools/tests/fail_nth.c
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -fPIC -shared -DFAILNTH_PRELOAD -o $@ $< -ldl

$(BUILD)/stress-test: tools/tests/stress_test.c uapi/bloom.h \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< $(LDLIBS)

$(BUILD)/unit-tests: $(CORE_SRC) $(CORE_HDR) $(TEST_SRC) $(TEST_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O1 $(SANITIZE) -o $@ $(CORE_SRC) $(TEST_SRC) $(LDLIBS) -lm

$(BUILD)/snapshot-fuzz: tools/tests/snapshot_fuzz.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CLANG) $(UCFLAGS) -O1 -fsanitize=fuzzer,address,undefined \
		-o $@ tools/tests/snapshot_fuzz.c $(CORE_SRC) $(LDLIBS)

# bloomctl's key and key-file parsers: everything but main() is linked.
$(BUILD)/keys-fuzz $(BUILD)/input-fuzz: $(BUILD)/%-fuzz: tools/tests/%_fuzz.c \
		$(BLOOMCTL_SRC) $(BLOOMCTL_HDR) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CLANG) $(UCFLAGS) -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all \
		-o $@ $< $(filter-out tools/bloomctl/main.c,$(BLOOMCTL_SRC)) \
		$(CORE_SRC) $(LDLIBS) $(BLOOMCTL_LIBS) -lm

# Prefix expansion against a brute-force walk: bloomctl but main() linked.
$(BUILD)/prefix-test: tools/tests/prefix_test.c $(BLOOMCTL_SRC) \
		$(BLOOMCTL_HDR) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< \
		$(filter-out tools/bloomctl/main.c,$(BLOOMCTL_SRC)) \
		$(CORE_SRC) $(LDLIBS) $(BLOOMCTL_LIBS) -lm

# The kfuncs through BPF_PROG_TEST_RUN, keys parsed as bloomctl does.
$(BUILD)/kfunc-test: tools/tests/kfunc_test.c $(BLOOMCTL_SRC) \
		$(BLOOMCTL_HDR) $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< \
		$(filter-out tools/bloomctl/main.c,$(BLOOMCTL_SRC)) \
		$(CORE_SRC) $(LDLIBS) $(BLOOMCTL_LIBS) -lm

$(BUILD)/kfunc_test.bpf.o $(BUILD)/xdp_pass.bpf.o: $(BUILD)/%.bpf.o: \
		tools/tests/%.bpf.c
	@mkdir -p $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

# samples/xdp_first_seen: the kfunc sample, built and tested as shipped.
FIRST_SEEN := samples/xdp_first_seen
$(BUILD)/first_seen.bpf.o: $(FIRST_SEEN)/first_seen.bpf.c $(FIRST_SEEN)/first_seen.h
	@mkdir -p $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/first-seen: $(FIRST_SEEN)/first_seen.c $(FIRST_SEEN)/first_seen.h \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -Iuapi -o $@ $< -lbpf

$(BUILD)/ioctl-fuzz: tools/tests/ioctl_fuzz.c uapi/bloom.h uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $<

$(BUILD)/snapflip-test: tools/tests/snapflip_test.c uapi/bloom.h \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< $(LDLIBS)

$(BUILD)/bench-core: scripts/bench/core.c scripts/bench/libbloom.c \
		scripts/bench/libbloom.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -march=native -o $@ scripts/bench/core.c \
		scripts/bench/libbloom.c $(CORE_SRC) $(LDLIBS) -lbloom -lm

$(BUILD)/bench-netwalk: scripts/bench/netwalk.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -march=native -o $@ scripts/bench/netwalk.c \
		$(CORE_SRC) $(LDLIBS)

$(BUILD)/bloom-send: tools/tests/send.c
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $<

$(BUILD)/nft-compat-test: tools/tests/nft_compat_test.c uapi/xt_bloom.h \
		uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< -lnftnl -lmnl

$(BUILD)/caps-test: tools/tests/caps_test.c uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $<

$(BUILD)/bench-flood: scripts/bench/flood.c
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $<

# make bench's XDP programs and their loader (scripts/bench/xdp).
$(BUILD)/xdp_bench.bpf.o: scripts/bench/xdp.bpf.c scripts/bench/xdp_bench.h
	@mkdir -p $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bench-xdp: scripts/bench/xdp.c scripts/bench/xdp_bench.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ $< -lbpf

$(BUILD)/bench-ioctl: scripts/bench/ioctl.c uapi/bloom_ioctl.h
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ scripts/bench/ioctl.c

$(BUILD)/gen_vectors: tools/tests/gen_vectors.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(UCFLAGS) -O2 -o $@ tools/tests/gen_vectors.c $(CORE_SRC) $(LDLIBS)

unit-test: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

fuzz: $(BUILD)/snapshot-fuzz
	$(BUILD)/snapshot-fuzz -max_total_time=$(or $(FUZZ_SECONDS),30) \
		$(BUILD)/fuzz-corpus

bench:
	@scripts/bench/run

demo:
	@scripts/demo

check:
	@scripts/check

check-reliability:
	@scripts/check-reliability

compat-check:
	@scripts/compat-check

clean:
	rm -rf $(BUILD)
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	find . -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' | xargs rm -f

include install.mk
