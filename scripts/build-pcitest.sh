#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-pcitest.sh PRISTINE_TREE OUT: cross-build the stock tools/pci/pcitest
# as a static binary for the guests ($CROSS_COMPILE), from the untouched
# source of the pristine tree.
set -euo pipefail

src=$1/tools/pci/pcitest.c
hdr=$1/include/uapi/linux/pcitest.h
out=$2
[ "$out" -nt "$src" ] && [ "$out" -nt "$hdr" ] && exit 0

echo "  CC      $out (stock tools/pci, static)"
inc=$(mktemp -d)
trap 'rm -rf "$inc"' EXIT
# Only pcitest.h from the tree: the rest comes from the cross libc.
mkdir -p "$inc/linux" "$(dirname "$out")"
cp "$hdr" "$inc/linux/"
"${CROSS_COMPILE:?}gcc" -static -O2 -Wall -D_GNU_SOURCE -I"$inc" \
	-o "$out" "$src"
