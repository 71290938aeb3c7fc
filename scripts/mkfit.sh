#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkfit.sh GUESTDIR: the U-Boot boot path of $ARCH guests, from the files
# `make guest` left in GUESTDIR (kernel, initramfs, dtb/).  In GUESTDIR/uboot:
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

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "$1" && pwd)
out=$dir/uboot
case "${ARCH:?}" in
arm) image=zImage ;;
arm64) image=Image ;;
*) echo "mkfit: no guests for ARCH=$ARCH" >&2; exit 1 ;;
esac
kernel=$dir/$image-vlink
initramfs=$dir/initramfs.cpio.gz
# Where U-Boot puts each part in the guest's RAM (virt: from 0x40000000;
# U-Boot keeps QEMU's tree at the start and relocates itself to the top).
kernel_load=0x40400000		# 2 MiB aligned, as arm64's Image wants
fdt_load=0x43000000
initramfs_load=0x44000000
fit_load=0x48000000
cmdline="console=ttyAMA0 panic=-1 oops=panic"

inputs=$( (cat "$0"; sha256sum "$kernel" "$initramfs" "$dir"/dtb/*.dtb) |
	sha256sum)
[ "$(cat "$out/.inputs" 2>/dev/null)" = "$inputs" ] && exit 0
echo "  FIT     $out/vlink.fit and boot disks ($ARCH)"
mkdir -p "$out"

{
	cat <<-EOF
	/dts-v1/;

	/ {
		description = "vlink guest ($ARCH): kernel, initramfs, trees";
		#address-cells = <1>;

		images {
			kernel {
				description = "Linux 6.1 with the vlink drivers";
				data = /incbin/("$kernel");
				type = "kernel";
				arch = "$ARCH";
				os = "linux";
				compression = "none";
				load = <$kernel_load>;
				entry = <$kernel_load>;
				hash { algo = "sha256"; };
			};
			initramfs {
				description = "busybox, pcitest and our scripts";
				data = /incbin/("$initramfs");
				type = "ramdisk";
				arch = "$ARCH";
				os = "linux";
				compression = "none";
				load = <$initramfs_load>;
				hash { algo = "sha256"; };
			};
	EOF
	for role in ep rc; do
		cat <<-EOF
			fdt-$role {
				description = "virt board + dts/vlink-$role.dtso";
				data = /incbin/("$dir/dtb/$role.dtb");
				type = "flat_dt";
				arch = "$ARCH";
				compression = "none";
				load = <$fdt_load>;
				hash { algo = "sha256"; };
			};
		EOF
	done
	echo "	};"
	echo
	echo "	configurations {"
	echo "		default = \"rc\";"
	for role in ep rc; do
		cat <<-EOF
			$role {
				description = "vlink $role";
				kernel = "kernel";
				ramdisk = "initramfs";
				fdt = "fdt-$role";
			};
		EOF
	done
	echo "	};"
	echo "};"
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
