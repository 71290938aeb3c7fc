#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build and the rig need, when something is missing.
# Quick and silent when everything is there.
set -euo pipefail

pkgs=(qemu-system-arm linux-source-6.1 gcc-arm-linux-gnueabihf
      gcc-aarch64-linux-gnu device-tree-compiler u-boot-tools u-boot-qemu
      fdisk e2fsprogs bc bison flex cpio make gcc libc6-dev python3 xz-utils
      patch git perl python3-yaml python3-jsonschema python3-docutils
      python3-ply python3-git busybox-static:armhf)
# python3-ply and python3-git: checkpatch's SPDX check runs the tree's
# scripts/spdxcheck.py, which without them fails on stderr, and
# checkpatch then takes every license identifier as valid.
# The guests' busybox comes from their own architectures' archives (the
# arm64 one is only downloaded, by scripts/busybox.sh: the two
# busybox-static cannot be installed side by side).
arches=(armhf arm64)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
# Read the list whole: grep -q leaving early would kill dpkg with SIGPIPE,
# which pipefail reports as a missing architecture.
foreign=$(dpkg --print-foreign-architectures)
new_arches=()
for arch in "${arches[@]}"; do
	grep -qx "$arch" <<< "$foreign" || new_arches+=("$arch")
done
[ ${#missing[@]} -eq 0 ] && [ ${#new_arches[@]} -eq 0 ] && exit 0

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
for arch in "${new_arches[@]}"; do
	echo "  DEPS    adding the $arch architecture"
	$sudo dpkg --add-architecture "$arch"
done
export DEBIAN_FRONTEND=noninteractive
# A mirror in mid-sync serves an index whose size disagrees with its Release
# file, and apt-get update then fails as a whole although the indexes the
# install needs arrived.  Retry a few times, then let the install decide.
for try in 1 2 3; do
	$sudo apt-get update -q -o Acquire::Retries=3 && break
	echo "  DEPS    apt-get update failed (try $try of 3)" >&2
	[ "$try" -lt 3 ] && sleep $((try * 20))
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "  DEPS    installing: ${missing[*]}"
	$sudo apt-get install -y -q -o Acquire::Retries=3 "${missing[@]}"
fi
