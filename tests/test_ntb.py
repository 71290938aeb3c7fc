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
  pci-epf-vntb's own PCI driver takes it and registers an NTB device, and
  ntb_netdev, loaded after, makes a network interface of it.  ntb_hw_epf
  loads on the root complex.

What does not run yet: the root complex refuses the function, because
pci-epf-vntb moves its memory window's BAR to a new backing after the
host has mapped it, and a BAR of this link sits at a host address fixed
by its first backing (docs/link.md).  The test checks that the refusal
is a clear log line and that both guests stay healthy; traffic over NTB
is what comes next.
"""

import os
import re

from vlinkrig import Rig
from vlinktest import Abort, check_consoles
from test_endpoint import shell_ok

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KCACHE = os.environ.get("KCACHE", os.path.expanduser("~/.cache/vlink"))
FUNCTIONS = "drivers/pci/endpoint/functions"
# pci-vntb-howto.rst's ids: the host's device, the endpoint's own.
HOST_ID = "1957:0809"
VNTB_ID = "1957:080A"
# How long the endpoint's virtual bus and the RC's verdict may take.
TIMEOUT = 60


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


def pci_device(guest, pci_id):
    """The PCI address of the guest's device with that vendor:device."""
    status, out = guest.run(
        f"grep -l 'PCI_ID={pci_id}' /sys/bus/pci/devices/*/uevent")
    m = re.search(r"/sys/bus/pci/devices/(\S+)/uevent", out)
    assert status == 0 and m, f"no PCI device {pci_id}: {out.strip()}"
    return m.group(1)


def ep_side(ep):
    """The endpoint's half of vNTB, up to its network interface."""
    dev = pci_device(ep, VNTB_ID)
    status, out = ep.run(f"basename $(readlink /sys/bus/pci/devices/{dev}/"
                         "driver); ls /sys/bus/ntb/devices")
    assert status == 0 and out.split(), \
        f"{dev}: no driver or no NTB device: {out.strip()}"
    shell_ok(ep, "insmod /lib/modules/ntb_netdev.ko")
    status, out = ep.run("ls /sys/class/net")
    assert re.search(r"\beth\d+\b", out), \
        f"no interface after ntb_netdev loaded: {out.split()}"


def vntb(r, build):
    with Rig(build, name="vntb", kvariant="ntb",
             trees={"ep": "ep.bar64"}) as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            r.step("vntb: vlink-vntb binds pci-epf-vntb as "
                   "pci-vntb-howto.rst does", shell_ok, ep, "vlink-vntb n0")
            r.step(f"vntb: the endpoint's virtual bus shows {VNTB_ID}, "
                   "pci-epf-vntb's driver takes it and ntb_netdev makes "
                   "an interface of it", ep_side, ep)
            r.step("vntb: rc refuses the function's moving memory-window "
                   "BAR (BAR4, where ntb_hw_epf looks) with a clear error",
                   rc.expect, r"vlink-rc \S+: function 0: BAR4 [^\n]* is "
                   r"not a BAR this link can present, function refused",
                   TIMEOUT, "the RC's verdict on the vNTB function",
                   since=mark)
            r.step("vntb: ntb_hw_epf loads on rc", shell_ok, rc,
                   "insmod /lib/modules/ntb_hw_epf.ko")
            status, out = rc.run("grep -l 'PCI_ID=" + HOST_ID +
                                 "' /sys/bus/pci/devices/*/uevent")
            r.record(f"vntb: rc has no half-made {HOST_ID} device",
                     status != 0, out.strip())
        except Abort:
            pass
        check_consoles(r, rig, "vntb")


def run(results, build):
    judges_pristine(results)
    vntb(results, build)
