# SPDX-License-Identifier: GPL-2.0
# What users install, and the packages; included by the Makefile.
#
#   make userspace       bloomctl and libxt_bloom.so only (no test programs)
#   make install         modules for KDIR's kernel into
#                        /lib/modules/KVER/updates (then depmod), and
#                        install-userspace
#   make install-userspace   bloomctl, libxt_bloom.so, man pages, bash
#                        completion, uapi headers, the persistence units,
#                        the fail2ban actions (action.d/bloom.conf,
#                        bloom.py), the CrowdSec bouncer, its unit and its
#                        configuration (never replaced: it holds the API key)
#   make install-persist enable persistence: the unit, and a
#                        modules-load.d entry for bloom.ko
#   make uninstall       remove all of it (the saved filters are kept)
#   make deb             build bloom-dkms and bloom-tools in build/deb
#   make check-stock     the integration tests on Debian's packaged kernels
#
# DESTDIR and PREFIX (default /usr/local) are honoured. The iptables
# extension goes where the system's iptables looks for it
# (pkg-config --variable=xtlibdir xtables), whatever PREFIX says.

PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR    ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
SYSCONFDIR ?= /etc
XTLIBDIR   ?= $(or $(shell pkg-config --variable=xtlibdir xtables 2>/dev/null),/usr/lib/xtables)
STATEDIR   ?= /var/lib/bloom
MODULES    := bloom.ko xt_bloom.ko
UAPI_HDRS  := uapi/bloom.h uapi/bloom_ioctl.h uapi/xt_bloom.h

# The kernel release the modules are built for, from the build tree.
kver = $(or $(KVER),$(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(kdir)/include/generated/utsrelease.h 2>/dev/null))
# Uninstalling needs no build tree: the running kernel unless told.
uninstall_kver = $(or $(KVER),$(if $(KDIR),$(kver),$(shell uname -r)))

.PHONY: userspace install install-modules install-userspace install-persist \
	uninstall deb check-stock

userspace: $(BUILD)/bloomctl $(BUILD)/xtables/libxt_bloom.so \
	$(BUILD)/xt_bloom.8 $(BUILD)/bloom.service $(BUILD)/bloom.init \
	$(BUILD)/bloom-crowdsec-bouncer.service $(BUILD)/bloom_xdp.bpf.o \
	$(BUILD)/bloom_nf.bpf.o

# The match's man page fragment, as a page of its own.
$(BUILD)/xt_bloom.8: tools/libxt_bloom/libxt_bloom.man
	@mkdir -p $(BUILD)
	{ printf '.TH XT_BLOOM 8 "" "bloom" "iptables extensions"\n'; \
	  printf '.SH NAME\nbloom \\- iptables match on a Bloom filter of bloom.ko\n'; \
	  printf '.SH SYNOPSIS\n\\fBiptables\\fP ... \\fB\\-m bloom\\fP \\fB\\-\\-bloom\\-set\\fP \\fIname\\fP ...\n'; \
	  printf '.SH DESCRIPTION\n'; cat $<; \
	  printf '.SH SEE ALSO\n\\fBbloomctl\\fP(8), \\fBiptables\\-extensions\\fP(8)\n'; } >$@

$(BUILD)/bloom.service $(BUILD)/bloom.init: $(BUILD)/bloom.%: tools/persist/bloom.%.in
	@mkdir -p $(BUILD)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@STATEDIR@|$(STATEDIR)|g' $< >$@

$(BUILD)/bloom-crowdsec-bouncer.service: tools/crowdsec/bloom-crowdsec-bouncer.service.in
	@mkdir -p $(BUILD)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $< >$@

install: install-modules install-userspace

install-modules: modules
	@test -n "$(kver)" || { echo "install: cannot tell KDIR's kernel release; give KVER=" >&2; exit 1; }
	install -d $(DESTDIR)/lib/modules/$(kver)/updates
	scripts/module-btf $(kver) $(kdir) bloom.ko
	install -m 0644 $(MODULES) $(DESTDIR)/lib/modules/$(kver)/updates/
	$(if $(DESTDIR),,depmod -a $(kver))

