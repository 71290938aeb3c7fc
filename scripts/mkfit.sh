#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfit.sh GUESTDIR KERNEL: the U-Boot boot path of $ARCH guests, from the
# kernel image and the files `make guest` left in GUESTDIR (initramfs,
# dtb/).  In GUESTDIR/uboot:
#   vlink.its, vlink.fit  a FIT image made by mkimage: the kernel, the
#                         initramfs and the device trees, with one
#                         configuration per role (ep, rc)
#   boot-ep.img, boot-rc.img
#                         a board's boot disk per role: an MBR partition
#                         holding the FIT and a boot.scr that loads it and
#                         boots that role's configuration, which U-Boot's
#                         distro boot finds and runs on its own
#
# Debian's U-Boot for QEMU is built without CONFIG_OF_LIBFDT_OVERLAY (it
# says "config with overlays but CONFIG_OF_LIBFDT_OVERLAY not set" to a
# configuration that lists overlays), so each role's tree is the virt board's
# with our overlay applied by fdtoverlay when the image is made (mkdtbs.sh).
set -euo pipefail

dir=$(cd "$1" && pwd)
kernel=$(realpath "$2")
out=$dir/uboot
: "${ARCH:?ARCH must name the architecture of the guests}"
initramfs=$dir/initramfs.cpio.gz
# Where U-Boot puts each part in the guest's RAM (virt: from 0x40000000;
# U-Boot keeps QEMU's tree at the start and relocates itself to the top).
kernel_load=0x40400000		# 2 MiB aligned, as arm64's Image wants
fdt_load=0x43000000
initramfs_load=0x44000000
fit_load=0x48000000
cmdline="console=ttyAMA0 panic=-1 oops=panic"

inputs=$( (cat "$0"; sha256sum "$kernel" "$initramfs" "$dir"/dtb/{ep,rc}.dtb) |
	sha256sum)
[ "$(cat "$out/.inputs" 2>/dev/null)" = "$inputs" ] && exit 0
echo "  FIT     $out/vlink.fit and boot disks ($ARCH)"
mkdir -p "$out"

# image NAME DESCRIPTION FILE TYPE LOAD [PROPERTY...]: one FIT image node.
image() {
	local name=$1 desc=$2 file=$3 type=$4 load=$5 prop
	shift 5
	printf '\t\t%s {\n' "$name"
	printf '\t\t\tdescription = "%s";\n' "$desc"
	printf '\t\t\tdata = /incbin/("%s");\n' "$file"
	printf '\t\t\ttype = "%s";\n\t\t\tarch = "%s";\n' "$type" "$ARCH"
	for prop in "$@"; do
		printf '\t\t\t%s;\n' "$prop"
	done
	printf '\t\t\tcompression = "none";\n\t\t\tload = <%s>;\n' "$load"
	printf '\t\t\thash { algo = "sha256"; };\n\t\t};\n'
}

{
	printf '/dts-v1/;\n\n/ {\n'
	printf '\tdescription = "vlink guest (%s): kernel, initramfs, trees";\n' \
		"$ARCH"
	printf '\t#address-cells = <1>;\n\n\timages {\n'
	image kernel "Linux 6.1 with the vlink drivers" "$kernel" kernel \
		"$kernel_load" 'os = "linux"' "entry = <$kernel_load>"
	image initramfs "busybox, pcitest and our scripts" "$initramfs" \
		ramdisk "$initramfs_load" 'os = "linux"'
	for role in ep rc; do
		image "fdt-$role" "virt board + dts/vlink-$role.dtso" \
			"$dir/dtb/$role.dtb" flat_dt "$fdt_load"
	done
	printf '\t};\n\n\tconfigurations {\n\t\tdefault = "rc";\n'
	for role in ep rc; do
		printf '\t\t%s {\n\t\t\tdescription = "vlink %s";\n' \
			"$role" "$role"
		printf '\t\t\tkernel = "kernel";\n\t\t\tramdisk = "initramfs";\n'
		printf '\t\t\tfdt = "fdt-%s";\n\t\t};\n' "$role"
	done
	printf '\t};\n};\n'
} > "$out/vlink.its"
mkimage -q -f "$out/vlink.its" "$out/vlink.fit"

# A boot disk per role: U-Boot's distro boot scans virtio disks for a
# bootable partition with a boot.scr, as it would a board's SD card.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fit_kib=$(( ($(stat -c %s "$out/vlink.fit") + 1023) / 1024 ))
part_kib=$(( fit_kib + 4096 ))
for role in ep rc; do
	mkdir -p "$tmp/$role"
	cp "$out/vlink.fit" "$tmp/$role/"
	cat > "$tmp/$role/boot.cmd" <<-EOF
	# vlink $role: boot this role's configuration of the FIT
	setenv bootargs "$cmdline vlink.role=$role"
	load \${devtype} \${devnum}:\${distro_bootpart} $fit_load vlink.fit
	bootm $fit_load#$role
	EOF
	mkimage -q -A "$ARCH" -T script -C none -n "vlink $role" \
		-d "$tmp/$role/boot.cmd" "$tmp/$role/boot.scr" >/dev/null
	disk=$out/boot-$role.img
	rm -f "$disk"
	truncate -s $(( (part_kib + 1024) * 1024 )) "$disk"
	echo "start=2048, type=83, bootable" | sfdisk -q "$disk"
	mke2fs -q -F -t ext2 -L "vlink-$role" -d "$tmp/$role" \
		-E offset=$(( 2048 * 512 )) "$disk" "${part_kib}k"
done
echo "$inputs" > "$out/.inputs"
