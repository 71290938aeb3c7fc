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
  Then the link goes down and up (the endpoint's controller stopped and
  started) and comes back; and the host dies and a new one boots, which
  gets the link once the endpoint restarts its controller (pci-epf-vntb
  does not notice a host going away).
- NTB between two root complexes (ep-2rc-far: one endpoint guest, a
  link to each root complex, each root complex with a window onto the
  other's RAM): configfs-scripts/vlink-ntb binds pci-epf-ntb as
  pci-ntb-howto.rst does, its primary interface on one controller and
  its secondary on the other; on each host ntb_hw_epf takes 104c:b00d
  from pci_endpoint_test, and ntb_netdev makes an interface.  Each root
  complex must show the other host's buffer in a bridged BAR; the hosts
  ping each other and 16 MiB go each way, checked by md5sum.  Then one
  host dies: the other's bridged BARs must stop showing its RAM.
All of it again on the ntb kernel merged with the debug one
(KVARIANT=ntb+debug), whose consoles must stay silent and which must
leak nothing.
"""

import os
import re

from vlinkntb import (EP_ADDR, HOST_ID, RC0_ADDR, RC1_ADDR, RC_ADDR, TIMEOUT,
                      bound_to, carrier, netdev_up, ntb_rig, ntb_steps,
                      traffic_steps, transfer, vntb_rig, vntb_steps)
from vlinktest import Abort, check_consoles
from test_endpoint import shell_ok

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KCACHE = os.environ.get("KCACHE", os.path.expanduser("~/.cache/vlink"))
FUNCTIONS = "drivers/pci/endpoint/functions"
# The endpoint's only controller (busybox sh expands it where it is used).
EPC = "$(ls -d /sys/kernel/config/pci_ep/controllers/*)"


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


def restart_link(ep, rc):
    """Stop and start the endpoint's controller: rc removes the function
    and enumerates it again, ntb_hw_epf takes it again; ntb_netdev makes
    interfaces only for the NTB devices there when it loads, so rc loads
    it again, and the link comes back."""
    mark, ep_mark = rc.mark(), ep.mark()
    shell_ok(ep, f"echo 0 > {EPC}/start")
    rc.expect(r"vlink-rc \S+: link down: removed 1 function", TIMEOUT,
              "the RC to remove the stopped function", since=mark)
    shell_ok(ep, f"echo 1 > {EPC}/start")
    rc.expect(r"vlink-rc \S+: endpoint started \(generation \d+\): "
              r"1 function", TIMEOUT, "the RC to enumerate it again",
              since=mark)
    bound_to(rc, HOST_ID, "ntb_hw_epf")
    shell_ok(rc, "rmmod ntb_netdev")
    netdev_up(rc, RC_ADDR)
    carrier(rc)
    carrier(ep)
    # The host's first commands may beat its acknowledgment to our link
    # worker; pci-epf-vntb's window must be mapped all the same.
    refused = re.findall(r".*while the link is down: refused.*",
                         ep.output(ep_mark))
    assert not refused, f"ep refused a mapping: {refused}"


def new_host(rig, ep, rc):
    """The root complex dies and another boots in its place.  6.1's
    pci-epf-vntb takes no notice of a host that goes away (it has no
    link-down handling: its queue state stays the old host's), so, as on
    hardware, the endpoint's controller is restarted for the new host."""
    rc.kill()
    rc2 = rig.start_guest("rc", name="rc-2")
    rc2.wait_shell()
    rc2.expect(r"vlink-rc \S+: endpoint started \(generation \d+\): "
               r"1 function", TIMEOUT, "the new RC to enumerate vNTB")
    shell_ok(rc2, "insmod /lib/modules/ntb_hw_epf.ko")
    shell_ok(rc2, "insmod /lib/modules/ntb_netdev.ko")
    restart_link(ep, rc2)
    return rc2


def vntb(r, build, kvariant):
    """The whole stack, traffic both ways, a link down and up, a new host;
    on the debug kernel also no leak; consoles without a report."""
    title = "vntb" if kvariant == "ntb" else f"vntb [{kvariant}]"
    with vntb_rig(build, "vntb", kvariant) as rig:
        try:
            ep, rc = rig.start_pair()
            for name, fn, args in vntb_steps(ep, rc, rc.mark()):
                r.step(f"{title}: {name}", fn, *args)
            for name, fn, args in traffic_steps(ep, rc, EP_ADDR, RC_ADDR):
                r.step(f"{title}: {name}", fn, *args)
            r.step(f"{title}: after the endpoint's link goes down and up, "
                   "the link comes back", restart_link, ep, rc)
            r.step(f"{title}: ep pings rc again", shell_ok, ep,
                   f"ping -c 3 -W 10 {RC_ADDR}", 60)
            rc = r.step(f"{title}: a new host after the old one died gets "
                        "the link", new_host, rig, ep, rc)
            r.step(f"{title}: ep pings the new host", shell_ok, ep,
                   f"ping -c 3 -W 10 {RC_ADDR}", 60)
            r.step(f"{title}: 1 MiB from the new host to ep arrive intact",
                   transfer, rc, ep, EP_ADDR, 5003, 1)
            r.no_leaks([(f"{title}: no leak on {guest.name}", guest)
                        for guest in (ep, rc)])
        except Abort:
            pass
        check_consoles(r, rig, title)


def far_host_dies(rc0, rc1):
    """rc1's QEMU dies: the endpoint's link to it goes down and parks its
    outbound mappings, so the BARs rc0 reaches rc1's RAM through must
    show nothing of it any more."""
    mark = rc0.mark()
    rc1.kill()
    for bar in (2, 3):
        rc0.expect(rf"vlink-rc \S+: function 0: BAR{bar} follows 0 "
                   r"extent\(s\)", TIMEOUT,
                   f"rc0 to park BAR{bar}, which showed rc1's RAM",
                   since=mark)


def ntb_2rc(r, build, kvariant):
    """pci-epf-ntb joins two root complexes: traffic both ways, then one
    host dies; on the debug kernel also no leak; consoles without a
    report."""
    title = "ntb" if kvariant == "ntb" else f"ntb [{kvariant}]"
    with ntb_rig(build, "ntb", kvariant) as rig:
        try:
            rig.start_server()
            ep, rc0, rc1 = (rig.start_guest(g) for g in ("ep", "rc0", "rc1"))
            for guest in (ep, rc0, rc1):
                r.step(f"{title}: {guest.name} boots", guest.wait_shell)
            for name, fn, args in ntb_steps(ep, rc0, rc1, rc0.mark(),
                                            rc1.mark()):
                r.step(f"{title}: {name}", fn, *args)
            for name, fn, args in traffic_steps(rc0, rc1, RC0_ADDR,
                                                RC1_ADDR,
                                                " through the endpoint"):
                r.step(f"{title}: {name}", fn, *args)
            r.step(f"{title}: rc1 dies: rc0's bridged BARs stop showing its "
                   "RAM", far_host_dies, rc0, rc1)
            r.no_leaks([(f"{title}: no leak on {guest.name}", guest)
                        for guest in (ep, rc0)])
        except Abort:
            pass
        check_consoles(r, rig, title)


def run(results, build):
    judges_pristine(results)
    vntb(results, build, "ntb")
    ntb_2rc(results, build, "ntb")
    vntb(results, build, "ntb+debug")
    ntb_2rc(results, build, "ntb+debug")
