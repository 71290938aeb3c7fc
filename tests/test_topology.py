# SPDX-License-Identifier: GPL-2.0
"""Topologies beyond a pair, each link with its own server: one root
complex with two endpoint guests (rc-2ep), and one endpoint guest with two
link controllers, each to its own root-complex guest (ep-2rc).  In both,
the stock pcitest.sh passes on the two links at the same time (on the
debug kernel, its tests with fewer MSI-X vectors).
"""

import re

from vlinkrig import Rig, pcitest_sh_on
from vlinktest import Abort, check_consoles
from test_endpoint import PROBE_TIMEOUT, shell_ok
from test_pcitest import (CHANNELS_LINE, ENGINE_LINE, SIZES, dma_transfers,
                          judge_pcitest_sh, pcitest_short)

# How long one pcitest.sh may take (2048 MSI-X tests; the debug kernel).
PCITEST_SH_TIMEOUT = 1800
# The MSI-X vectors each concurrent run tests on the debug kernel: the
# endpoint raises vector 64 as it raises 2048, and two runs of the whole
# pcitest.sh at once cost ~4000 execs of ~80 ms each there, one vCPU
# running both.  test_pcitest runs the whole of it on every kernel.
DEBUG_MSIX = 64
# What a root complex's console shows when its pcitest.sh in the background
# has ended (the command that prints it splits it: its echo does not match).
DONE = "@@pcitest.sh-done@@"

# Each endpoint guest, the RC's link device it is behind
# (dts/vlink-rc-2ep.dtso) and the PCI domain of the bus the RC emulates
# behind it.
ENDPOINTS = (("ep0", "0000:00:01.0", "0001"), ("ep1", "0000:00:03.0", "0002"))


def bind_both(guests, rc):
    """Bind pci_epf_test on each endpoint; the RC enumerates each behind
    its own link, and the host driver makes a device of each."""
    for name, link, _ in ENDPOINTS:
        mark = rc.mark()
        shell_ok(guests[name], "vlink-epf up t0 -m 32 -x 2048")
        rc.expect(rf"vlink-rc {re.escape(link)}: endpoint started "
                  rf"\(generation \d+\): 1 function", PROBE_TIMEOUT,
                  f"the RC to enumerate {name} behind {link}", since=mark)
    shell_ok(rc, "for i in $(seq 100); do [ -e /dev/pci-endpoint-test.1 ] "
             "&& break; sleep 0.1; done; [ -e /dev/pci-endpoint-test.1 ]")


def device_domains(rc):
    """{domain: N} of /dev/pci-endpoint-test.N."""
    out = shell_ok(rc, "for n in 0 1; do echo \"dev$n $(readlink -f "
                   "/sys/class/misc/pci-endpoint-test.$n/device)\"; done")
    return {m.group(2): m.group(1)
            for m in re.finditer(r"^dev(\d) .*/([0-9a-f]{4}):[0-9a-f]{2}:"
                                 r"[0-9a-f]{2}\.\d$", out, re.M)}


def concurrent_tests(debug):
    """What two links run at once: pcitest.sh, or on the debug kernel its
    tests with DEBUG_MSIX MSI-X vectors.  (command, MSI-X, name)"""
    if debug:
        return (pcitest_short(DEBUG_MSIX), DEBUG_MSIX,
                f"pcitest.sh's tests, MSI-X 1-{DEBUG_MSIX},")
    return "pcitest.sh", 2048, "pcitest.sh"


