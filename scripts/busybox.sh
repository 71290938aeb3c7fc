#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# busybox.sh DEBARCH: print the path of Debian's static busybox for that
# architecture (armhf, arm64).  The installed package if it is that one;
# otherwise the package is downloaded once into $KCACHE/busybox-DEBARCH
# and unpacked there, since busybox-static of two architectures cannot be
# installed side by side.
set -euo pipefail

arch=$1
installed=$(dpkg-query -W -f='${Status} ${Architecture}' busybox-static \
	2>/dev/null || true)
if [ "$installed" = "install ok installed $arch" ]; then
	dpkg -L "busybox-static:$arch" | grep -m1 '/bin/busybox$'
	exit 0
fi

dir=${KCACHE:?KCACHE must name the cache folder}/busybox-$arch
if [ ! -x "$dir/bin/busybox" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get download -q "busybox-static:$arch" >&2)
	dpkg-deb -x "$dir.tmp"/busybox-static_*.deb "$dir.tmp/root"
	mkdir -p "$dir/bin"
	cp "$dir.tmp/root/bin/busybox" "$dir/bin/busybox"
	rm -rf "$dir.tmp"
fi
echo "$dir/bin/busybox"