install-userspace: userspace
	install -D -m 0755 $(BUILD)/bloomctl $(DESTDIR)$(SBINDIR)/bloomctl
	install -D -m 0644 $(BUILD)/bloom_xdp.bpf.o $(DESTDIR)$(PREFIX)/lib/bloom/bloom_xdp.bpf.o
	install -D -m 0644 $(BUILD)/bloom_nf.bpf.o $(DESTDIR)$(PREFIX)/lib/bloom/bloom_nf.bpf.o
	install -D -m 0644 $(BUILD)/xtables/libxt_bloom.so $(DESTDIR)$(XTLIBDIR)/libxt_bloom.so
	install -D -m 0644 tools/bloomctl/bloomctl.8 $(DESTDIR)$(MANDIR)/man8/bloomctl.8
	install -D -m 0644 $(BUILD)/xt_bloom.8 $(DESTDIR)$(MANDIR)/man8/xt_bloom.8
	install -D -m 0644 tools/bloomctl/bloomctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/bloomctl
	install -d $(DESTDIR)$(INCLUDEDIR)/bloom
	install -m 0644 $(UAPI_HDRS) $(DESTDIR)$(INCLUDEDIR)/bloom/
	install -D -m 0644 $(BUILD)/bloom.service $(DESTDIR)$(UNITDIR)/bloom.service
	install -D -m 0755 $(BUILD)/bloom.init $(DESTDIR)$(SYSCONFDIR)/init.d/bloom
	install -D -m 0644 tools/fail2ban/bloom.conf $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d/bloom.conf
	install -D -m 0644 tools/fail2ban/bloom.py $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d/bloom.py
	install -D -m 0755 tools/crowdsec/bloom-crowdsec-bouncer $(DESTDIR)$(SBINDIR)/bloom-crowdsec-bouncer
	install -D -m 0644 $(BUILD)/bloom-crowdsec-bouncer.service $(DESTDIR)$(UNITDIR)/bloom-crowdsec-bouncer.service
	test -e $(DESTDIR)$(SYSCONFDIR)/crowdsec/bouncers/bloom-crowdsec-bouncer.conf || \
		install -D -m 0600 tools/crowdsec/bloom-crowdsec-bouncer.conf \
			$(DESTDIR)$(SYSCONFDIR)/crowdsec/bouncers/bloom-crowdsec-bouncer.conf

# The modules-load.d entry goes with persistence: a host that saves no
# filter has no reason to load bloom.ko at boot.
install-persist:
	install -D -m 0644 tools/persist/modules-load.conf $(DESTDIR)$(SYSCONFDIR)/modules-load.d/bloom.conf
	install -d -m 0700 $(DESTDIR)$(STATEDIR)
	$(if $(DESTDIR),,if [ -d /run/systemd/system ]; then systemctl daemon-reload && systemctl enable bloom.service; \
		elif command -v update-rc.d >/dev/null; then update-rc.d bloom defaults; fi)

uninstall:
	$(if $(DESTDIR),,-[ ! -d /run/systemd/system ] || systemctl disable bloom.service)
	$(if $(DESTDIR),,-! command -v update-rc.d >/dev/null || update-rc.d -f bloom remove)
	rm -f $(DESTDIR)$(PREFIX)/lib/bloom/bloom_xdp.bpf.o $(DESTDIR)$(PREFIX)/lib/bloom/bloom_nf.bpf.o
	-rmdir $(DESTDIR)$(PREFIX)/lib/bloom
	rm -f $(DESTDIR)$(SBINDIR)/bloomctl $(DESTDIR)$(XTLIBDIR)/libxt_bloom.so \
		$(DESTDIR)$(MANDIR)/man8/bloomctl.8 $(DESTDIR)$(MANDIR)/man8/xt_bloom.8 \
		$(DESTDIR)$(BASHCOMPDIR)/bloomctl $(DESTDIR)$(UNITDIR)/bloom.service \
		$(DESTDIR)$(SYSCONFDIR)/init.d/bloom \
		$(DESTDIR)$(SYSCONFDIR)/modules-load.d/bloom.conf \
		$(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d/bloom.conf \
		$(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d/bloom.py \
		$(DESTDIR)$(SBINDIR)/bloom-crowdsec-bouncer \
		$(DESTDIR)$(UNITDIR)/bloom-crowdsec-bouncer.service \
		$(DESTDIR)$(SYSCONFDIR)/crowdsec/bouncers/bloom-crowdsec-bouncer.conf \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/bloom/,$(notdir $(UAPI_HDRS)))
	-rmdir $(DESTDIR)$(INCLUDEDIR)/bloom
	-rmdir --ignore-fail-on-non-empty $(DESTDIR)$(SYSCONFDIR)/fail2ban/action.d $(DESTDIR)$(SYSCONFDIR)/fail2ban
	-rmdir --ignore-fail-on-non-empty $(DESTDIR)$(SYSCONFDIR)/crowdsec/bouncers $(DESTDIR)$(SYSCONFDIR)/crowdsec
	rm -f $(addprefix $(DESTDIR)/lib/modules/$(uninstall_kver)/updates/,$(MODULES))
	$(if $(DESTDIR),,-depmod -a $(uninstall_kver))

deb:
	@scripts/make-deb

check-stock:
	@scripts/check-stock
