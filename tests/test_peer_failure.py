# SPDX-License-Identifier: GPL-2.0
"""A peer that disappears.

(a) The endpoint's QEMU is killed in the middle of a 4 MiB transfer (held
    open by pci-epf-test's stall_next_ms hook): the root complex notices
    within a bounded time, removes the device without an oops and stays
    usable; the endpoint guest restarts, the function is bound again and
    the host's tests pass on it.  The host's transfer stays blocked: the
    stock host driver waits for its completion interrupt without a
    timeout (drivers/misc/pci_endpoint_test.c), and we do not patch the
    judge.  Its known report of a device removed under it is excused, one
    report at a time (IN_FLIGHT_MAPPING).
    The kill comes while the host waits, not at a random point of a loop
    of transfers: the stock driver has no guard against its device going
    while an ioctl runs, so a removal that lands while the ioctl sets a
    transfer up makes it write through its freed state (KASAN, then an
    oops on the unmapped BAR).  Real hot-unplug does the same to it; the
    judge's race is not what this case measures.
(b) The root complex's QEMU is killed and restarted: the endpoint's
    function sees link down, then link up, and the host's tests pass on
    the new root complex.
(c) The root complex's QEMU is killed while the endpoint holds a window
    onto its RAM mapped (pci-epf-test's stall_next_ms hook): the endpoint
    parks the mapping at link down, and the write it makes afterwards
    does not reach the root complex's RAM file.
(d) The root complex's QEMU is killed while the link server's DMA engine
    holds a transfer into its RAM (the server's dma-stall hook): the
    endpoint's transfer completes with an error, nothing reaches the dead
    root complex's RAM, and a new root complex passes DMA tests.
(e) The link server is killed during such a transfer: the endpoint's
    transfer ends with an error within its timeouts (the DMA timeout,
    then the channel's stop), the endpoint stays usable and quiet.
Cases (a) and (b) run several times.
"""

import re

from vlinkrig import Rig, wait_until
from vlinktest import QUIET_LINES, Abort, check_consoles
from test_endpoint import bind, shell_ok, wait_probed

ROUNDS = 3
DOWN_TIMEOUT = 30
SIZE = 4 * 1024 * 1024 - 4096  # the host driver adds its alignment
# How long the endpoint holds the transfer it dies in: far past its death.
HOLD_MS = 60000

# The stock host driver's transfer in flight when its device goes keeps its
# DMA mapping (it waits forever); the debug kernel says so when the device
# is released.  That report, and only as one pending mapping of the removed
# test device that the stock driver's read made, is expected on the RC,
# once for each endpoint killed.
IN_FLIGHT_MAPPING = (
    r"WARNING: CPU: \d+ PID: \d+ at (?:kernel/dma/debug\.c:\d+ )?"
    r"dma_debug_device_change\+0x[0-9a-f]+/0x[0-9a-f]+\n"
    r"DMA-API: pci 0001:00:00\.0: device driver has pending DMA "
    r"allocations while released from device \[count=1\]\n"
    r"One of leaked entries details: \[device address=0x[0-9a-f]+\] "
    r"\[size=\d+ bytes\] \[mapped with DMA_FROM_DEVICE\] "
    r"\[mapped as single\]\n"
    + QUIET_LINES +
    r"---\[ end trace [0-9a-f]+ \]---\n"
    # the mapping's stack, after the warning: the stock driver made it
    r"DMA-API: Mapped at:\n"
    r"(?: \S+(?: \[\w+\])?\n)*?"
    r" pci_endpoint_test_\w+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\w+\])?\n"
    r"(?: \S+(?: \[\w+\])?\n)*")