def concurrent_pcitest(r, guests, rc):
    tests, msix, what = concurrent_tests(rc.rig.debug)
    # From a script: twice over on one line, pcitest_short() would pass
    # the shell's line length.
    shell_ok(rc, f"printf '%s\\n' '{tests}' > /tmp/concurrent-tests")
    domains = device_domains(rc)
    r.record("rc-2ep: one host device in each endpoint's domain",
             sorted(domains) == sorted(d for _, _, d in ENDPOINTS),
             f"devices by domain: {domains}")
    if len(domains) != len(ENDPOINTS):
        raise Abort()
    marks = {name: guests[name].mark() for name, _, _ in ENDPOINTS}
    # Each run notes the uptime it started and ended at: they overlap.
    runs = " ".join(f"( cut -d' ' -f1 /proc/uptime > /tmp/span{n}; "
                    f"{pcitest_sh_on(n, 'sh /tmp/concurrent-tests')} "
                    f"> /tmp/pcitest{n} 2>&1; "
                    f"cut -d' ' -f1 /proc/uptime >> /tmp/span{n} ) &"
                    for n in range(len(ENDPOINTS)))
    status, out = rc.run(f"{runs} wait; cat /tmp/span0 /tmp/span1",
                         PCITEST_SH_TIMEOUT)
    spans = [float(x) for x in re.findall(r"^(\d+\.\d+)\s*$", out, re.M)]
    r.record(f"rc-2ep: the two runs of {what} overlapped in time",
             len(spans) == 4 and spans[0] < spans[3] and spans[2] < spans[1],
             f"start/end uptimes: {spans}")
    for name, _, domain in ENDPOINTS:
        n = domains[domain]
        _, out = rc.run(f"cat /tmp/pcitest{n}", 60)
        judge_pcitest_sh(r, out, f"rc-2ep: {what} on {name}", msix)
        # Its transfers ran on that endpoint, not on the other one.
        lines = re.findall(r"pci_epf_test \S+: (?:READ|WRITE|COPY) "
                           r"(\d+) bytes ok", guests[name].output(marks[name]))
        r.record(f"rc-2ep: {name} moved pcitest.sh's transfers",
                 len(lines) == 3 * len(SIZES),
                 f"{len(lines)} transfer lines on {name}'s console, "
                 f"expected {3 * len(SIZES)}")


# ep-2rc: each root-complex guest, the endpoint's link controller it is
# behind (dts/vlink-ep-2rc.dtso), the function bound to that controller and
# the DMA region of that link's rings.
CONTROLLERS = (("rc0", "0000:00:01.0", "t0", 0),
               ("rc1", "0000:00:03.0", "t1", 1))


def bind_each_controller(guests):
    """A pci_epf_test function on each of the endpoint's controllers; each
    root complex enumerates its own."""
    ep = guests["ep"]
    for rc_name, epc, fn, _ in CONTROLLERS:
        rc = guests[rc_name]
        mark = rc.mark()
        shell_ok(ep, f"vlink-epf create {fn} -m 32 -x 2048 && "
                 f"vlink-epf bind {fn} {epc} && vlink-epf start {epc}")
        rc.expect(r"vlink-rc 0000:00:01\.0: endpoint started "
                  r"\(generation \d+\): 1 function", PROBE_TIMEOUT,
                  f"{rc_name} to enumerate the function of {epc}",
                  since=mark)
        shell_ok(rc, "for i in $(seq 100); do "
                 "[ -e /dev/pci-endpoint-test.0 ] && break; sleep 0.1; "
                 "done; [ -e /dev/pci-endpoint-test.0 ]")


def ep_dma_regions(r, ep):
    """Each controller's rings in its own region, run by its own server."""
    log = ep.output(0)
    for _, epc, _, region in CONTROLLERS:
        r.record(f"ep-2rc: {epc}: its DMA rings in region {region}",
                 re.search(rf"vlink-ep {re.escape(epc)}: DMA rings in "
                           rf"region {region} of our RAM", log),
                 f"no such line from {epc} on the endpoint's console")
    engines = re.findall(ENGINE_LINE[True], log)
    r.record("ep-2rc: both controllers' DMA engines run by their servers",
             len(engines) == len(CONTROLLERS),
             f"{len(engines)} lines /{ENGINE_LINE[True]}/")
    # Each function's channels are its own controller's: two engines.
    engine_of = {m.group(1): m.group(2) for m in re.finditer(
        r"pci_epf_test\.(\d): (" + CHANNELS_LINE[True] + ")", log)}
    devices = {re.match(r"using DMA channels (dma\d+)", line).group(1)
               for line in engine_of.values()}
    r.record("ep-2rc: each function took its own controller's private "
             "channels", len(engine_of) == len(CONTROLLERS) and
             len(devices) == len(CONTROLLERS) and "Falling back" not in log,
             f"channels by function: {engine_of}")


