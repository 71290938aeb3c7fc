#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# series-base.sh: make sure $KCACHE/series-base is a bare git repository
# holding the pristine tree of $KERNEL_TARBALL as one commit, and print that
# commit.  The patch series (scripts/mkpatches.sh) is made against it and
# its check (tests/test_patches.py) applies the series onto it.
#
# The repository is keyed by the tarball's hash: another tarball makes a new
# one.  Creating it takes a few minutes (extract, add some 75,000 files);
# after that it costs nothing.  The commit has a fixed author and date, so
# the same tarball always gives the same commit id.
set -euo pipefail

kcache=${KCACHE:-$HOME/.cache/vlink}
tarball=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
base=$kcache/series-base

# Size and mtime first: hashing the tarball each time would cost seconds.
stat_key=$(stat -c '%s %Y' "$tarball")
if [ "$(cat "$base/vlink-stat" 2>/dev/null)" = "$stat_key" ] &&
   commit=$(git --git-dir="$base" rev-parse -q --verify \
		'refs/tags/pristine^{commit}'); then
	echo "$commit"
	exit 0
fi

key=$(sha256sum "$tarball" | cut -c1-16)
if [ "$(cat "$base/vlink-key" 2>/dev/null)" != "$key" ] ||
   ! git --git-dir="$base" rev-parse -q --verify refs/tags/pristine \
		>/dev/null; then
	echo "  BASE    $tarball -> $base (once, a few minutes)" >&2
	mkdir -p "$kcache"
	tmp=$(mktemp -d "$kcache/series-base.tmp.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mkdir "$tmp/tree"
	tar -xJf "$tarball" -C "$tmp/tree" --strip-components=1
	git -C "$tmp/tree" init -q
	# -f: the tree's own .gitignore files must not hide any of its files.
	git -C "$tmp/tree" add -f -A .
	version=$(make -s -C "$tmp/tree" kernelversion 2>/dev/null || echo 6.1)
	tree=$(git -C "$tmp/tree" write-tree)
	commit=$(echo "Linux $version (pristine $(basename "$tarball"))" |
		GIT_AUTHOR_NAME=vlink GIT_AUTHOR_EMAIL=vlink@localhost \
		GIT_COMMITTER_NAME=vlink GIT_COMMITTER_EMAIL=vlink@localhost \
		GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' \
		GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$tmp/tree" commit-tree "$tree")
	mv "$tmp/tree/.git" "$tmp/git"
	rm -f "$tmp/git/index"
	git --git-dir="$tmp/git" config core.bare true
	git --git-dir="$tmp/git" tag pristine "$commit"
	# Loose objects are fine; a repack would cost minutes of both cores.
	git --git-dir="$tmp/git" config gc.auto 0
	echo "$key" > "$tmp/git/vlink-key"
	rm -rf "$base"
	mv "$tmp/git" "$base"
fi
echo "$stat_key" > "$base/vlink-stat"
git --git-dir="$base" rev-parse 'refs/tags/pristine^{commit}'
