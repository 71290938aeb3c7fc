# SPDX-License-Identifier: GPL-2.0
"""Four pci_epf_test functions on one link controller: the root complex
sees one multi-function device, functions 0..3, each with its own config
space, BARs and interrupts; all four are tested at the same time.  Then
one is unbound on the live link: the root complex removes just that one
and the others keep working.  Last, with function 0 unbound, the
controller refuses to start.
"""

import re

from vlinkrig import Rig
from vlinktest import EINVAL, Abort, check_consoles
from test_endpoint import shell_ok

NFUNC = 4
MIB = 1048576


# A shell function on the RC: BARs, MSI and 1 MiB both ways on function $1.
DEFINE_PF = ("pf() { d=/dev/pci-endpoint-test.$1; "
             "for b in 0 1 2 3 4 5; do pcitest -D $d -b $b; done; "
             "pcitest -D $d -i 1; pcitest -D $d -m 1; pcitest -D $d -m 2; "
             f"pcitest -D $d -r -s {MIB}; pcitest -D $d -w -s {MIB}; }}")


EXPECTED = [rf"BAR{b}:\s+OKAY" for b in range(6)] + [
    r"SET IRQ TYPE TO MSI:\s+OKAY", r"MSI1:\s+OKAY", r"MSI2:\s+OKAY",
    rf"READ \(\s*{MIB} bytes\):\s+OKAY", rf"WRITE \(\s*{MIB} bytes\):\s+OKAY"]


def concurrent_tests(r, rc, funcs, label):
    """Run the per-function tests of funcs at the same time."""
    shell_ok(rc, DEFINE_PF)
    shell_ok(rc, " ".join(f"pf {i} > /tmp/f{i}.out 2>&1 &" for i in funcs) +
             " wait", 600)
    for i in funcs:
        _, out = rc.run(f"cat /tmp/f{i}.out")
        missing = [rx for rx in EXPECTED if not re.search(rx, out)]
        r.record(f"{label}: function {i} passes BAR, MSI and 1 MiB "
                 "read/write", not missing and "NOT OKAY" not in out,
                 f"missing {missing[:3]}; output {out.strip()[-300:]!r}")


def enumerate_all(rc, mark):
    rc.expect(rf"vlink-rc \S+: endpoint started \(generation \d+\): "
              rf"{NFUNC} function", 60, f"the RC to enumerate {NFUNC} "
              "functions", since=mark)
    out = shell_ok(rc, f"for i in $(seq 100); do [ -e /dev/pci-endpoint-test."
                   f"{NFUNC - 1} ] && break; sleep 0.1; done; vlink-pcishow")
    for i in range(NFUNC):
        assert re.search(rf"0001:00:00\.{i} 104c:b500 .*driver "
                         "pci-endpoint-test", out), out
    # One device, several functions: function 0 says so in its header.
    out = shell_ok(rc, "cat /sys/bus/pci/devices/0001:00:00.0/config | "
                   "od -An -tx1 -j14 -N1")
    assert int(out.split()[0], 16) & 0x80, f"header type {out!r}"


def no_function_zero(r, ep):
    """A host stops scanning at an absent function 0: a start without it
    is refused, with an errno and a log line."""
    shell_ok(ep, "vlink-epf stop && vlink-epf unbind t0")
    mark = ep.mark()
    status, out = ep.run("echo 1 > $(ls -d "
                         "/sys/kernel/config/pci_ep/controllers/*)/start")
    r.record("multi-function: a start without function 0 is refused",
             status != 0 and EINVAL in out, f"exit {status}: {out}")
    r.step("multi-function: and the controller says why", ep.expect,
           r"start: function 0 has not written its header", 10,
           "the controller's refusal", since=mark)


def run(results, build):
    with Rig(build, name="multifunction") as rig:
        try:
            scenario(results, rig)
        except Abort:
            pass
        check_consoles(results, rig, "multi-function")


def scenario(r, rig):
    ep, rc = rig.start_pair()
    mark = rc.mark()
    for i in range(NFUNC):
        shell_ok(ep, f"vlink-epf create t{i} -m 32 -x 64 && "
                 f"vlink-epf bind t{i}")
    shell_ok(ep, "vlink-epf start")
    r.step(f"multi-function: RC sees one device with functions 0..{NFUNC - 1}",
           enumerate_all, rc, mark)
    concurrent_tests(r, rc, range(NFUNC), "multi-function")

    mark = rc.mark()
    shell_ok(ep, "vlink-epf unbind t2")
    r.step("multi-function: unbinding function 2 removes it on the RC",
           rc.expect, r"vlink-rc \S+: endpoint withdrew function 2: removed",
           30, "the RC to remove function 2", since=mark)
    out = shell_ok(rc, "vlink-pcishow")
    r.record("multi-function: functions 0, 1, 3 remain",
             all(f"0001:00:00.{i}" in out for i in (0, 1, 3)) and
             "0001:00:00.2" not in out, out)
    concurrent_tests(r, rc, (0, 1, 3), "after unbinding function 2")
    no_function_zero(r, ep)
    r.no_leaks([("multi-function: ep: no kmemleak leak", ep),
                ("multi-function: rc: no kmemleak leak", rc)])
