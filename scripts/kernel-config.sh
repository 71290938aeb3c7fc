#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-config.sh TREE OBJ FRAGMENT: make OBJ/.config = allnoconfig + FRAGMENT,
# regenerated only when the fragment or the tree's glue changed, and refuse
# a config where an option the fragment asks for did not stick (a typo, or a
# dependency missing from the fragment).
set -euo pipefail

tree=$1 obj=$2 frag=$3
key=$(cat "$frag" "$tree/.vlink-glue" | sha256sum | cut -c1-16)
[ "$(cat "$obj/.vlink-config" 2>/dev/null)" = "$key" ] && exit 0

echo "  CONFIG  $frag -> $obj/.config"
mkdir -p "$obj"
kmake() {
	make -s -C "$tree" O="$obj" ARCH=arm \
		CROSS_COMPILE=arm-linux-gnueabihf- "$@"
}
kmake allnoconfig
"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" \
	> "$obj/merge_config.log"
kmake olddefconfig

bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*)
		opt=${line%%=*} val=${line#*=}
		if [ "$val" = n ]; then
			grep -qx "$opt=y" "$obj/.config" || continue
		else
			grep -qx "$opt=$val" "$obj/.config" && continue
		fi
		echo "kernel-config: $opt=$val from $frag did not stick" >&2
		bad=1
		;;
	esac
done < "$frag"
[ $bad -eq 0 ] || exit 1
echo "$key" > "$obj/.vlink-config"
