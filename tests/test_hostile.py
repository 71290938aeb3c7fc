# SPDX-License-Identifier: GPL-2.0
"""A hostile or broken endpoint: the endpoint's fault injection
(/sys/kernel/debug/vlink-ep/<dev>/fault) publishes broken BARs and
capability lists, raises a vector nobody owns and spoils the link header.
The root complex must refuse each with a log line and stay healthy, and
the link must work again once the endpoint behaves.
"""

from vlinkrig import Rig
from vlinktest import Abort, check_consoles
from test_endpoint import bar_tests, shell_ok, wait_probed

# Redirections do not expand globs in busybox sh.
FAULT = "$(ls /sys/kernel/debug/vlink-ep/*/fault)"

# fault word: what the RC must say about it
REFUSALS = {
    "bar-size": r"function 0 BAR0: .* is not a BAR this link can present, "
                r"function refused",
    "bar-outside": r"function 0 BAR0: .* is not a BAR this link can present, "
                   r"function refused",
    "cap-loop": r"function 0: capability list broken at 0x50, function "
                r"refused",
    "cap-outside": r"function 0: capability list broken at 0xfe, function "
                   r"refused",
    # The host's PCI core would retry reading this for a minute.
    "vendor-retry": r"function 0: vendor ID 0x0001 would read as a retried "
                    r"request, function refused",
}


def rc_healthy(r, name, rc, since):
    status, _ = rc.run("true", 30)
    r.record(f"{name}: RC shell still answers", status == 0, f"exit {status}")
    r.no_trouble(f"{name}: RC kernel log clean", rc, since)


def published_faults(r, ep, rc):
    for fault, refusal in REFUSALS.items():
        name = f"hostile endpoint: {fault}"
        shell_ok(ep, "vlink-epf stop")
        mark = rc.mark()
        shell_ok(ep, f"echo {fault} > {FAULT} && vlink-epf start")
        r.step(f"{name} refused with a log line", rc.expect,
               r"vlink-rc \S+: " + refusal, 30, f"the RC to refuse {fault}",
               since=mark)
        out = shell_ok(rc, "vlink-pcishow")
        r.record(f"{name}: nothing enumerated",
                 "no PCI function in domain 0001" in out, out)
        rc_healthy(r, name, rc, mark)

    # The same endpoint, behaving again: the link works.
    shell_ok(ep, "vlink-epf stop")
    mark = rc.mark()
    shell_ok(ep, "vlink-epf start")
    r.step("hostile endpoint: a clean start enumerates again", wait_probed,
           rc, mark)
    r.step("hostile endpoint: BAR tests pass again", bar_tests, rc)


def bogus_vector(r, ep, rc):
    mark = rc.mark()
    shell_ok(ep, f"echo msi-bogus > {FAULT}")
    r.step("hostile endpoint: a vector nobody owns is dropped with a log "
           "line", rc.expect, r"vlink-rc \S+: endpoint raised vector \d+, "
           r"which no function owns: dropped", 30,
           "the RC to drop the bogus vector", since=mark)
    rc_healthy(r, "hostile endpoint: msi-bogus", rc, mark)
    status, out = rc.run("pcitest -i 1; pcitest -m 1")
    r.record("hostile endpoint: MSI still works after a bogus vector",
             status == 0 and "MSI1:\t\tOKAY" in out, out)


def bad_header(r, rig, ep, rc):
    """A root complex that probes while the header is spoiled refuses."""
    shell_ok(ep, f"echo bad-magic > {FAULT}")
    rc.kill()
    rc2 = rig.start_guest("rc", name="rc-bad-header")
    r.step("hostile endpoint: RC refuses a link header with a bad magic",
           rc2.expect, r"vlink-rc \S+: link shm has magic 0x\w+, not "
           r"0x4b4e4c56", 120, "the RC to refuse the header")
    r.step("hostile endpoint: RC boots to a shell anyway", rc2.wait_shell)
    r.no_trouble("hostile endpoint: bad header: RC kernel log clean", rc2)
    shell_ok(ep, f"echo good-magic > {FAULT}")
    rc2.kill()
    rc3 = rig.start_guest("rc", name="rc-good-header")
    mark = ep.mark()
    rc3.wait_shell()
    r.step("hostile endpoint: with the header restored the link comes up",
           ep.expect, r"pci_epc \S+: link up", 60, "link up on the EP",
           since=mark)
    r.step("hostile endpoint: and the BAR tests pass", bar_tests, rc3)


def run(results, build):
    with Rig(build, name="hostile") as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0")
            wait_probed(rc, mark)
            published_faults(results, ep, rc)
            bogus_vector(results, ep, rc)
            bad_header(results, rig, ep, rc)
            results.no_trouble("hostile endpoint: EP kernel log clean", ep)
        except Abort:
            pass
        check_consoles(results, rig, "hostile endpoint")
