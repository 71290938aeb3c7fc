#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkmodules-initramfs.sh GEN_INIT_CPIO OBJ BASE OUT: OUT = the guests'
# initramfs BASE followed by a second archive with the modules built in the
# kernel objects OBJ, in /lib/modules.  The kernel unpacks concatenated
# archives in order, so a variant's guests get BASE's userspace unchanged.
set -euo pipefail

gen=$1 obj=$2 base=$3 out=$4

spec=$(mktemp)
trap 'rm -f "$spec"' EXIT
{
	echo "dir /lib 0755 0 0"
	echo "dir /lib/modules 0755 0 0"
	find "$obj" -name '*.ko' | sort | while read -r ko; do
		echo "file /lib/modules/$(basename "$ko") $ko 0644 0 0"
	done
} > "$spec"
if ! grep -q '^file ' "$spec"; then
	echo "mkmodules-initramfs: no modules in $obj" >&2
	exit 1
fi

inputs=$( (cat "$spec"; sha256sum "$base";
	awk '$1 == "file" { print $3 }' "$spec" | xargs sha256sum) | sha256sum)
[ -e "$out" ] && [ "$(cat "$out.inputs" 2>/dev/null)" = "$inputs" ] && exit 0

echo "  CPIO    $out"
{ cat "$base"; "$gen" "$spec" | gzip -9 -n; } > "$out.tmp"
mv "$out.tmp" "$out"
echo "$inputs" > "$out.inputs"
