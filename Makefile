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
# The guests' architecture: arm (the default) or arm64.  `make run` may
# pair two (EP_ARCH, RC_ARCH); each architecture's guest files are in
# $(B)/<arch>/ and its kernel objects in $(KCACHE)/obj-<arch>-<variant>.
ARCH ?= arm
EP_ARCH ?= $(ARCH)
RC_ARCH ?= $(ARCH)
CROSS_arm := arm-linux-gnueabihf-
CROSS_arm64 := aarch64-linux-gnu-
KIMAGE_arm := zImage
KIMAGE_arm64 := Image
ifeq ($(CROSS_$(ARCH)),)
$(error ARCH=$(ARCH): the guests are arm or arm64)
endif
CROSS_COMPILE := $(CROSS_$(ARCH))
KIMAGE := $(KIMAGE_$(ARCH))
G := $(B)/$(ARCH)
# A variant is kernel/<arch>.config + vlink.config, plus
# kernel/<variant>.config (debug, kunit...); ntb+debug merges both.
KVARIANT ?= vlink
KFRAGMENTS := $(REPO)/kernel/$(ARCH).config $(REPO)/kernel/vlink.config \
	$(patsubst %,$(REPO)/kernel/%.config,\
		$(filter-out vlink,$(subst +, ,$(KVARIANT))))
KOBJ := $(KCACHE)/obj-$(ARCH)-$(KVARIANT)
JOBS ?= $(shell nproc)
KMAKE = $(MAKE) -s -C $(KTREE) O=$(KOBJ) ARCH=$(ARCH) \
	CROSS_COMPILE=$(CROSS_COMPILE) -j$(JOBS)

export KCACHE KERNEL_TARBALL ARCH CROSS_COMPILE

HOSTCC ?= gcc
HOST_CFLAGS := -O2 -Wall -Wextra -Werror

PYTHON ?= python3

.PHONY: all deps tree kernel pcitest initramfs modules dtbs guest uboot \
	server guests run test soak bench patches clean distclean

all: guests

deps:
	@$(REPO)/scripts/deps.sh

tree: deps
	@$(REPO)/scripts/kernel-tree.sh

kernel: tree
	@$(REPO)/scripts/kernel-config.sh $(KTREE) $(KOBJ) $(KFRAGMENTS)
	@echo "  KBUILD  $(KIMAGE) ($(ARCH) $(KVARIANT))"
	@$(KMAKE) $(KIMAGE)
	@mkdir -p $(G)
	@cmp -s $(KOBJ)/arch/$(ARCH)/boot/$(KIMAGE) $(G)/$(KIMAGE)-$(KVARIANT) \
		|| cp $(KOBJ)/arch/$(ARCH)/boot/$(KIMAGE) $(G)/$(KIMAGE)-$(KVARIANT)

# The stock host-side test tool, cross-built from the tree, unmodified.
pcitest: tree
	@$(REPO)/scripts/build-pcitest.sh $(KCACHE)/pristine-6.1 $(G)/pcitest

# Guest tools of ours: static, for the guests' userspace.
GUEST_TOOLS := $(G)/memcpy-bench $(G)/tcp-xfer

$(GUEST_TOOLS): $(G)/%: $(REPO)/qemu/bench/%.c | deps
	@mkdir -p $(G)
	@echo "  CC      $@"
	@$(CROSS_COMPILE)gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

initramfs: kernel pcitest $(GUEST_TOOLS)
	@$(REPO)/scripts/mkinitramfs.sh $(KOBJ)/usr/gen_init_cpio \
		$(KCACHE)/pristine-6.1 $(G)/pcitest $(G)/initramfs.cpio.gz \
		$(GUEST_TOOLS)

# A variant's modules (kernel/ntb.config's), for its guests to load: its
# initramfs is the guests' one plus /lib/modules; the rig boots
# initramfs-<variant>.cpio.gz where one exists.
modules: kernel initramfs
	@$(KMAKE) modules
	@$(REPO)/scripts/mkmodules-initramfs.sh $(KOBJ)/usr/gen_init_cpio \
		$(KOBJ) $(G)/initramfs.cpio.gz $(G)/initramfs-$(KVARIANT).cpio.gz

dtbs: deps
	@$(REPO)/scripts/mkdtbs.sh $(G)/dtb

# Everything a guest of ARCH boots with.
guest: kernel initramfs dtbs

