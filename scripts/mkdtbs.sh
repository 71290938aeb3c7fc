#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdtbs.sh OUTDIR: the device trees $ARCH guests boot with.  QEMU's own
# description of the virt board (OUTDIR/virt.dtb), with one of our overlays
# (dts/, also kept as OUTDIR/vlink-{ep,rc}.dtbo) applied: OUTDIR/ep.dtb and
# OUTDIR/rc.dtb.  The machine options must match the ones the rig boots
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

echo "  DTB     $ARCH virt + dts/vlink-{ep,rc}.dtso"
"$qemu" -M "$machine,dumpdtb=$out/virt.dtb" -cpu "$cpu" \
	-m "$mem" -nic none -display none >/dev/null 2>&1
for role in ep rc; do
	dtc -q -@ -I dts -O dtb -o "$out/vlink-$role.dtbo" \
		"$repo/dts/vlink-$role.dtso"
	fdtoverlay -i "$out/virt.dtb" -o "$out/$role.dtb" "$out/vlink-$role.dtbo"
done
echo "$inputs" | sha256sum > "$stamp"
