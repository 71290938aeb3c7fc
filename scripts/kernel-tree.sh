#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the kernel build tree in the cache and bring it up to date with the
# project's sources:
#   $KCACHE/pristine-6.1   the Debian linux-source-6.1 tarball, extracted once
#   $KCACHE/tree-6.1       a copy with the upstream endpoint framework removed,
#                          the glue patch applied and our sources copied in
# Files are copied only when their content differs, so kbuild rebuilds only
# what a change touches.
set -euo pipefail
shopt -s nullglob

repo=$(cd "$(dirname "$0")/.." && pwd)
kcache=${KCACHE:?KCACHE must name the cache folder}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
pristine=$kcache/pristine-6.1
tree=$kcache/tree-6.1
glue=$repo/kernel/glue.patch

if [ ! -e "$pristine/.vlink-extracted" ]; then
	echo "  EXTRACT $tarball -> $pristine"
	rm -rf "$pristine" "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -xJf "$tarball" -C "$pristine.tmp" --strip-components=1
	touch "$pristine.tmp/.vlink-extracted"
	mv "$pristine.tmp" "$pristine"
fi

# The glue patch's hash keys the tree: a changed glue starts from pristine.
key=$(sha256sum "$glue" | cut -c1-16)
if [ "$(cat "$tree/.vlink-glue" 2>/dev/null)" != "$key" ]; then
	echo "  TREE    $tree (glue $key)"
	rm -rf "$tree"
	cp -a "$pristine" "$tree.tmp"
	rm -rf "$tree.tmp/drivers/pci/endpoint"
	rm -f "$tree.tmp"/include/linux/pci-ep*.h
	patch -s -d "$tree.tmp" -p1 < "$glue"
	echo "$key" > "$tree.tmp/.vlink-glue"
	mv "$tree.tmp" "$tree"
fi

# The tree's own function drivers that run over our framework as judges
# (kernel/judges): from the pristine tree byte for byte, never from ours.
mapfile -t judges < <(grep -v '^#' "$repo/kernel/judges")

# sync_dir SRC DST [KEEP...]: make DST hold exactly the files of SRC, and
# the KEEP files (paths in DST) that the tree, not SRC, provides.
sync_dir() {
	local src=$1 dst=$2 f
	local keep=" ${*:3} "
	mkdir -p "$dst"
	(cd "$src" && find . -type f) | while read -r f; do
		mkdir -p "$dst/$(dirname "$f")"
		cmp -s "$src/$f" "$dst/$f" || cp "$src/$f" "$dst/$f"
	done
	(cd "$dst" && find . -type f) | while read -r f; do
		case $keep in *" ${f#./} "*) continue ;; esac
		[ -e "$src/$f" ] || rm -f "$dst/$f"
	done
}

sync_file() {
	cmp -s "$1" "$2" || cp "$1" "$2"
}

sync_dir "$repo/drivers/pci/endpoint" "$tree/drivers/pci/endpoint" \
	"${judges[@]/#/functions/}"
sync_dir "$repo/drivers/pci/controller/vlink" \
	"$tree/drivers/pci/controller/vlink"
for h in "$repo"/include/linux/*.h; do
	sync_file "$h" "$tree/include/linux/$(basename "$h")"
done
for h in "$repo"/include/uapi/linux/*.h; do
	sync_file "$h" "$tree/include/uapi/linux/$(basename "$h")"
done
for f in "${judges[@]}"; do
	sync_file "$pristine/drivers/pci/endpoint/functions/$f" \
		"$tree/drivers/pci/endpoint/functions/$f"
done
