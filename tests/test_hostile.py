# SPDX-License-Identifier: GPL-2.0
"""A hostile or broken endpoint: the endpoint's fault injection
(/sys/kernel/debug/vlink-ep/<dev>/fault) publishes broken BARs and
capability lists, raises a vector nobody owns, moves a BAR the host
enumerated as fixed and spoils the link header.
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
    "bar-size": r"function 0: BAR0 .* is not a BAR this link can present, "
                r"function refused",
    "bar-outside": r"function 0: BAR0 .* is not a BAR this link can present, "
                   r"function refused",
    # Two windows onto one piece of memory.
    "bar-overlap": r"function 0: BAR\d overlaps BAR\d of function 0, "
                   r"function refused",
    # The loop comes back to the MSI capability: a second one, or too many.
    "cap-loop": r"function 0: (capability list broken|second MSI "
                r"capability) at 0x50, function refused",
    "cap-outside": r"function 0: capability list broken at 0xfe, function "
                   r"refused",
    # Its mask bits would end beyond the 256-byte header.
    "cap-msi-end": r"function 0: capability at 0xf0, 24 bytes, leaves the "
                   r"header space, function refused",
    # The PCI core would map and write the table beyond the BAR.
    "msix-outside": r"function 0: MSI-X table BAR0\+0x[0-9a-f]+ \(\d+ "
                    r"bytes\) is not inside a BAR, function refused",
    "header-type": r"function 0: header type 1 is not an endpoint's, "
                   r"function refused",
    # The host's PCI core would retry reading this for a minute.
    "vendor-retry": r"function 0: vendor ID 0x0001 would read as a retried "
                    r"request, function refused",
}

RC_CONFIG = "/sys/bus/pci/devices/0001:00:00.0/config"


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


def restore_spares_new_image(r, ep, rc):
    """Undoing a fault puts back only what the fault spoiled: a function
    bound since keeps its own image (its device ID here)."""
    shell_ok(ep, "vlink-epf stop")
    mark = rc.mark()
    shell_ok(ep, f"echo bar-outside > {FAULT} && vlink-epf start")
    r.step("hostile endpoint: bar-outside refused before a rebind",
           rc.expect, r"vlink-rc \S+: " + REFUSALS["bar-outside"], 30,
           "the RC to refuse bar-outside", since=mark)
    mark = rc.mark()
    # TI J721E: another ID the stock host driver takes.
    shell_ok(ep, "vlink-epf down t0 && vlink-epf up t9 -D 0xb00d")
    r.step("hostile endpoint: a function bound after a fault is enumerated "
           "with its own image", rc.expect, r"pci 0001:00:00\.0: "
           r"\[104c:b00d\]", 30, "the RC to enumerate 104c:b00d",
           since=mark)
    r.step("hostile endpoint: and probed", wait_probed, rc, mark)
    r.step("hostile endpoint: and passes the BAR tests", bar_tests, rc)
    mark = rc.mark()
    shell_ok(ep, "vlink-epf down t9 && vlink-epf up t0")
    wait_probed(rc, mark)


def config_words(rc, offset, count):
    """count 32-bit words of the function's config space, as the RC reads
    them through our config accessors."""
    out = shell_ok(rc, f"od -An -tx4 -j{offset} -N{4 * count} {RC_CONFIG}")
    return out.split()


def image_changed_under_host(r, ep, rc):
    """The endpoint rewrites its published image after enumeration: the
    host keeps reading the copy it validated."""
    before = config_words(rc, 0, 16)
    shell_ok(ep, f"echo vendor-flip > {FAULT}")
    after = config_words(rc, 0, 16)
    r.record("hostile endpoint: an image rewritten after enumeration does "
             "not reach the host", after == before,
             f"before {before}, after {after}")
    r.step("hostile endpoint: BAR tests pass on the validated copy",
           bar_tests, rc)
    # A function bound anew publishes its image whole again.
    mark = rc.mark()
    shell_ok(ep, "vlink-epf down t0 && vlink-epf up t0")
    r.step("hostile endpoint: a function bound anew after the rewrite is "
           "enumerated", wait_probed, rc, mark)


def fixed_bar_moved(r, ep, rc):
    """The endpoint moves a BAR the host enumerated as fixed and marks it
    movable: the RC says so and keeps showing the memory it enumerated."""
    mark = rc.mark()
    shell_ok(ep, f"echo bar-move > {FAULT}")
    r.step("hostile endpoint: a fixed BAR moved under the host is reported",
           rc.expect, r"vlink-rc \S+: function 0: BAR0 moved to 0x[0-9a-f]+, "
           r"but the host reaches it at a fixed address", 30,
           "the RC to report the moved BAR", since=mark)
    r.step("hostile endpoint: and not followed: BAR tests pass", bar_tests,
           rc)
    mark = rc.mark()
    shell_ok(ep, "vlink-epf down t0 && vlink-epf up t0")
    r.step("hostile endpoint: the function bound anew after the move is "
           "enumerated", wait_probed, rc, mark)


def bar_address_fixed(r, rc):
    """The translation behind a BAR is fixed: its address is read-only,
    only sizing (all ones) reads back something else."""
    bar0 = config_words(rc, 16, 1)
    shell_ok(rc, f"printf '\\000\\000\\000\\040' | dd of={RC_CONFIG} bs=4 "
             "seek=4 count=1 conv=notrunc 2>/dev/null")
    r.record("hostile endpoint: a BAR address the host writes does not "
             "stick", config_words(rc, 16, 1) == bar0,
             f"BAR0 was {bar0}, reads {config_words(rc, 16, 1)}")
    status, out = rc.run("pcitest -b 0")
    r.record("hostile endpoint: BAR0 still works after the write",
             status == 0 and "OKAY" in out, out)


def header_function_count(r, ep, rc):
    """The server's function count, spoiled while the RC runs, is not
    what the RC loops on."""
    shell_ok(ep, "vlink-epf stop")
    mark = rc.mark()
    shell_ok(ep, f"echo max-functions > {FAULT} && vlink-epf start")
    r.step("hostile endpoint: a spoiled function count in the header: the "
           "RC enumerates as usual", wait_probed, rc, mark)
    r.step("hostile endpoint: spoiled function count: BAR tests pass",
           bar_tests, rc)
    shell_ok(ep, f"echo good-magic > {FAULT}")
    rc_healthy(r, "hostile endpoint: max-functions", rc, mark)


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
            restore_spares_new_image(results, ep, rc)
            bar_address_fixed(results, rc)
            header_function_count(results, ep, rc)
            bogus_vector(results, ep, rc)
            image_changed_under_host(results, ep, rc)
            fixed_bar_moved(results, ep, rc)
            bad_header(results, rig, ep, rc)
            results.no_trouble("hostile endpoint: EP kernel log clean", ep)
        except Abort:
            pass
        check_consoles(results, rig, "hostile endpoint")
