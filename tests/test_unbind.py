# SPDX-License-Identifier: GPL-2.0
"""Both link drivers survive any unbind, on a live link with a function
enumerated: the driver's own unbind and bind in sysfs, and the removal of
the link device (which holds the PCI rescan lock while our remove runs)
followed by a rescan.  After each the link must come back and the host's
BAR tests pass; the debug kernel's checks catch a use after free.
"""

from vlinkrig import Rig
from vlinktest import Abort, check_consoles
from test_endpoint import bar_tests, shell_ok, wait_probed

LINK_DEV = "0000:00:01.0"    # the ivshmem-doorbell device, addr=1
RC_DRIVER = "/sys/bus/pci/drivers/vlink-rc"
EP_DRIVER = "/sys/bus/pci/drivers/vlink-ep"
# The removal holds the PCI rescan lock while the driver's remove runs.
REMOVE = f"echo 1 > /sys/bus/pci/devices/{LINK_DEV}/remove"
RESCAN = "echo 1 > /sys/bus/pci/rescan"
CFS = "/sys/kernel/config/pci_ep"
TIMEOUT = 60


def wait_enumerated(rc, since):
    wait_probed(rc, since)
    bar_tests(rc)


def rc_gone_and_back(r, ep, rc, name, away, back):
    """The RC's link driver goes away (away), then comes back (back)."""
    mark, ep_mark = rc.mark(), ep.mark()
    # Restarting the endpoint queues a scan that races the removal.
    shell_ok(ep, "vlink-epf stop && vlink-epf start")
    shell_ok(rc, away, TIMEOUT)
    r.step(f"{name}: the RC says its link is removed", rc.expect,
           r"vlink-rc \S+: root complex link removed", TIMEOUT,
           "the RC's remove to finish", since=mark)
    status, _ = rc.run("[ ! -e /dev/pci-endpoint-test.0 ]")
    r.record(f"{name}: the function is gone with it", status == 0,
             "/dev/pci-endpoint-test.0 still there")
    r.step(f"{name}: the EP sees the link down", ep.expect,
           r"pci_epc \S+: link down", TIMEOUT, "link down on the EP",
           since=ep_mark)
    mark = rc.mark()
    shell_ok(rc, back, TIMEOUT)
    r.step(f"{name}: the endpoint is enumerated again", wait_enumerated,
           rc, mark)


def ep_gone_and_back(r, ep, rc, name, away, back, function):
    """The EP's link driver goes away with a function bound, then comes
    back (back) and a new function on it is enumerated."""
    mark, ep_mark = rc.mark(), ep.mark()
    shell_ok(ep, away, TIMEOUT)
    r.step(f"{name}: the EP says its controller is removed", ep.expect,
           r"vlink-ep \S+: endpoint controller \S+ removed", TIMEOUT,
           "the EP's remove to finish", since=ep_mark)
    r.step(f"{name}: the RC removes the function", rc.expect,
           r"vlink-rc \S+: link down: removed [1-9]\d* function", TIMEOUT,
           "the RC to remove the endpoint's function", since=mark)
    out = shell_ok(ep, f"ls {CFS}/controllers")
    r.record(f"{name}: configfs lists no controller", not out.split(), out)
    shell_ok(ep, back, TIMEOUT)
    mark = rc.mark()
    shell_ok(ep, f"vlink-epf up {function}")
    r.step(f"{name}: a function on the new controller is enumerated",
           wait_enumerated, rc, mark)


def run(results, build):
    with Rig(build, name="unbind") as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0")
            wait_probed(rc, mark)
            rc_gone_and_back(results, ep, rc,
                             "unbind: RC driver unbound and bound again",
                             f"echo {LINK_DEV} > {RC_DRIVER}/unbind",
                             f"echo {LINK_DEV} > {RC_DRIVER}/bind")
            rc_gone_and_back(results, ep, rc,
                             "unbind: RC link device removed and "
                             "rescanned", REMOVE, RESCAN)
            ep_gone_and_back(results, ep, rc,
                             "unbind: EP driver unbound with a function "
                             "bound", f"echo {LINK_DEV} > {EP_DRIVER}/unbind",
                             f"echo {LINK_DEV} > {EP_DRIVER}/bind", "t1")
            ep_gone_and_back(results, ep, rc,
                             "unbind: EP link device removed and rescanned",
                             REMOVE, RESCAN, "t2")
        except Abort:
            pass
        check_consoles(results, rig, "unbind")
