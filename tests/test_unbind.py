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
TIMEOUT = 60


def wait_enumerated(rc, since):
    wait_probed(rc, since)
    bar_tests(rc)


def rc_unbind_bind(r, ep, rc):
    name = "unbind: RC driver unbound and bound again"
    mark, ep_mark = rc.mark(), ep.mark()
    shell_ok(rc, f"echo {LINK_DEV} > /sys/bus/pci/drivers/vlink-rc/unbind",
             TIMEOUT)
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
    shell_ok(rc, f"echo {LINK_DEV} > /sys/bus/pci/drivers/vlink-rc/bind",
             TIMEOUT)
    r.step(f"{name}: the endpoint is enumerated again", wait_enumerated,
           rc, mark)


def rc_remove_rescan(r, ep, rc):
    name = "unbind: RC link device removed and rescanned"
    mark = rc.mark()
    # Restarting the endpoint queues a scan that races the removal.
    shell_ok(ep, "vlink-epf stop && vlink-epf start")
    shell_ok(rc, f"echo 1 > /sys/bus/pci/devices/{LINK_DEV}/remove",
             TIMEOUT)
    r.step(f"{name}: the remove returns", rc.expect,
           r"vlink-rc \S+: root complex link removed", TIMEOUT,
           "the RC's remove to finish", since=mark)
    mark = rc.mark()
    shell_ok(rc, "echo 1 > /sys/bus/pci/rescan", TIMEOUT)
    r.step(f"{name}: the endpoint is enumerated again", wait_enumerated,
           rc, mark)


def ep_unbind_bind(r, ep, rc):
    name = "unbind: EP driver unbound with a function bound"
    mark, ep_mark = rc.mark(), ep.mark()
    shell_ok(ep, f"echo {LINK_DEV} > /sys/bus/pci/drivers/vlink-ep/unbind",
             TIMEOUT)
    r.step(f"{name}: the EP says its controller is removed", ep.expect,
           r"vlink-ep \S+: endpoint controller \S+ removed", TIMEOUT,
           "the EP's remove to finish", since=ep_mark)
    r.step(f"{name}: the RC removes the function", rc.expect,
           r"vlink-rc \S+: link down: removed [1-9]\d* function", TIMEOUT,
           "the RC to remove the endpoint's function", since=mark)
    out = shell_ok(ep, "vlink-epf list")
    r.record(f"{name}: configfs lists no controller", "0000:00:01.0" not in
             out.split("functions")[0], out)
    shell_ok(ep, f"echo {LINK_DEV} > /sys/bus/pci/drivers/vlink-ep/bind",
             TIMEOUT)
    mark = rc.mark()
    shell_ok(ep, "vlink-epf up t1")
    r.step(f"{name}: a function on the new controller is enumerated",
           wait_enumerated, rc, mark)


def ep_remove_rescan(r, ep, rc):
    name = "unbind: EP link device removed and rescanned"
    mark, ep_mark = rc.mark(), ep.mark()
    shell_ok(ep, f"echo 1 > /sys/bus/pci/devices/{LINK_DEV}/remove",
             TIMEOUT)
    r.step(f"{name}: the remove returns", ep.expect,
           r"vlink-ep \S+: endpoint controller \S+ removed", TIMEOUT,
           "the EP's remove to finish", since=ep_mark)
    r.step(f"{name}: the RC removes the function", rc.expect,
           r"vlink-rc \S+: link down: removed [1-9]\d* function", TIMEOUT,
           "the RC to remove the endpoint's function", since=mark)
    shell_ok(ep, "echo 1 > /sys/bus/pci/rescan", TIMEOUT)
    mark = rc.mark()
    shell_ok(ep, "vlink-epf up t2")
    r.step(f"{name}: a function on the new controller is enumerated",
           wait_enumerated, rc, mark)


def run(results, build):
    with Rig(build, name="unbind") as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0")
            wait_probed(rc, mark)
            rc_unbind_bind(results, ep, rc)
            rc_remove_rescan(results, ep, rc)
            ep_unbind_bind(results, ep, rc)
            ep_remove_rescan(results, ep, rc)
        except Abort:
            pass
        check_consoles(results, rig, "unbind")
