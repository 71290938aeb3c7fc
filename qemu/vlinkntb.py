# SPDX-License-Identifier: GPL-2.0
"""The 6.1 tree's NTB stacks, for the tests, `make bench` and `make run
TOPOLOGY=vntb|ntb`.  vNTB on a pair: pci-epf-vntb bound on an endpoint
with i.MX8M's BAR layout, ntb_hw_epf on the root complex, ntb_transport
and ntb_netdev on both, eth0 at EP_ADDR and RC_ADDR.  NTB between two
root complexes: pci-epf-ntb bound on both controllers of the ep-2rc-far
endpoint, ntb_hw_epf, ntb_transport and ntb_netdev on each root complex,
eth0 at RC0_ADDR and RC1_ADDR.  And a TCP transfer checked by md5sum.
Every wait has a timeout and names what it waited for.
"""

import re

from vlinkrig import Rig, shell_ok

# pci-vntb-howto.rst's ids: the host's device, the endpoint's own.
HOST_ID = "1957:0809"
VNTB_ID = "1957:080A"
# pci-ntb-howto.rst's ids, which the stock pci_endpoint_test claims too.
NTB_ID = "104C:B00D"
RC0_ADDR = "10.0.1.1"
RC1_ADDR = "10.0.1.2"
# How long the endpoint's virtual bus, the RC's enumeration and the NTB
# link may take.
TIMEOUT = 60
EP_ADDR = "10.0.0.1"
RC_ADDR = "10.0.0.2"
XFER_MB = 16
XFER_TIMEOUT = 600


def pci_device(guest, pci_id):
    """The PCI address of the guest's device with that vendor:device."""
    status, out = guest.run(
        f"grep -l 'PCI_ID={pci_id}' /sys/bus/pci/devices/*/uevent")
    m = re.search(r"/sys/bus/pci/devices/(\S+)/uevent", out)
    assert status == 0 and m, f"no PCI device {pci_id}: {out.strip()}"
    return m.group(1)


def bound_to(guest, pci_id, driver):
    """The guest's PCI device pci_id is bound to driver."""
    link = f"/sys/bus/pci/devices/{pci_device(guest, pci_id)}/driver"
    shell_ok(guest, f'readlink {link}; [ "$(basename $(readlink {link}))" '
             f'= {driver} ]')


def netdev_up(guest, addr):
    """ntb_netdev's interface, eth0, up at addr."""
    shell_ok(guest, "insmod /lib/modules/ntb_netdev.ko")
    status, out = guest.run("ls /sys/class/net")
    assert "eth0" in out.split(), \
        f"no eth0 after ntb_netdev loaded: {out.split()}"
    shell_ok(guest, f"ifconfig eth0 {addr} netmask 255.255.255.0 up")


def carrier(guest):
    """eth0's carrier comes on: ntb_transport's link is up both ways."""
    shell_ok(guest, f"for i in $(seq {TIMEOUT * 10}); do "
             "[ \"$(cat /sys/class/net/eth0/carrier)\" = 1 ] && break; "
             "sleep 0.1; done; [ \"$(cat /sys/class/net/eth0/carrier)\" = 1 ]",
             TIMEOUT + 10)


def vntb_steps(ep, rc, since):
    """What brings vNTB up on a started pair, in order, as (name, fn,
    args); each fn raises RigError or AssertionError when its step fails.
    since: rc's console mark from before the first step."""
    return [
        ("vlink-vntb binds pci-epf-vntb as pci-vntb-howto.rst does",
         shell_ok, (ep, "vlink-vntb n0")),
        (f"rc enumerates {HOST_ID}", rc.expect,
         (r"vlink-rc \S+: endpoint started \(generation \d+\): "
          r"1 function", TIMEOUT, "the RC to enumerate vNTB", since)),
        (f"the endpoint's virtual bus shows {VNTB_ID}, taken by "
         "pci-epf-vntb's own PCI driver", bound_to, (ep, VNTB_ID,
                                                      "pci-vntb")),
        ("ntb_hw_epf loads on rc", shell_ok,
         (rc, "insmod /lib/modules/ntb_hw_epf.ko")),
        (f"ntb_hw_epf takes rc's {HOST_ID}", bound_to,
         (rc, HOST_ID, "ntb_hw_epf")),
        ("ntb_netdev makes eth0 on ep", netdev_up, (ep, EP_ADDR)),
        ("ntb_netdev makes eth0 on rc", netdev_up, (rc, RC_ADDR)),
        ("ep's eth0 has a carrier", carrier, (ep,)),
        ("rc's eth0 has a carrier", carrier, (rc,)),
        ("rc follows the memory window's BAR to the buffer "
         "ntb_transport gave it", rc.expect,
         (r"vlink-rc \S+: function 0: BAR4 shows endpoint memory",
          TIMEOUT, "the RC to follow BAR4", since)),
    ]


def md5(guest, path):
    out = shell_ok(guest, f"md5sum {path}")
    m = re.search(r"\b([0-9a-f]{32})\b", out)
    assert m, f"no checksum of {path}: {out.strip()}"
    return m.group(1)