def pcitest_sh_on_each_rc(r, guests):
    """pcitest.sh on both root complexes at once (its tests with fewer
    MSI-X vectors on the debug kernel), then DMA on each."""
    ep = guests["ep"]
    ep_mark = ep.mark()
    tests, msix, what = concurrent_tests(ep.rig.debug)
    marks = {}
    for rc_name, *_ in CONTROLLERS:
        rc = guests[rc_name]
        marks[rc_name] = rc.mark()
        shell_ok(rc, f"( ({tests}) > /tmp/pcitest.out 2>&1; "
                 "printf '\\n@@pcitest.sh-''done@@\\n' > /dev/console) "
                 "< /dev/null > /dev/null 2>&1 & true")
    first = CONTROLLERS[0][0]
    r.record(f"ep-2rc: the two runs of {what} overlapped in time",
             DONE not in guests[first].output(marks[first]),
             "the first had ended before the second started")
    for rc_name, *_ in CONTROLLERS:
        rc = guests[rc_name]
        rc.expect(re.escape(DONE), PCITEST_SH_TIMEOUT,
                  f"pcitest.sh to end on {rc_name}", since=marks[rc_name])
        _, out = rc.run("cat /tmp/pcitest.out", 60)
        judge_pcitest_sh(r, out, f"ep-2rc: {what} on {rc_name}", msix)
    # Each function moved its own root complex's transfers.
    log = ep.output(ep_mark)
    for n, (rc_name, epc, _, _) in enumerate(CONTROLLERS):
        lines = re.findall(rf"pci_epf_test pci_epf_test\.{n}: "
                           r"(?:READ|WRITE|COPY) \d+ bytes ok", log)
        r.record(f"ep-2rc: the function on {epc} moved {rc_name}'s "
                 "transfers", len(lines) == 3 * len(SIZES),
                 f"{len(lines)} transfer lines from pci_epf_test.{n}, "
                 f"expected {3 * len(SIZES)}")
    for rc_name, epc, _, _ in CONTROLLERS:
        dma_transfers(r, guests[rc_name], (1024, 1048576),
                      f"ep-2rc: DMA through {epc}")
    ep_dma_regions(r, ep)


def rc_2ep(results, guests):
    rc = guests["rc"]
    results.step("rc-2ep: both endpoints bound and enumerated", bind_both,
                 guests, rc)
    concurrent_pcitest(results, guests, rc)


def ep_2rc(results, guests):
    results.step("ep-2rc: a function bound on each controller and "
                 "enumerated", bind_each_controller, guests)
    pcitest_sh_on_each_rc(results, guests)


def run_topology(results, build, topology, body):
    """Boot every guest of the topology, run body(results, guests), then
    look for leaks on each guest and for reports on every console."""
    with Rig(build, name=topology.replace("-", ""),
             topology=topology) as rig:
        try:
            rig.start_server()
            guests = {name: rig.start_guest(name)
                      for name in rig.topology["guests"]}
            for g in guests.values():
                g.wait_shell()
            body(results, guests)
            results.no_leaks([(f"{topology}: {name}: no kmemleak leak", g)
                              for name, g in guests.items()])
        except Abort:
            pass
        check_consoles(results, rig, topology)


def run(results, build):
    run_topology(results, build, "rc-2ep", rc_2ep)
    run_topology(results, build, "ep-2rc", ep_2rc)
