# SPDX-License-Identifier: GPL-2.0
# DKMS's build command (dkms.conf MAKE[0]): the modules, then their BTF
# where the kernel's headers cannot make it (scripts/module-btf). A
# makefile, so that what DKMS adds to the command line (-j, KERNELRELEASE=,
# CC=clang and LD=ld.lld for a clang-built kernel) reaches the kernel's
# make as it would without this step.
#
#   make -f scripts/dkms.mk KDIR=... KVER=... M=BUILD-DIR

all:
	$(MAKE) -C $(KDIR) M=$(M) modules
	sh $(M)/scripts/module-btf $(KVER) $(KDIR) $(M)/bloom.ko

.PHONY: all
