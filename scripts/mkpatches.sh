#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkpatches.sh OUTDIR: the project's kernel sources as a git-am-able patch
# series against the pristine linux-source-6.1 tree, one logical change per
# patch, in OUTDIR as 0000-cover-letter.patch, 0001-...patch, ...
#
# The files go where scripts/kernel-tree.sh puts them, so that the tree the
# whole series gives is the tree `make kernel` builds; the script checks
# that at the end and refuses a source file no patch claims.  The commits
# are made with git plumbing in a throwaway repository (no checkout) whose
# objects borrow from the pristine base, $KCACHE/series-base
# (scripts/series-base.sh), so a run takes seconds once the base exists.
#
# Order, and why (the tree builds with kernel/vlink.config after each one,
# as tests/test_patches.py checks):
#  1 EPC core, with pci-epc.h and pci-epf.h: the core delivers events
#    through struct pci_epc_event_ops and takes epf->lock, both declared in
#    pci-epf.h, so that header cannot wait for the EPF core.  The 6.1
#    address space, EPF core, configfs and pci-epf-test build on the new
#    headers unchanged until their own patch replaces them.
#  2 EPC address space   3 EPF core   4 configfs (+ the framework's Kconfig
#    and Makefile; the PCI_ENDPOINT help text goes with patch 1)
#  5 [only if the sources have KUnit suites in drivers/pci/endpoint]
#  . pci-epf-test, with Kconfig entries for the tree's NTB functions,
#    which stay as they are (kernel/judges)
#  . dt-bindings: the vendor prefix, then the binding: bindings go before the
#    drivers that use them, as the DT maintainers ask
#  . ARM's iounmap() hook, the arch/arm part of kernel/glue.patch
#  . the link's shared code, wire format and endpoint controller (outbound
#    window, DMA engine and everything else in the directory that is not the
#    root complex's), with the Kconfig/Makefile glue of kernel/glue.patch
#  . the root-complex host bridge
#  . the documentation: docs/*.md as Documentation/PCI/endpoint/vlink*.rst
set -euo pipefail
shopt -s nullglob globstar

repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: mkpatches.sh OUTDIR}
export KCACHE=${KCACHE:-$HOME/.cache/vlink}
base_repo=$KCACHE/series-base
base=$("$repo/scripts/series-base.sh")
edit() { python3 "$repo/scripts/mkpatches-edit.py" "$@"; }

name=$(git -C "$repo" config user.name || true)
email=$(git -C "$repo" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	echo "mkpatches: set git config user.name and user.email" >&2
	exit 1
fi
sob="Signed-off-by: $name <$email>"
date=$(git -C "$repo" log -1 --format=%aI 2>/dev/null || date -Iseconds)
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date

work=$(mktemp -d "${TMPDIR:-/tmp}/vlink-series.XXXXXX")
trap 'rm -rf "$work"' EXIT
# An empty work tree that no command here looks at: everything happens in
# the index.
mkdir "$work/wt"
export GIT_DIR=$work/git GIT_WORK_TREE=$work/wt GIT_INDEX_FILE=$work/index
git init -q
echo "$base_repo/objects" > "$GIT_DIR/objects/info/alternates"
git read-tree "$base"
head=$base

# --- the tree as patches change it (the index; there is no checkout) ---

# put PATH FILE: the tree's PATH gets FILE's content; put PATH < text.
put() {
	local blob
	blob=$(git hash-object -w "${2:---stdin}")
	git update-index --add --cacheinfo "100644,$blob,$1"
}
cur() { git cat-file blob ":$1"; }	# the tree's PATH now
del() { git update-index --force-remove "$1"; }
# change PATH CMD...: PATH becomes CMD's output for PATH's content.
change() {
	local path=$1
	shift
	cur "$path" | "$@" > "$work/change"
	put "$path" "$work/change"
}
exists() { git cat-file -e ":$1" 2>/dev/null; }

# Our files, by their path in the tree, as kernel-tree.sh maps them.
declare -A todo
add_todo() {	# add_todo REPO_DIR TREE_DIR GLOB...
	local src=$1 dst=$2 f
	shift 2
	for f in "$@"; do
		[ -f "$src/$f" ] && todo[$dst/$f]=$src/$f
	done
	return 0
}
(cd "$repo/drivers/pci/endpoint" && find . -type f -printf '%P\n') \
	> "$work/ep.list"
(cd "$repo/drivers/pci/controller/vlink" && find . -type f -printf '%P\n') \
	> "$work/vlink.list"
mapfile -t ep_files < "$work/ep.list"
mapfile -t vlink_files < "$work/vlink.list"
add_todo "$repo/drivers/pci/endpoint" drivers/pci/endpoint "${ep_files[@]}"
add_todo "$repo/drivers/pci/controller/vlink" drivers/pci/controller/vlink \
	"${vlink_files[@]}"
for h in "$repo"/include/linux/*.h; do
	todo[include/linux/${h##*/}]=$h
