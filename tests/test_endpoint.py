# SPDX-License-Identifier: GPL-2.0
"""The endpoint framework end to end: configfs on the EP guest, the stock
pci_endpoint_test driver and pcitest on the RC guest.

  bind     a pci_epf_test function is created, bound and started; the RC
           enumerates it, pci_endpoint_test probes, pcitest -b 0..5 pass
  configfs bad input gets an errno, no oops, and the framework still works
  cycles   three stop/start cycles: removed and re-enumerated every time
"""

import re

from vlinkrig import Rig, shell_ok
from vlinktest import Abort, check_consoles

CFS = "/sys/kernel/config/pci_ep"
FUNCS = f"{CFS}/functions/pci_epf_test"
PROBE_TIMEOUT = 60


def epc_name(ep):
    status, out = ep.run(f"ls {CFS}/controllers")
    names = out.split()
    assert status == 0 and len(names) == 1, f"controllers: {out!r}"
    return names[0]


def wait_probed(rc, since):
    rc.expect(r"vlink-rc \S+: endpoint started \(generation \d+\): "
              r"[1-9]\d* function", PROBE_TIMEOUT,
              "the RC to enumerate the endpoint", since=since)
    shell_ok(rc, "for i in $(seq 100); do [ -e /dev/pci-endpoint-test.0 ] "
             "&& break; sleep 0.1; done; [ -e /dev/pci-endpoint-test.0 ]")


def wait_removed(rc, since):
    rc.expect(r"vlink-rc \S+: link down: removed [1-9]\d* function",
              PROBE_TIMEOUT, "the RC to remove the endpoint's functions",
              since=since)
    out = shell_ok(rc, "vlink-pcishow")
    assert "no PCI function in domain 0001" in out, out


def bar_tests(rc):
    for bar in range(6):
        out = shell_ok(rc, f"pcitest -b {bar}")
        assert re.search(rf"BAR{bar}:\s+OKAY", out), out


def bind(ep, rc, name="t0"):
    mark = rc.mark()
    shell_ok(ep, f"vlink-epf up {name}")
    wait_probed(rc, mark)


# Each: what is done on the EP, and the errno text the shell must report.
def bad_inputs(epc):
    f = f"{FUNCS}/bad"
    c = f"{CFS}/controllers/{epc}"
    return [
        ("vendorid not a number", f"echo abc > {f}/vendorid",
         "Invalid argument"),
        ("vendorid negative", f"echo -1 > {f}/vendorid", "Invalid argument"),
        ("vendorid 0x10000", f"echo 0x10000 > {f}/vendorid",
         "Invalid argument|out of range"),
        ("deviceid empty", f"echo > {f}/deviceid", "Invalid argument"),
        ("msi_interrupts 0", f"echo 0 > {f}/msi_interrupts",
         "Invalid argument"),
        ("msi_interrupts 33", f"echo 33 > {f}/msi_interrupts",
         "Invalid argument"),
        ("msix_interrupts 0", f"echo 0 > {f}/msix_interrupts",
         "Invalid argument"),
        ("msix_interrupts 2049", f"echo 2049 > {f}/msix_interrupts",
         "Invalid argument"),
        ("start with no function bound", f"echo 1 > {c}/start",
         "Invalid argument|No such device"),
        ("link to a missing controller",
         f"ln -s {f} {CFS}/controllers/no-such-epc/bad",
         "No such file or directory"),
    ]


def configfs_bad_input(r, ep, rc):
    epc = epc_name(ep)
    c = f"{CFS}/controllers/{epc}"
    f = f"{FUNCS}/bad"
    mark = ep.mark()
    shell_ok(ep, f"mkdir {f}")
    for name, cmd, errno in bad_inputs(epc):
        status, out = ep.run(cmd)
        r.record(f"configfs: {name} refused", status != 0 and
                 re.search(errno, out) is not None,
                 f"exit {status}, output {out.strip()!r}, expected {errno}")

    # Linking the same function twice, and removing a bound function.
    shell_ok(ep, f"ln -s {f} {c}/bad")
    status, out = ep.run(f"ln -s {f} {c}/bad-again")
    r.record("configfs: linking the same function twice refused",
             status != 0 and re.search("busy|exists|Invalid", out, re.I),
             f"exit {status}, output {out.strip()!r}")
    status, out = ep.run(f"rmdir {f}")
    r.record("configfs: rmdir of a bound function refused", status != 0,
             f"exit {status}, output {out.strip()!r}")
    shell_ok(ep, f"rm {c}/bad; rmdir {f}")
    r.no_trouble("configfs: ep kernel log clean after bad input", ep, mark)

    # And the framework still works.
    r.step("configfs: bind after bad input", bind, ep, rc)
    r.step("configfs: BAR tests after bad input", bar_tests, rc)
    r.step("endpoint: every BAR is at least a page, the controller's "
           "alignment", bars_page_sized, rc)


def bars_page_sized(rc):
    """The controller's window maps whole pages and says so (epc_features
    align), so every BAR the function allocates is at least a page."""
    out = shell_ok(rc, "head -6 /sys/bus/pci/devices/0001:00:00.0/resource")
    sizes = [int(end, 16) - int(start, 16) + 1
             for start, end, _ in (line.split() for line in out.split("\n")
                                   if line.startswith("0x"))
             if int(end, 16)]
    assert sizes and min(sizes) >= 4096, f"BAR sizes {sizes}"


def cycles(r, ep, rc, n=3):
    for i in range(1, n + 1):
        mark = rc.mark()
        shell_ok(ep, "vlink-epf stop")
        r.step(f"cycle {i}: RC removes the device on stop", wait_removed,
               rc, mark)
        mark = rc.mark()
        shell_ok(ep, "vlink-epf start")
        r.step(f"cycle {i}: RC re-enumerates on start", wait_probed, rc,
               mark)
        r.step(f"cycle {i}: BAR tests pass", bar_tests, rc)


def run(results, build):
    with Rig(build, name="endpoint") as rig:
        try:
            scenario(results, rig)
        except Abort:
            pass
        check_consoles(results, rig, "endpoint")


def scenario(r, rig):
    rig.start_server()
    ep = rig.start_guest("ep")
    rc = rig.start_guest("rc")
    r.step("endpoint: both guests boot", lambda: (ep.wait_shell(),
                                                   rc.wait_shell()))
    configfs_bad_input(r, ep, rc)
    cycles(r, ep, rc)
    r.no_leaks([("endpoint: ep: no kmemleak leak", ep),
                ("endpoint: rc: no kmemleak leak", rc)])
