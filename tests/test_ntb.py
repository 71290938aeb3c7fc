# SPDX-License-Identifier: GPL-2.0
"""The 6.1 tree's own NTB function drivers over our framework, on the ntb
kernel (kernel/ntb.config): networking, the NTB core and ntb_transport
built in, ntb_hw_epf and ntb_netdev as modules in the guests' initramfs.

- The function drivers in the build tree are the pristine tree's, byte
  for byte (kernel/judges), and none of them is copied into the repository.
- vNTB on one link, the endpoint controller with i.MX8M's BAR layout
  (dts/vlink-ep.bar64.dtso: 64-bit BARs 0, 2 and 4, where ntb_hw_epf
  looks for 1957:0809's registers, doorbells and memory window):
  configfs-scripts/vlink-vntb binds pci-epf-vntb as pci-vntb-howto.rst
  does; the endpoint's virtual PCI bus shows the NTB device 1957:080a,
  pci-epf-vntb's own PCI driver takes it, and ntb_netdev makes a network
  interface of it.  On the root complex ntb_hw_epf takes 1957:0809 and
  ntb_netdev makes the other interface.  The memory window's BAR is set
  before it has memory and moved once ntb_transport has a buffer: the
  root complex presents it as a movable BAR (docs/link.md) and must say
  it follows the move.  Then both interfaces come up, each side pings the
  other, and 16 MiB go each way over TCP (tcp-xfer), checked by md5sum.
"""

import os

from vlinkntb import (EP_ADDR, RC_ADDR, XFER_MB, transfer, vntb_rig,
                      vntb_steps)
from vlinktest import Abort, check_consoles
from test_endpoint import shell_ok

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KCACHE = os.environ.get("KCACHE", os.path.expanduser("~/.cache/vlink"))
FUNCTIONS = "drivers/pci/endpoint/functions"


def judges():
    with open(os.path.join(REPO, "kernel", "judges")) as f:
        return [ln.strip() for ln in f if ln.strip() and ln[0] != "#"]


def judges_pristine(r):
    """Each judge in the build tree is the pristine tree's file."""
    for name in judges():
        built = os.path.join(KCACHE, "tree-6.1", FUNCTIONS, name)
        pristine = os.path.join(KCACHE, "pristine-6.1", FUNCTIONS, name)
        try:
            with open(built, "rb") as a, open(pristine, "rb") as b:
                same = a.read() == b.read()
            why = f"{built} differs from {pristine}"
        except OSError as e:
            same, why = False, str(e)
        r.record(f"ntb: {name} in the build tree is the pristine tree's, "
                 "byte for byte", same, why)
        copy = os.path.join(REPO, FUNCTIONS, name)
        r.record(f"ntb: {name} is not copied into the repository",
                 not os.path.exists(copy), f"{copy} exists")


def vntb(r, build):
    with vntb_rig(build, "vntb") as rig:
        try:
            ep, rc = rig.start_pair()
            for name, fn, args in vntb_steps(ep, rc, rc.mark()):
                r.step(f"vntb: {name}", fn, *args)
            r.step("vntb: ep pings rc", shell_ok, ep,
                   f"ping -c 3 -W 10 {RC_ADDR}", 60)
            r.step("vntb: rc pings ep", shell_ok, rc,
                   f"ping -c 3 -W 10 {EP_ADDR}", 60)
            r.step(f"vntb: {XFER_MB} MiB from ep to rc arrive intact",
                   transfer, ep, rc, RC_ADDR, 5001)
            r.step(f"vntb: {XFER_MB} MiB from rc to ep arrive intact",
                   transfer, rc, ep, EP_ADDR, 5002)
        except Abort:
            pass
        check_consoles(r, rig, "vntb")


def run(results, build):
    judges_pristine(results)
    vntb(results, build)