done
for h in "$repo"/include/uapi/linux/*.h; do
	todo[include/uapi/linux/${h##*/}]=$h
done
declare -A final
for p in "${!todo[@]}"; do final[$p]=${todo[$p]}; done
# The tree's function drivers that judge our framework stay as they are.
while read -r f; do
	f=drivers/pci/endpoint/functions/$f
	final[$f]=$KCACHE/pristine-6.1/$f
done < <(grep -v '^#' "$repo/kernel/judges")

# claim PATTERN...: put every file of ours whose tree path matches.
claim() {
	local p pat
	for p in "${!todo[@]}"; do
		for pat in "$@"; do
			# shellcheck disable=SC2053
			if [[ $p == $pat ]]; then
				put "$p" "${todo[$p]}"
				unset "todo[$p]"
				break
			fi
		done
	done
}
# unclaimed PATTERN: our files matching it that no patch has put yet.
unclaimed() {
	local p
	for p in "${!todo[@]}"; do
		# shellcheck disable=SC2053
		if [[ $p == $1 ]]; then echo "$p"; fi
	done | sort
}

# commit SUBJECT [rewrite] < BODY; "rewrite": a patch that replaces files
# whole, shown as complete rewrites (git format-patch -B) rather than as
# deletions and additions interleaved with stray common lines.
rewrites=" "
commit() {
	local msg=$work/msg tree
	[ "${2:-}" != rewrite ] ||
		rewrites+="$(($(git rev-list --count "$base..$head") + 1)) "
	{ echo "$1"; echo; cat; echo; echo "$sob"; } > "$msg"
	tree=$(git write-tree)
	if [ "$tree" = "$(git rev-parse "$head^{tree}")" ]; then
		echo "mkpatches: '$1' changes nothing" >&2
		exit 1
	fi
	head=$(git commit-tree "$tree" -p "$head" -F "$msg")
}

ep=drivers/pci/endpoint
vl=drivers/pci/controller/vlink

# --- 1: EPC core ---
claim $ep/pci-epc-core.c include/linux/pci-epc.h include/linux/pci-epf.h
change $ep/Kconfig edit kconfig-set PCI_ENDPOINT "${todo[$ep/Kconfig]}"
commit "PCI: endpoint: Replace the endpoint controller core" rewrite <<'EOF'
Rewrite the endpoint controller (EPC) core around rules that the 6.1 core
leaves implicit, and write them down at the top of pci-epc-core.c:

- Every call into a controller's ops is made under epc->lock, after the
  function number, virtual function number, BAR, size and flags have been
  checked against what the controller offers, so a buggy or hostile
  function driver gets an errno instead of programming a function or BAR
  that does not exist.  pci_epc_destroy() clears the ops, so late callers
  get -ENODEV instead of calling into a driver that has gone.
- An attached function holds a reference on the controller's device and
  module, and function numbers come from a bitmap, so neither the
  controller nor a number can disappear or be handed out twice while a
  function still uses it.