# The board's boot path for ARCH's guests: a FIT image of those files and
# a boot disk per role that Debian's U-Boot boots (make run BOOT=uboot).
uboot: guest
	@$(REPO)/scripts/mkfit.sh $(G) $(G)/$(KIMAGE)-vlink

server: deps
	@$(MAKE) -s -C $(REPO)/qemu/server O=$(B)/server

# How `make run` boots the guests: kernel (QEMU's -kernel) or uboot.
BOOT ?= kernel
GUEST_GOALS := guest $(if $(filter uboot,$(BOOT)),uboot)

guests: server
	@$(MAKE) -s -C $(REPO) $(GUEST_GOALS) ARCH=$(EP_ARCH)
	@[ $(RC_ARCH) = $(EP_ARCH) ] || \
		$(MAKE) -s -C $(REPO) $(GUEST_GOALS) ARCH=$(RC_ARCH)

# What `make run` builds: pair, rc-2ep (one root complex, two endpoints)
# or ep-2rc (one endpoint with two links, each to its own root complex),
# qemu/vlinkrig.py: TOPOLOGIES; or, on the ntb kernel, vntb (a pair joined
# by the tree's vNTB stack) or ntb (the tree's pci-epf-ntb joining the two
# root complexes of ep-2rc-far), qemu/vlinkntb.py.
TOPOLOGY ?= pair

run: guests
	@$(if $(filter vntb ntb,$(TOPOLOGY)),$(MAKE) -s -C $(REPO) modules \
		ARCH=arm KVARIANT=ntb)
	@VLINK_EP_ARCH=$(EP_ARCH) VLINK_RC_ARCH=$(RC_ARCH) VLINK_BOOT=$(BOOT) \
		$(PYTHON) $(REPO)/qemu/vlink-run.py --build $(B) \
		--topology $(TOPOLOGY)

# The guest suites run on the normal kernel and again on the debug kernel
# (kernel/debug.config), which must stay silent; the core suites also on
# arm64, on mixed pairs and through U-Boot (tests/run-all.py: PASSES).
TEST_PASSES ?= arm,debug,arm64,arm-ep-arm64-rc,arm64-ep-arm-rc,uboot,uboot-arm64

test: guests
	@$(MAKE) -s -C $(REPO) kernel ARCH=arm KVARIANT=kunit
	@$(MAKE) -s -C $(REPO) kernel ARCH=arm KVARIANT=debug
	@$(MAKE) -s -C $(REPO) modules ARCH=arm KVARIANT=ntb
	@$(MAKE) -s -C $(REPO) modules ARCH=arm KVARIANT=ntb+debug
	@$(MAKE) -s -C $(REPO) uboot ARCH=arm
	@$(MAKE) -s -C $(REPO) guest uboot ARCH=arm64
	@$(MAKE) -s -C $(REPO)/tests/server O=$(B)/server
	@$(PYTHON) $(REPO)/tests/run-all.py --build $(B) \
		--passes $(TEST_PASSES)

# A longer lifecycle soak and hostile-endpoint fuzz than make test's: a
# random seed unless SEED is given, on KVARIANT's kernel (vlink or debug).
SEED ?= random
STEPS ?= 20000
FUZZ ?= 20000

soak: guests
	@VLINK_SOAK_SEED=$(SEED) VLINK_SOAK_STEPS=$(STEPS) \
		VLINK_FUZZ_SEED=$(SEED) VLINK_FUZZ_COUNT=$(FUZZ) \
		$(PYTHON) $(REPO)/tests/run-all.py --build $(B) \
		--passes $(if $(filter debug,$(KVARIANT)),debug,arm) \
		--only test_soak,test_fuzz

# Figures for the link: transfer rates, interrupt latency, boot times, and
# TCP over vNTB (on the ntb kernel).
bench: guests
	@$(MAKE) -s -C $(REPO) modules ARCH=arm KVARIANT=ntb
	@$(PYTHON) $(REPO)/tests/bench.py --build $(B) --csv $(B)/bench.csv

# The kernel sources as a git-am-able series against pristine 6.1.
patches: tree
	@$(REPO)/scripts/mkpatches.sh $(B)/patches

clean:
	rm -rf $(B)

# Also drop the cached kernel tree and objects.
distclean: clean
	rm -rf $(KTREE) $(KCACHE)/obj-* $(KCACHE)/series-base \
		$(KCACHE)/series-tree
