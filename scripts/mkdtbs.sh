#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdtbs.sh OUTDIR: the device trees $ARCH guests boot with.  QEMU's own
# description of the virt board (OUTDIR/virt.dtb), with one of our overlays
# (dts/vlink-NAME.dtso, also kept as OUTDIR/vlink-NAME.dtbo) applied:
# OUTDIR/NAME.dtb, e.g. ep.dtb and rc.dtb; an overlay named BASE.VARIANT
# goes on top of BASE's.  The machine options must match the ones the rig boots
# with (qemu/vlinkrig.py).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
out=$1
machine="virt,highmem=off,acpi=off"
mem=${VLINK_RAM_MB:-256}
case "${ARCH:?}" in
arm) qemu=qemu-system-arm cpu=cortex-a15 ;;
arm64) qemu=qemu-system-aarch64 cpu=cortex-a57 ;;
*) echo "mkdtbs: no guests for ARCH=$ARCH" >&2; exit 1 ;;
esac
mkdir -p "$out"

stamp=$out/.inputs
inputs=$(cat "$repo"/dts/*.dtso "$0"; echo "$machine $mem"; \
	"$qemu" --version | head -1; echo "$cpu")
[ "$(cat "$stamp" 2>/dev/null)" = "$(echo "$inputs" | sha256sum)" ] && exit 0

echo "  DTB     $ARCH virt + dts/vlink-*.dtso"
"$qemu" -M "$machine,dumpdtb=$out/virt.dtb" -cpu "$cpu" \
	-m "$mem" -nic none -display none >/dev/null 2>&1
for dtso in "$repo"/dts/vlink-*.dtso; do
	name=$(basename "$dtso" .dtso)
	name=${name#vlink-}
	dtc -q -@ -I dts -O dtb -o "$out/vlink-$name.dtbo" "$dtso"
done
# BASE.VARIANT: the variant's overlay on top of BASE's (ep.bar64.dtb).
for dtso in "$repo"/dts/vlink-*.dtso; do
	name=$(basename "$dtso" .dtso)
	name=${name#vlink-}
	overlays=("$out/vlink-$name.dtbo")
	[ "${name%%.*}" = "$name" ] ||
		overlays=("$out/vlink-${name%%.*}.dtbo" "${overlays[@]}")
	fdtoverlay -i "$out/virt.dtb" -o "$out/$name.dtb" "${overlays[@]}"
done
echo "$inputs" | sha256sum > "$stamp"