- Events are delivered in process context with a documented lock order:
  the notifier chain becomes a blocking one (the CORE_INIT handler of
  pci-epf-test sleeps), and link down and bus-master enable reach bound
  functions through struct pci_epc_event_ops, as in later kernels; the
  chain keeps carrying only the CORE_INIT and LINK_UP events its 6.1 users
  know.

Names and signatures stay those of 6.1 (func_no, vfunc_no), so controller
and function drivers written for 6.1 build unchanged.  pci-epf.h changes
here too: the core takes epf->lock and calls epf->event_ops, both declared
there.  The 6.1 address space library, EPF core, configfs interface and
pci-epf-test build on both headers unchanged; the following patches
replace them one by one.
EOF

# --- 2: EPC address space ---
claim $ep/pci-epc-mem.c
commit "PCI: endpoint: Replace the outbound address space library" rewrite \
	<<'EOF'
The address space library hands function drivers pieces of a controller's
outbound windows.  Rewrite it on the new core, keeping how 6.1 places
allocations (2^n pages at a multiple of their own size), with two
changes:

Let a controller hand over a window it has already mapped
(struct pci_epc_mem_window.virt_base).  A controller whose outbound
translation works by retargeting an existing CPU mapping, rather than by
an address translation unit in front of a fixed physical range, cannot
have each allocation ioremap()ed afresh; with virt_base set, allocations
return an address inside that mapping and nothing is mapped or unmapped
per allocation.  Without it, behaviour is that of 6.1.

Check what is given back.  In 6.1, pci_epc_mem_free_addr() releases
whatever region its arguments name, so a wrong address or size silently
frees pages that another function still has mapped.  The allocator now
records where each allocation starts, and a free that does not describe
exactly one allocation is reported and ignored.
EOF

# --- 3: EPF core ---
claim $ep/pci-epf-core.c
commit "PCI: endpoint: Replace the endpoint function core" rewrite <<'EOF'
Rewrite the endpoint function (EPF) core on top of the new controller
core: the pci-epf bus, function drivers with id tables and module owners,
creating and destroying function devices, binding them to controllers and
their virtual functions, and BAR memory.

epf->lock now serialises a function driver's bind(), unbind(), add_cfs()
and event handlers and protects its binding state, in the lock order the
controller core documents, so that events cannot race with unbinding.

pci_epf_alloc_space() always returns a power-of-two sized, naturally
aligned buffer honouring the controller's alignment and fixed BAR sizes:
a host places a BAR at a multiple of its size, and a controller that
exposes the buffer itself as the BAR (rather than through an inbound
translation unit) needs the buffer to match.
EOF

# --- 4: configfs, and the framework's Kconfig and Makefile ---
claim $ep/pci-ep-cfs.c include/linux/pci-ep-cfs.h
grep -v KUNIT "${todo[$ep/Makefile]}" | put $ep/Makefile
if grep -q 'config .*KUNIT' "${todo[$ep/Kconfig]}"; then
	syms=$(sed -n 's/^config \(.*KUNIT.*\)/\1/p' "${todo[$ep/Kconfig]}")
	# shellcheck disable=SC2086
	edit kconfig-drop $syms < "${todo[$ep/Kconfig]}" | put $ep/Kconfig
else
	put $ep/Kconfig "${todo[$ep/Kconfig]}"
fi
commit "PCI: endpoint: Replace the configfs interface" rewrite <<'EOF'
Rewrite the configfs interface (/sys/kernel/config/pci_ep/) on the new
cores, keeping the 6.1 layout and semantics: functions/<driver>/<name>
directories with the header and interrupt attributes, primary/ and
secondary/ links to controllers, links between functions for virtual
functions, and controllers/<epc>/start.