# What the RC may say when an endpoint dies under a transfer.
ENDPOINT_DIED = (IN_FLIGHT_MAPPING,)


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
    shell_ok(ep, f"echo {HOLD_MS} > "
             "/sys/module/pci_epf_test/parameters/stall_next_ms")
    # In the background: the host's read never completes.
    shell_ok(rc, f"(pcitest -D {newest_test_device(rc)} -r -s {SIZE} "
             "> /tmp/held.out 2>&1 &)")
    r.step(f"{name}: the EP holds the host's buffer mapped", ep.expect,
           r"stall_next_ms: window to 0x[0-9a-f]+ held open", 60,
           "the endpoint to hold the host's read", since=ep_mark)
    mark = rc.mark()
    ep.kill()
    r.step(f"{name}: RC removes the device within {DOWN_TIMEOUT} s",
           rc.expect, r"vlink-rc \S+: link down: removed 1 function",
           DOWN_TIMEOUT, "the RC to remove the dead endpoint's function",
           since=mark)
    status, _ = rc.run("true", 30)
    r.record(f"{name}: RC shell answers", status == 0, f"exit {status}")
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark,
                 known=ENDPOINT_DIED)

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
    rc2 = new_root_complex(r, rig, ep, name, f"rc-{n + 1}", mark)
    r.no_trouble(f"{name}: EP kernel log clean", ep, mark)
    return rc2


def new_root_complex(r, rig, ep, name, guest_name, mark):
    """A root complex replaces a dead one: the link comes up, tests pass."""
    rc2 = rig.start_guest("rc", name=guest_name)
    r.step(f"{name}: EP sees link up with the new RC", ep.expect,
           r"pci_epc \S+: link up", 120, "the endpoint to see link up",
           since=mark)
    rc2.wait_shell()
    r.step(f"{name}: the new RC passes BAR and 1 MiB tests", host_passes,
           rc2)
    return rc2


RC_RAM_BASE = 0x40000000
STALL_MS = 4000
# A window of 16 pages and one of 256: the controller parks the first page
# by page and the second with a flush of the whole TLB.
STALL_SIZES = (65536, 1 << 20)


def rc_ram(rig, addr, size):
    """What the root complex's RAM holds, read from its file on this side."""
    with open(rig.ram_file("rc"), "rb") as f:
        f.seek(addr - RC_RAM_BASE)
        return f.read(size)


def root_complex_dies_under_window(r, rig, ep, rc, n, size):
    """The RC dies while the endpoint holds a window onto its RAM mapped:
    the mapping is parked at link down, so the write the endpoint still
    makes lands nowhere, not in the RAM the next root complex boots in.
    The endpoint has read the window before, so its translations are
    cached: parking must invalidate them."""
    name = f"RC killed under a mapped window of {size} bytes ({n})"
    mark = ep.mark()
    shell_ok(ep, f"echo {STALL_MS} > "
             "/sys/module/pci_epf_test/parameters/stall_next_ms")
    rc.send(f"pcitest -r -s {size}\n")
    m = r.step(f"{name}: the EP holds a window onto host RAM", ep.expect,
               r"stall_next_ms: window to (0x[0-9a-f]+) held open", 60,
               "the endpoint to map the host buffer", since=mark)
    addr = int(m.group(1), 16)
    rc.kill()
    r.step(f"{name}: the EP parks the mapping at link down", ep.expect,
           r"vlink-ep \S+: link down: parked [1-9]\d* outbound mapping",
           DOWN_TIMEOUT, "the endpoint to park its mappings", since=mark)
    before = rc_ram(rig, addr, size)
    r.step(f"{name}: the stalled write is made", ep.expect,
           rf"WRITE {size} bytes (ok|FAILED)",
           DOWN_TIMEOUT + STALL_MS / 1000, "the endpoint's late write",
           since=mark)
    r.record(f"{name}: the late write did not reach the host's RAM",
             rc_ram(rig, addr, size) == before,
             f"host RAM at {addr:#x} changed after the link went down")
    return new_root_complex(r, rig, ep, name, f"rc-window-{n}", mark)


DMA_BYTES = 65536
# The EP's DMA wait (5 s), then its channel's stop (2 s), with room.
DMA_GIVE_UP = 30
STALLING = (r"dma: ring \d+: stalling \d+ ms before a copy of (\d+) bytes "
            r"to (ep|rc) (0x[0-9a-f]+)")


