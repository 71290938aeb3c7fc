# SPDX-License-Identifier: GPL-2.0
"""Topologies beyond a pair: one root complex with two endpoint guests,
each behind its own link and server, both passing the stock pcitest.sh at
the same time.
"""

import re

from vlinkrig import Rig, pcitest_sh_on
from vlinktest import Abort, check_consoles
from test_endpoint import PROBE_TIMEOUT, shell_ok
from test_pcitest import SIZES, judge_pcitest_sh

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


def concurrent_pcitest(r, guests, rc):
    domains = device_domains(rc)
    r.record("rc-2ep: one host device in each endpoint's domain",
             sorted(domains) == sorted(d for _, _, d in ENDPOINTS),
             f"devices by domain: {domains}")
    if len(domains) != len(ENDPOINTS):
        raise Abort()
    marks = {name: guests[name].mark() for name, _, _ in ENDPOINTS}
    # Each run notes the uptime it started and ended at: they overlap.
    runs = " ".join(f"( cut -d' ' -f1 /proc/uptime > /tmp/span{n}; "
                    f"{pcitest_sh_on(n)} > /tmp/pcitest{n} 2>&1; "
                    f"cut -d' ' -f1 /proc/uptime >> /tmp/span{n} ) &"
                    for n in range(len(ENDPOINTS)))
    status, out = rc.run(f"{runs} wait; cat /tmp/span0 /tmp/span1", 1800)
    spans = [float(x) for x in re.findall(r"^(\d+\.\d+)\s*$", out, re.M)]
    r.record("rc-2ep: the two pcitest.sh runs overlapped in time",
             len(spans) == 4 and spans[0] < spans[3] and spans[2] < spans[1],
             f"start/end uptimes: {spans}")
    for name, _, domain in ENDPOINTS:
        n = domains[domain]
        _, out = rc.run(f"cat /tmp/pcitest{n}", 60)
        judge_pcitest_sh(r, out, f"rc-2ep: pcitest.sh on {name}")
        # Its transfers ran on that endpoint, not on the other one.
        lines = re.findall(r"pci_epf_test \S+: (?:READ|WRITE|COPY) "
                           r"(\d+) bytes ok", guests[name].output(marks[name]))
        r.record(f"rc-2ep: {name} moved pcitest.sh's transfers",
                 len(lines) == 3 * len(SIZES),
                 f"{len(lines)} transfer lines on {name}'s console, "
                 f"expected {3 * len(SIZES)}")


def run(results, build):
    with Rig(build, name="rc2ep", topology="rc-2ep") as rig:
        try:
            rig.start_server()
            guests = {name: rig.start_guest(name) for name in
                      ("ep0", "ep1", "rc")}
            for g in guests.values():
                g.wait_shell()
            rc = guests["rc"]
            results.step("rc-2ep: both endpoints bound and enumerated",
                          bind_both, guests, rc)
            concurrent_pcitest(results, guests, rc)
            for name, g in guests.items():
                results.no_leaks(f"rc-2ep: {name}: no kmemleak leak", g)
        except Abort:
            pass
        check_consoles(results, rig, "rc-2ep")
