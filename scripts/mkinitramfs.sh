#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh GEN_INIT_CPIO PRISTINE_TREE PCITEST OUT [BINARY...]: the
# guests' initramfs for $ARCH.  Debian's static busybox of that architecture,
# our init and scripts, the stock pcitest and pcitest.sh, and any further
# BINARY in /usr/bin.  gen_init_cpio (built with the kernel) writes the device nodes,
# so no root privileges are needed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
gen=$1 tree=$2 pcitest=$3 out=$4
shift 4

# Debian's name of the architecture, and its ELF e_machine (little endian).
case "${ARCH:?}" in
arm) deb=armhf machine=2800 ;;		# EM_ARM
arm64) deb=arm64 machine=b700 ;;	# EM_AARCH64
*) echo "mkinitramfs: no guests for ARCH=$ARCH" >&2; exit 1 ;;
esac
busybox=$("$repo/scripts/busybox.sh" $deb)
for bin in "$busybox" "$pcitest" "$@"; do
	if [ "$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' ')" != $machine ]; then
		echo "mkinitramfs: $bin is not an $ARCH binary" >&2
		exit 1
	fi
done

spec=$(mktemp)
trap 'rm -f "$spec"' EXIT
{
	for d in /dev /proc /sys /tmp /bin /sbin /usr /usr/bin /usr/sbin \
		 /etc /root /mnt /var; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "file /bin/busybox $busybox 0755 0 0"
	echo "slink /bin/sh busybox 0777 0 0"
	echo "file /init $repo/qemu/initramfs/init 0755 0 0"
	echo "file /etc/profile $repo/qemu/initramfs/profile 0644 0 0"
	echo "file /usr/bin/pcitest $pcitest 0755 0 0"
	echo "file /usr/bin/pcitest.sh $tree/tools/pci/pcitest.sh 0755 0 0"
	for f in "$repo"/configfs-scripts/* "$repo"/qemu/initramfs/bin/* "$@"; do
		[ -f "$f" ] || continue
		echo "file /usr/bin/$(basename "$f") $f 0755 0 0"
	done
} > "$spec"

# Rebuild only when an input changed.
inputs=$( (cat "$spec"; awk '$1 == "file" { print $3 }' "$spec" |
	xargs sha256sum) | sha256sum)
[ -e "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ] && exit 0

echo "  CPIO    $out"
"$gen" "$spec" | gzip -9 -n > "$out.tmp"
mv "$out.tmp" "$out"
echo "$inputs" > "$out.inputs"
