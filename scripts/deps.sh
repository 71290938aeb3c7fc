#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the build and the rig need, when something is missing.
# Quick and silent when everything is there.
set -euo pipefail

pkgs=(qemu-system-arm linux-source-6.1 gcc-arm-linux-gnueabihf
      gcc-aarch64-linux-gnu device-tree-compiler u-boot-tools u-boot-qemu
      bc bison flex cpio make gcc libc6-dev python3 xz-utils patch git perl
      python3-yaml python3-jsonschema python3-docutils busybox-static:armhf)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "  DEPS    installing: ${missing[*]}"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
# The guests' busybox comes from their own architectures' archives (the
# arm64 one is only downloaded: the two busybox-static cannot be installed
# side by side).
for arch in armhf arm64; do
	if ! dpkg --print-foreign-architectures | grep -qx $arch; then
		$sudo dpkg --add-architecture $arch
	fi
done
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q "${missing[@]}"