Bad input is refused instead of half applied: bad values get -EINVAL, a
second link to a taken interface -EBUSY, starting a controller with
nothing linked -ENODEV, and removing the directory of a linked function
-EBUSY.  One mutex serialises linking, unlinking, starting and stopping
across all directories: the VFS only serialises operations within one
directory, and a function can be linked from two.
EOF
unset "todo[$ep/Makefile]" "todo[$ep/Kconfig]"
put $ep/Makefile "${final[$ep/Makefile]}"
put $ep/Kconfig "${final[$ep/Kconfig]}"

# --- KUnit suites of the framework, if there are any ---
kunit=$(unclaimed "$ep/tests/*"; unclaimed "$ep/*kunit*")
if [ -n "$kunit" ]; then
	# shellcheck disable=SC2086
	claim $kunit
	# The framework's maintainers cover the directory; the tests' author
	# answers for the tests.
	cat > "$work/section" <<EOF
PCI ENDPOINT FRAMEWORK KUNIT TESTS
M:	$name <$email>
L:	linux-pci@vger.kernel.org
S:	Maintained
F:	$ep/tests/
EOF
	change MAINTAINERS edit maint-section \
		"PCI ENDPOINT FRAMEWORK KUNIT TESTS" "$work/section"
	commit "PCI: endpoint: Add KUnit tests" <<'EOF'
Add KUnit suites for the endpoint framework, run at boot with
CONFIG_PCI_ENDPOINT_KUNIT_TEST: the outbound address space allocator,
BAR selection and BAR memory, controller and function lifetimes,
function numbers, the checks the controller helpers make and, with
configfs, the attributes of a function's directory.  They register a
fake controller and a fake function driver, so the rules the previous
patches set down are checked without endpoint hardware or a link.
EOF
elif ! git diff-index --cached --quiet "$head" -- $ep/Kconfig $ep/Makefile
then
	echo "mkpatches: $ep/Kconfig or Makefile has KUNIT lines but" \
		"$ep/tests/ is empty" >&2
	exit 1
fi

# --- pci-epf-test ---
fn=$ep/functions
claim "$fn/*"
commit "PCI: endpoint: functions: Replace pci-epf-test" rewrite <<'EOF'
Rewrite the test function that the host's stock pci_endpoint_test driver
and pcitest drive, on the new framework: test registers and the MSI-X
table in the first free BAR, plain memory in the others, command polling
started on link up and stopped on link down, READ/WRITE/COPY between the
host and the endpoint through the outbound window by CPU or through a
dmaengine memcpy channel of the controller, CRC32 checks as the host
expects them, and legacy, MSI and MSI-X interrupts on command.

Link events come through struct pci_epc_event_ops, so polling also stops
when the link goes down instead of running on against a host that has
gone.  A corrupt_next module parameter flips a byte of the next
transfers, so that a test can prove that the host's checksum catches a
corrupted transfer.

The directory's Kconfig and Makefile are rewritten with it; the NTB and
virtual NTB functions keep their entries and are not changed.
EOF

# --- dt-bindings ---
change Documentation/devicetree/bindings/vendor-prefixes.yaml \
	edit vendor-prefix vlink "vlink virtual PCIe link between virtual machines"
