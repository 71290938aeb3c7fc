# SPDX-License-Identifier: GPL-2.0
"""A peer that disappears.

(a) The endpoint's QEMU is killed while the host runs 4 MiB transfers in a
    loop: the root complex notices within a bounded time, removes the
    device without an oops and stays usable; the endpoint guest restarts,
    the function is bound again and the host's tests pass on it.
    The transfer that was in flight stays blocked: the stock host driver
    waits for its completion interrupt without a timeout
    (drivers/misc/pci_endpoint_test.c), and we do not patch the judge.
(b) The root complex's QEMU is killed and restarted: the endpoint's
    function sees link down, then link up, and the host's tests pass on
    the new root complex.
Each case runs several times.
"""

import re

from vlinkrig import Rig
from vlinktest import QUIET_LINES, Abort, check_consoles
from test_endpoint import bar_tests, shell_ok, wait_probed

ROUNDS = 3
DOWN_TIMEOUT = 30
SIZE = 4 * 1024 * 1024 - 4096  # the host driver adds its alignment

# The stock host driver's transfer in flight when its device goes keeps its
# DMA mapping (it waits forever); the debug kernel says so when the device
# is released.  That report, and only as one pending mapping of the removed
# test device that the stock driver's write made, is expected on the RC,
# once for each endpoint killed.
IN_FLIGHT_MAPPING = (
    r"WARNING: CPU: \d+ PID: \d+ at (?:kernel/dma/debug\.c:\d+ )?"
    r"dma_debug_device_change\+0x[0-9a-f]+/0x[0-9a-f]+\n"
    r"DMA-API: pci 0001:00:00\.0: device driver has pending DMA "
    r"allocations while released from device \[count=1\]\n"
    r"One of leaked entries details: \[device address=0x[0-9a-f]+\] "
    r"\[size=\d+ bytes\] \[mapped with DMA_TO_DEVICE\] "
    r"\[mapped as single\]\n"
    + QUIET_LINES +
    r"---\[ end trace [0-9a-f]+ \]---\n"
    # the mapping's stack, after the warning: the stock driver made it
    r"DMA-API: Mapped at:\n"
    r"(?: \S+(?: \[\w+\])?\n)*?"
    r" pci_endpoint_test_\w+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+\])?\n"
    r"(?: \S+(?: \[\w+\])?\n)*")


def newest_test_device(rc):
    out = shell_ok(rc, "ls /dev/ | grep pci-endpoint-test")
    devs = sorted(out.split(), key=lambda d: int(d.rsplit(".", 1)[1]))
    assert devs, "no /dev/pci-endpoint-test.*"
    return "/dev/" + devs[-1]


def host_passes(rc):
    dev = newest_test_device(rc)
    for bar in range(6):
        out = shell_ok(rc, f"pcitest -D {dev} -b {bar}")
        assert re.search(rf"BAR{bar}:\s+OKAY", out), out
    for flag, op in (("-w", "WRITE"), ("-r", "READ")):
        out = shell_ok(rc, f"pcitest -D {dev} {flag} -s 1048576", 120)
        assert re.search(rf"{op}.*OKAY", out), out


def endpoint_dies(r, rig, ep, rc, n):
    name = f"EP killed mid-transfer ({n})"
    ep_mark = ep.mark()
    shell_ok(rc, f"(while pcitest -D {newest_test_device(rc)} -w -s {SIZE}; "
             "do :; done > /tmp/loop.out 2>&1 &)")
    ep.expect(r"pci_epf_test \S+: (READ|WRITE) \d+ bytes ok", 60,
              "the endpoint to complete a transfer of the loop",
              since=ep_mark)
    mark = rc.mark()
    ep.kill()
    r.step(f"{name}: RC removes the device within {DOWN_TIMEOUT} s",
           rc.expect, r"vlink-rc \S+: link down: removed 1 function",
           DOWN_TIMEOUT, "the RC to remove the dead endpoint's function",
           since=mark)
    status, _ = rc.run("true", 30)
    r.record(f"{name}: RC shell answers", status == 0, f"exit {status}")
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark,
                 known=IN_FLIGHT_MAPPING)

    ep2 = rig.start_guest("ep", name=f"ep-{n + 1}")
    ep2.wait_shell()
    mark = rc.mark()
    shell_ok(ep2, "vlink-epf up t0")
    r.step(f"{name}: a new endpoint is enumerated", wait_probed, rc, mark)
    r.step(f"{name}: and passes BAR and 1 MiB tests", host_passes, rc)
    return ep2


def root_complex_dies(r, rig, ep, rc, n):
    name = f"RC killed and restarted ({n})"
    mark = ep.mark()
    rc.kill()
    r.step(f"{name}: EP sees link down", ep.expect,
           r"pci_epc \S+: link down", DOWN_TIMEOUT,
           "the endpoint to see link down", since=mark)
    rc2 = rig.start_guest("rc", name=f"rc-{n + 1}")
    r.step(f"{name}: EP sees link up with the new RC", ep.expect,
           r"pci_epc \S+: link up", 120, "the endpoint to see link up",
           since=mark)
    rc2.wait_shell()
    r.step(f"{name}: the new RC passes BAR and 1 MiB tests", host_passes,
           rc2)
    r.no_trouble(f"{name}: EP kernel log clean", ep, mark)
    return rc2


def run(results, build):
    with Rig(build, name="peerfail") as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0")
            wait_probed(rc, mark)
            for n in range(ROUNDS):
                ep = endpoint_dies(results, rig, ep, rc, n)
            for n in range(ROUNDS):
                rc = root_complex_dies(results, rig, ep, rc, n)
        except Abort:
            pass
        # The first RC is the one that sees the endpoints killed.
        check_consoles(results, rig, "peer failure",
                       known={"rc": IN_FLIGHT_MAPPING})
