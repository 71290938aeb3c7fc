#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-config.sh TREE OBJ FRAGMENT...: make OBJ/.config = allnoconfig +
# the fragments in order, for $ARCH with $CROSS_COMPILE, regenerated only
# when a fragment or the tree's glue changed, and refuse a config where an option a fragment asks for did not
# stick (a typo, or a dependency missing from the fragments).
set -euo pipefail

tree=$1 obj=$2
shift 2
frags=("$@")
key=$( (echo "$ARCH"; cat "${frags[@]}" "$tree/.vlink-glue") |
	sha256sum | cut -c1-16)
[ "$(cat "$obj/.vlink-config" 2>/dev/null)" = "$key" ] && exit 0

echo "  CONFIG  ${frags[*]##*/} -> $obj/.config"
mkdir -p "$obj"
kmake() {
	make -s -C "$tree" O="$obj" ARCH="${ARCH:?}" \
		CROSS_COMPILE="${CROSS_COMPILE:?}" "$@"
}
kmake allnoconfig
"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"${frags[@]}" > "$obj/merge_config.log"
kmake olddefconfig

# The last fragment that sets an option wins, as in merge_config.sh.
declare -A want
for frag in "${frags[@]}"; do
	while read -r line; do
		case "$line" in
		CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
		"# CONFIG_"*" is not set") line=${line#\# }; want[${line%% *}]=n ;;
		esac
	done < "$frag"
done
bad=0
for opt in "${!want[@]}"; do
	val=${want[$opt]}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$obj/.config" || continue
	else
		grep -qx "$opt=$val" "$obj/.config" && continue
	fi
	echo "kernel-config: $opt=$val did not stick" >&2
	bad=1
done
[ $bad -eq 0 ] || exit 1
echo "$key" > "$obj/.vlink-config"