def dma_stalled(r, rig, ep, rc, flag, name):
    """Arm the server's stall, start a DMA pcitest on the RC; the stalled
    copy's (RAM, offset), once the engine holds it."""
    reply = rig.server_command("dma-stall 60000")
    r.record(f"{name}: the server takes dma-stall", reply.startswith("ok"),
             reply)
    # In the background: the stock host driver waits for its interrupt
    # without a timeout, and the RC's shell must still answer after.
    shell_ok(rc, f"(pcitest -d {flag} -s {DMA_BYTES} > /tmp/dma.out 2>&1 &)")
    m = r.step(f"{name}: the server's engine holds the transfer",
               wait_until, lambda: re.search(STALLING, rig.server_log()),
               60, "the server to log 'stalling ... (dma-stall)'")
    return m.group(2), int(m.group(3), 16), int(m.group(1))


def ram_at(rig, role, off, size):
    with open(rig.ram_file(role), "rb") as f:
        f.seek(off)
        return f.read(size)


def dma_host_passes(rc):
    for flag, op in (("-w", "WRITE"), ("-r", "READ"), ("-c", "COPY")):
        out = shell_ok(rc, f"pcitest -d {flag} -s 1048576", 120)
        assert re.search(rf"{op}.*OKAY", out), out


def root_complex_dies_mid_dma(r, rig, ep, rc):
    name = "RC killed mid-DMA"
    mark = ep.mark()
    # pcitest -r: the endpoint WRITEs into the host's buffer.
    ram, off, size = dma_stalled(r, rig, ep, rc, "-r", name)
    r.record(f"{name}: the stalled copy writes {DMA_BYTES} bytes of the "
             "RC's RAM", (ram, size) == ("rc", DMA_BYTES), f"{ram} {size}")
    before = ram_at(rig, "rc", off, size)
    rc.kill()
    r.step(f"{name}: the EP's transfer fails", ep.expect,
           rf"pci_epf_test \S+: WRITE {DMA_BYTES} bytes FAILED",
           DMA_GIVE_UP, "the endpoint's DMA write to fail", since=mark)
    r.record(f"{name}: nothing reached the dead RC's RAM",
             ram_at(rig, "rc", off, size) == before,
             f"RC RAM at {off:#x} changed after the RC died")
    r.no_trouble(f"{name}: EP kernel log clean", ep, mark)
    rc2 = new_root_complex(r, rig, ep, name, "rc-dma", mark)
    r.step(f"{name}: the new RC passes DMA tests", dma_host_passes, rc2)
    return rc2


def server_dies_mid_dma(r, rig, ep, rc):
    name = "server killed mid-DMA"
    mark = ep.mark()
    # pcitest -w: the endpoint READs the host's buffer.
    dma_stalled(r, rig, ep, rc, "-w", name)
    rig.kill_server()
    r.step(f"{name}: the EP's transfer fails", ep.expect,
           rf"pci_epf_test \S+: READ {DMA_BYTES} bytes FAILED",
           DMA_GIVE_UP, "the endpoint's DMA read to fail", since=mark)
    r.step(f"{name}: the EP gives the ring up", ep.expect,
           r"DMA channel \d+: the link server did not stop the ring",
           DMA_GIVE_UP, "the endpoint to give up the stuck ring",
           since=mark)
    status, _ = ep.run("true", 30)
    r.record(f"{name}: EP shell answers", status == 0, f"exit {status}")
    r.no_trouble(f"{name}: EP kernel log clean", ep, mark)


def dma_death(results, build):
    """(d) and (e): peers that die while the server's engine copies."""
    with Rig(build, name="dmadeath", control=True) as rig:
        try:
            ep, rc = rig.start_pair()
            results.step("DMA peer death: bind", bind, ep, rc)
            rc = root_complex_dies_mid_dma(results, rig, ep, rc)
            server_dies_mid_dma(results, rig, ep, rc)
        except Abort:
            pass
        check_consoles(results, rig, "DMA peer death")


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
            for n, size in enumerate(STALL_SIZES):
                rc = root_complex_dies_under_window(results, rig, ep, rc, n,
                                                    size)
        except Abort:
            pass
        # The first RC is the one that sees the endpoints killed.
        check_consoles(results, rig, "peer failure",
                       known={"rc": ENDPOINT_DIED})
    dma_death(results, build)