commit "dt-bindings: vendor-prefixes: Add vlink" <<'EOF'
vlink is a virtual PCIe link between two virtual machines, described in
the device tree by "vlink,*" compatibles of its own: it is no vendor's
hardware, and the devices it runs on (QEMU's ivshmem) are generic, so
the link's compatibles cannot borrow another vendor's prefix.
EOF

binding=Documentation/devicetree/bindings/pci/vlink,pcie.yaml
put "$binding" "$repo/docs/bindings/vlink,pcie.yaml"
maint_title="PCI DRIVER FOR VLINK VIRTUAL PCIE LINK"
cat > "$work/section" <<EOF
$maint_title
M:	$name <$email>
L:	linux-pci@vger.kernel.org
S:	Maintained
F:	$binding
EOF
change MAINTAINERS edit maint-section "$maint_title" "$work/section"
commit "dt-bindings: PCI: Add the vlink virtual PCIe link" <<'EOF'
Describe the two devices a machine on a vlink link has: the link device
("vlink,pcie-ep" or "vlink,pcie-rc"), an ivshmem-doorbell device whose
shared memory and doorbells carry the link, and the window onto the peer
machine's RAM ("vlink,peer-ram"), an ivshmem-plain device.

Both are PCI devices with the same vendor and device ID in slots the
board fixes, so only the device tree can tell which is which, which half
of the link the machine plays and which window belongs to which link;
the link node also says where the peer's RAM starts, how many functions
the endpoint offers and, on the root complex, the PCI domain of the bus
the endpoint's functions appear on.
EOF

# --- ARM: the iounmap() hook the link's apertures use ---
git apply --cached --include='arch/arm/*' "$repo/kernel/glue.patch"
commit "ARM: mm: Let the driver behind arch_ioremap_caller take back its mappings" <<'EOF'
A driver may hand out mappings of its own from ioremap() through
arch_ioremap_caller, for a physical range only it knows, but iounmap()
gives every address to vunmap(), which would tear down pages the driver
still owns.  Add arch_iounmap, a hook iounmap() asks first: it returns
true when the address was one of the driver's, and iounmap() then leaves
it alone.

The vlink link's apertures are such ranges: retargetable pages behind an
endpoint's outbound window and a root complex's movable BARs, which the
function and host drivers ioremap() by physical address.
EOF

# --- the link: shared code, wire format, endpoint controller ---
is_rc() { [[ ${1##*/} == *-rc.[ch] || ${1##*/} == *-rc-* ]]; }
ep_side=()
for p in $(unclaimed "$vl/*"); do
	case $p in
	"$vl/Kconfig"|"$vl/Makefile") ;;
	*) is_rc "$p" || ep_side+=("$p") ;;
	esac
done
[ ${#ep_side[@]} -gt 0 ] || { echo "mkpatches: no link sources" >&2; exit 1; }
claim "${ep_side[@]}" include/uapi/linux/vlink.h
rc_syms=$(sed -n 's/^config \(PCIE_VLINK_RC[A-Z0-9_]*\)$/\1/p' \
	"${todo[$vl/Kconfig]}")
# shellcheck disable=SC2086
edit kconfig-drop $rc_syms < "${todo[$vl/Kconfig]}" | put $vl/Kconfig
grep -v 'PCIE_VLINK_RC' "${todo[$vl/Makefile]}" | put $vl/Makefile
git apply --cached --exclude='arch/arm/*' "$repo/kernel/glue.patch"
# MAINTAINERS names the files of this patch; the next patch widens it to
# the directory.
ep_f=("F:	$vl/Kconfig" "F:	$vl/Makefile" "F:	include/uapi/linux/vlink.h")
vlstar=no
for p in "${ep_side[@]}"; do
	case ${p##*/} in
	vlink*) vlstar=yes ;;
	*) ep_f+=("F:	$p") ;;
	esac
done
[ $vlstar = no ] || ep_f+=("F:	$vl/vlink*")
change MAINTAINERS edit maint-add "$maint_title" "${ep_f[@]}"
cat > "$work/body" <<'EOF'
Endpoint function drivers can only be run on endpoint hardware today, so
the endpoint framework and its functions are hard to test and to work
on.  vlink joins two unmodified QEMU machines by a virtual PCIe link made
of QEMU's ivshmem devices and a small server: one machine runs the
endpoint framework on the endpoint controller added here, the other
enumerates its functions as real PCI devices (next patch) and drives
them with the stock host drivers, such as pci_endpoint_test and pcitest.

This adds the part both halves share and the endpoint half:

- the wire format, include/uapi/linux/vlink.h, which the drivers and the
  userspace server share: the shared memory's layout, doorbell vectors
  and link states, versioned with a magic number.
- the link device: validate the shared memory's header, find the window
  onto the peer's RAM that the device tree names, take the doorbells,
  and follow the peer's state, with a self test of both windows and a
  doorbell round-trip measurement each time a peer comes up.
- the endpoint controller: it publishes each function's config space
  image and BARs in the shared memory, raises MSI, MSI-X and INTx as
  bits of a pending bitmap there, and reports link up once the root
  complex has acknowledged enumeration.
- the outbound window, which maps the root complex's memory by
  retargeting the page-table entries of a premapped range (an aperture)
  with no allocation on the map path, handed to the address space library
  already mapped.  On 32-bit ARM the aperture also owns a physical range
  that ioremap() resolves to its pages (previous patch), so a function
  driver that ioremap()s what the library gave it sees every retarget.
- a dmaengine memcpy channel between our RAM and the outbound window,
  so that function drivers use the asynchronous path they would use
  with a hardware DMA engine (pcitest -d).
EOF
if exists "$vl/vlink-ep-faults.c"; then
	cat >> "$work/body" <<'EOF'
- fault injection through debugfs (CONFIG_PCIE_VLINK_EP_FAULTS): on
  demand the endpoint publishes broken BARs or capability lists, sets
  pending bits no vector owns or spoils the link header, to prove that
  the root complex refuses them.
EOF
fi
commit "PCI: vlink: Add the virtual PCIe link and its endpoint controller" \
	< "$work/body"

# --- the root complex ---
claim "$vl/*"
unset "todo[$vl/Kconfig]" "todo[$vl/Makefile]"
put $vl/Kconfig "${final[$vl/Kconfig]}"
put $vl/Makefile "${final[$vl/Makefile]}"
drop_f=()
for l in "${ep_f[@]}"; do
	[[ $l == "F:	$vl/"* ]] && drop_f+=("$l")
done
change MAINTAINERS edit maint-drop "$maint_title" "${drop_f[@]}"
change MAINTAINERS edit maint-add "$maint_title" "F:	$vl/"
commit "PCI: vlink: Add the root-complex host bridge" <<'EOF'
Add the root-complex half of the vlink link: a host bridge that puts the
endpoint machine's functions on a root bus in a PCI domain of its own, so
that the stock host drivers bind to them as to any PCI device.

Config cycles are emulated on the config space images the endpoint
publishes: read-only fields, BAR sizing, the command register, and the
MSI and MSI-X fields a host writes; the capability list is walked with
suspicion, and anything not implemented reads as absent.  BARs are
presented already assigned inside the window onto the endpoint's RAM
and claimed there, as firmware would leave them, because only there do
they reach the endpoint's memory.

An MSI domain of the bridge gives each vector a bit of the link's
pending bitmap as its message data, in power-of-two aligned blocks for
multi-message MSI, and dispatches the bits the endpoint sets.  A masked
MSI-X vector is held pending by the endpoint, which cannot see the host
unmask it: the bridge rings the link after every unmask.

A BAR the endpoint sets before it has memory, or sets again with other
memory (pci-epf-vntb's memory window), is movable: on 32-bit ARM it is
presented in the bridge's BAR aperture, whose pages follow each move the
endpoint announces.

The bus is scanned when the endpoint starts its controller and emptied
when it stops, or when the endpoint machine goes away.
EOF

# --- documentation ---
docs=()
for md in "$repo"/docs/*.md; do
	rst=vlink-$(basename "$md" .md)
	python3 "$repo/scripts/md2rst.py" \
		--links "Documentation/PCI/endpoint/vlink-{}.rst" \
		"$md" "$work/$rst.rst"
	put "Documentation/PCI/endpoint/$rst.rst" "$work/$rst.rst"
	docs+=("$rst")
done
if [ ${#docs[@]} -gt 0 ]; then
	change Documentation/PCI/endpoint/index.rst edit toctree-add \
		"${docs[@]}"
	change MAINTAINERS edit maint-add "$maint_title" \
		"F:	Documentation/PCI/endpoint/vlink-*.rst"
	commit "Documentation: PCI: endpoint: Document the rework and vlink" <<'EOF'
Add the documentation of this series, as vlink-*.rst next to the
framework's existing pages, which still describe the same 6.1 API:

- the framework's kernel API as reworked: what a controller driver
  provides and a function driver may call, in which context and under
  which locks, and where behaviour differs from 6.1;
- the configfs interface, and what each mistake there gets;
- pci-epf-test, as the device side of pci_endpoint_test;
- the vlink link: its devices, the shared memory layout and who writes
  what there, the doorbells, the state machine that brings the link and
  the PCIe link on it up and down, interrupts, the outbound window and
  the DMA engine.  The wire format is shared with a userspace server,
  so it needs a description outside the code.
EOF
fi

# --- the series must give the tree kernel-tree.sh builds ---
if [ ${#todo[@]} -gt 0 ]; then
	echo "mkpatches: no patch puts these files; give them one:" >&2
	printf '  %s\n' "${!todo[@]}" >&2
	exit 1
fi
bad=0
for p in "${!final[@]}"; do
	if ! cur "$p" | cmp -s - "${final[$p]}"; then
		echo "mkpatches: $p differs from ${final[$p]}" >&2
		bad=1
	fi
done
while read -r p; do
	[ -n "${final[$p]:-}" ] && continue
	echo "mkpatches: $p is left over from 6.1" >&2
	bad=1
done < <(git ls-files -- "$ep" 'include/linux/pci-ep*.h')
[ $bad -eq 0 ] || exit 1

# --- the patches and the cover letter ---
mkdir -p "$out"
rm -f "$out"/*.patch
git format-patch -q -B --no-renames --cover-letter --base="$base" \
	-o "$out" "$base..$head"
# Only the patches that replace files whole are shown as rewrites: with -B
# a patch that keeps a third of a file would show it rewritten too.
git format-patch -q --no-renames --base="$base" -o "$work/plain" \
	"$base..$head"
for p in "$work"/plain/*.patch; do
	num=$((10#$(basename "$p" | cut -c1-4)))
	[[ $rewrites == *" $num "* ]] || cp "$p" "$out/"
done
n=$(git rev-list --count "$base..$head")
version=$(git log -1 --format=%s "$base" | sed -n 's/^Linux \([^ ]*\).*/\1/p')
python3 - "$out/0000-cover-letter.patch" "$n" "${version:-6.1}" <<'EOF'
import sys
path, n, version = sys.argv[1], sys.argv[2], sys.argv[3]
subject = "PCI: endpoint: A reworked endpoint framework and a virtual PCIe link"
blurb = f"""\
This series replaces the PCI endpoint framework (EPC core, address space,
EPF core, configfs) and pci-epf-test with a rework that keeps the 6.1
names and signatures, and adds vlink: a virtual PCIe link between two
unmodified QEMU machines, built from QEMU's ivshmem devices and a small
userspace server.  One machine runs the endpoint framework on the link's
endpoint controller; the other enumerates its functions as real PCI
devices, which the stock pci_endpoint_test driver and pcitest (pcitest.sh
and DMA transfers) drive.  So endpoint function drivers can be developed
and tested without endpoint hardware.

Order: the framework is replaced piece by piece, each piece building on
the new headers while the pieces after it are still those of 6.1.  Patch
1 carries pci-epf.h along with the controller core, which calls the
function event ops and takes the function lock that header declares.
The tree's NTB and virtual NTB functions are kept unchanged: they build
on the new headers.  The bindings come before the drivers that use them,
the documentation last.

Each of the {n} patches applies with git am on Linux {version} as
Debian's linux-source-6.1 ships it, the tree builds a 32-bit ARM kernel
with the link's configuration after each one, and checkpatch --strict
finds nothing in any of them.

The link server and the test rig that boots both machines are not part
of this series.
"""
text = open(path, encoding="utf-8").read()
text = text.replace("*** SUBJECT HERE ***", subject, 1)
text = text.replace("*** BLURB HERE ***", blurb.rstrip("\n"), 1)
open(path, "w", encoding="utf-8").write(text)
EOF
echo "  PATCHES $n + cover letter -> $out"