def transfer(src, dst, dst_addr, port, mib=XFER_MB):
    """mib MiB of random data from src to dst over TCP, the same after.
    Returns the sender's rate in MB/s."""
    mark = dst.mark()
    shell_ok(dst, f"tcp-xfer recv {port} > /tmp/got & true")
    dst.expect(rf"tcp-xfer: listening on port {port}", TIMEOUT,
               f"{dst.name}'s receiver to listen", since=mark)
    shell_ok(src, f"dd if=/dev/urandom of=/tmp/blob bs=1M count={mib} "
             "2>/dev/null")
    sent = md5(src, "/tmp/blob")
    out = shell_ok(src, f"tcp-xfer send {dst_addr} {port} < /tmp/blob",
                   XFER_TIMEOUT)
    m = re.search(rf"sent {mib << 20} bytes in [\d.]+ s: ([\d.]+) MB/s", out)
    assert m, f"send: {out.strip()}"
    dst.expect(rf"tcp-xfer: received {mib << 20} bytes", TIMEOUT,
               f"{dst.name}'s receiver to finish", since=mark)
    got = md5(dst, "/tmp/got")
    assert got == sent, f"sent md5 {sent}, received {got}"
    shell_ok(src, "rm /tmp/blob")
    shell_ok(dst, "rm /tmp/got")
    return float(m.group(1))


def vntb_rig(build, name, kvariant="ntb"):
    """A pair whose endpoint has i.MX8M's BAR layout, on the ntb kernel
    (or one merged with it, ntb+debug)."""
    return Rig(build, name=name, kvariant=kvariant,
               trees={"ep": "ep.bar64"})


def bind_ntb(ep):
    """vlink-ntb binds pci-epf-ntb with its primary interface on the
    endpoint's first controller (slot order: the link to rc0) and its
    secondary on the second."""
    status, out = ep.run("ls /sys/kernel/config/pci_ep/controllers")
    names = sorted(out.split())
    assert status == 0 and len(names) == 2, f"controllers: {out.strip()}"
    shell_ok(ep, f"vlink-ntb n0 {names[0]} {names[1]}")


def ntb_hw_epf_takes(rc):
    """rc's 104c:b00d, which pci_endpoint_test took, goes to ntb_hw_epf
    (driver_override, as a host that wants the NTB does)."""
    name = pci_device(rc, NTB_ID)
    dev = f"/sys/bus/pci/devices/{name}"
    shell_ok(rc, "insmod /lib/modules/ntb_hw_epf.ko")
    shell_ok(rc, f"echo ntb_hw_epf > {dev}/driver_override")
    shell_ok(rc, f"[ ! -e {dev}/driver ] || echo {name} > {dev}/driver/unbind")
    shell_ok(rc, f"echo {name} > /sys/bus/pci/drivers_probe")
    bound_to(rc, NTB_ID, "ntb_hw_epf")


def ntb_steps(ep, rc0, rc1, since0, since1):
    """What brings pci-epf-ntb up between rc0 and rc1 on a started
    ep-2rc-far topology, as (name, fn, args); since0/1: rc0's and rc1's
    console marks from before the first step."""
    far = (r"vlink-rc \S+: function 0: BAR\d follows \d+ extent\(s\), "
           r"[1-9]\d* of them the far host's RAM")
    hosts = ((rc0, "rc0", "rc1", RC0_ADDR, since0),
             (rc1, "rc1", "rc0", RC1_ADDR, since1))
    steps = [("vlink-ntb binds pci-epf-ntb as pci-ntb-howto.rst does",
              bind_ntb, (ep,))]
    steps += [(f"{me} enumerates {NTB_ID}", rc.expect,
               (r"vlink-rc \S+: endpoint started \(generation \d+\): "
                r"1 function", TIMEOUT, f"{me} to enumerate the NTB", since))
              for rc, me, _, _, since in hosts]
    steps += [(f"ntb_hw_epf takes {me}'s NTB", ntb_hw_epf_takes, (rc,))
              for rc, me, _, _, _ in hosts]
    steps += [(f"ntb_netdev makes eth0 on {me}", netdev_up, (rc, addr))
              for rc, me, _, addr, _ in hosts]
    steps += [(f"{me}'s eth0 has a carrier", carrier, (rc,))
              for rc, me, _, _, _ in hosts]
    steps += [(f"{me} shows {other}'s buffer in a bridged BAR", rc.expect,
               (far, TIMEOUT, f"{me} to follow a bridged BAR to {other}'s "
                "RAM", since))
              for rc, me, other, _, since in hosts]
    return steps


def start_ntb_guests(rig, **kw):
    """The servers and the three guests of ep-2rc-far, booted:
    (ep, rc0, rc1)."""
    rig.start_server()
    guests = [rig.start_guest(g, **kw) for g in ("ep", "rc0", "rc1")]
    for guest in guests:
        guest.wait_shell()
    return guests


def traffic_steps(a, b, a_addr, b_addr, via=""):
    """Guests a and b (at a_addr and b_addr) ping each other, then
    XFER_MB MiB go each way over TCP, checked by md5sum; as (name, fn,
    args), the transfers returning their rate."""
    ways = ((a, b, b_addr, 5001), (b, a, a_addr, 5002))
    return ([(f"{src.guest} pings {dst.guest}{via}", shell_ok,
              (src, f"ping -c 3 -W 10 {addr}", 60))
             for src, dst, addr, _ in ways] +
            [(f"{XFER_MB} MiB from {src.guest} to {dst.guest} arrive intact",
              transfer, (src, dst, addr, port))
             for src, dst, addr, port in ways])


def ntb_rig(build, name, kvariant="ntb"):
    """One endpoint, two root complexes each with a window onto the
    other's RAM, on the ntb kernel (or one merged with it)."""
    return Rig(build, name=name, kvariant=kvariant, topology="ep-2rc-far")
