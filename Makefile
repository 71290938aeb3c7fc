# SPDX-License-Identifier: GPL-2.0
#
# vlink: a PCI endpoint framework and a virtual PCIe link between two QEMU
# ARM guests.  `make run` and `make test` are the two commands; see README.md.

REPO := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
B := $(REPO)/build

# The kernel tree and its objects live outside the repository.
KCACHE ?= $(HOME)/.cache/vlink
KERNEL_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
KTREE := $(KCACHE)/tree-6.1
# A variant is vlink.config plus kernel/<variant>.config (debug, kunit...).
KVARIANT ?= vlink
KFRAGMENTS := $(REPO)/kernel/vlink.config \
	$(if $(filter-out vlink,$(KVARIANT)),$(REPO)/kernel/$(KVARIANT).config)
KOBJ := $(KCACHE)/obj-arm-$(KVARIANT)
JOBS ?= $(shell nproc)
CROSS_COMPILE ?= arm-linux-gnueabihf-
KMAKE = $(MAKE) -s -C $(KTREE) O=$(KOBJ) ARCH=arm \
	CROSS_COMPILE=$(CROSS_COMPILE) -j$(JOBS)

export KCACHE KERNEL_TARBALL

HOSTCC ?= gcc
HOST_CFLAGS := -O2 -Wall -Wextra -Werror

PYTHON ?= python3

.PHONY: all deps tree kernel pcitest initramfs dtbs server guests \
	run test soak bench patches clean distclean

all: guests

deps:
	@$(REPO)/scripts/deps.sh

tree: deps
	@$(REPO)/scripts/kernel-tree.sh

kernel: tree
	@$(REPO)/scripts/kernel-config.sh $(KTREE) $(KOBJ) $(KFRAGMENTS)
	@echo "  KBUILD  zImage ($(KVARIANT))"
	@$(KMAKE) zImage
	@mkdir -p $(B)
	@cmp -s $(KOBJ)/arch/arm/boot/zImage $(B)/zImage-$(KVARIANT) || \
		cp $(KOBJ)/arch/arm/boot/zImage $(B)/zImage-$(KVARIANT)

# The stock host-side test tool, cross-built from the tree, unmodified.
pcitest: tree
	@$(REPO)/scripts/build-pcitest.sh $(KCACHE)/pristine-6.1 $(B)/pcitest

# A guest tool of ours: static, for the guests' ARM userspace.
$(B)/memcpy-bench: $(REPO)/qemu/bench/memcpy-bench.c | deps
	@mkdir -p $(B)
	@echo "  CC      $@"
	@$(CROSS_COMPILE)gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

initramfs: kernel pcitest $(B)/memcpy-bench
	@$(REPO)/scripts/mkinitramfs.sh $(KOBJ)/usr/gen_init_cpio \
		$(KCACHE)/pristine-6.1 $(B)/pcitest $(B)/initramfs.cpio.gz \
		$(B)/memcpy-bench

dtbs: deps
	@$(REPO)/scripts/mkdtbs.sh $(B)/dtb

server: deps
	@$(MAKE) -s -C $(REPO)/qemu/server O=$(B)/server

guests: kernel initramfs dtbs server

run: guests
	@$(PYTHON) $(REPO)/qemu/vlink-run.py --build $(B)

# The guest suites run on the normal kernel and again on the debug kernel
# (kernel/debug.config), which must stay silent.
TEST_KVARIANTS ?= vlink,debug

test: guests
	@$(MAKE) -s -C $(REPO) kernel KVARIANT=kunit
	@$(MAKE) -s -C $(REPO) kernel KVARIANT=debug
	@$(MAKE) -s -C $(REPO)/tests/server O=$(B)/server
	@$(PYTHON) $(REPO)/tests/run-all.py --build $(B) \
		--kvariants $(TEST_KVARIANTS)

# A longer lifecycle soak and hostile-endpoint fuzz than make test's: a
# random seed unless SEED is given, on KVARIANT's kernel (vlink or debug).
SEED ?= random
STEPS ?= 20000
FUZZ ?= 20000

soak: guests
	@VLINK_SOAK_SEED=$(SEED) VLINK_SOAK_STEPS=$(STEPS) \
		VLINK_FUZZ_SEED=$(SEED) VLINK_FUZZ_COUNT=$(FUZZ) \
		$(PYTHON) $(REPO)/tests/run-all.py --build $(B) \
		--kvariants $(KVARIANT) --only test_soak,test_fuzz

# Figures for the link: transfer rates, interrupt latency, boot times.
bench: guests
	@$(PYTHON) $(REPO)/tests/bench.py --build $(B) --csv $(B)/bench.csv

# The kernel sources as a git-am-able series against pristine 6.1.
patches: tree
	@$(REPO)/scripts/mkpatches.sh $(B)/patches

clean:
	rm -rf $(B)

# Also drop the cached kernel tree and objects.
distclean: clean
	rm -rf $(KTREE) $(KCACHE)/obj-arm-* $(KCACHE)/series-base \
		$(KCACHE)/series-tree
