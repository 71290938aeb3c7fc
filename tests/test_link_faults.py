# SPDX-License-Identifier: GPL-2.0
"""Faults the link server injects on request (vlink-server --control).

(a) The next IRQ doorbell to the root complex is dropped: the stock host
    driver's MSI test (it waits 1 s) says NOT OKAY, and the next one is
    OKAY: the pending bit the endpoint set survives in the bitmap and goes
    out with the next doorbell.
(b) Doorbells to the root complex are delayed: by 200 ms a 64 KiB read
    still passes (the host waits for its completion without a timeout), by
    1500 ms the MSI test says NOT OKAY, and without delay it is OKAY again.
    The completion interrupt of a transfer is never dropped: the stock host
    driver would wait for it forever.
(c) The endpoint is taken off the link for 3 s: the root complex removes
    its function, the endpoint reports link down; when the time is up the
    function is enumerated again, the endpoint reports link up and the
    host's BAR test passes.
(d) The same for the root complex, ended early with "up rc".
(e) The root complex hears nothing (link doorbells dropped) while the
    endpoint's function is unbound: the endpoint cannot have the
    withdrawal confirmed, so it keeps the BAR memory the host may still
    write, and says so; once doorbells flow again a new function is
    enumerated.
Each case runs several times; both consoles stay clean.
"""

import re

from vlinkrig import Rig, wait_until
from vlinktest import Abort, check_consoles
from test_endpoint import shell_ok, wait_probed
from test_peer_failure import newest_test_device

ROUNDS = 3
DOWN_TIMEOUT = 30


def command(rig, cmd):
    reply = rig.server_command(cmd)
    assert reply.startswith("ok"), f"server refused '{cmd}': {reply}"
    return reply


def status_value(rig, role, name):
    reply = command(rig, "status")
    part = re.search(rf"\b{role}: (.*?)(;|$)", reply)
    assert part, f"no {role} in the status answer: {reply}"
    m = re.search(rf"\b{name}=(\d+)", part.group(1))
    assert m, f"no {name} for {role} in the status answer: {reply}"
    return int(m.group(1))


def msi_test(rc):
    """The stock MSI test: (exit status, its result line)."""
    status, out = rc.run(f"pcitest -D {newest_test_device(rc)} -m 1", 30)
    return status, out.strip()


def msi_okay(rc):
    status, out = msi_test(rc)
    assert status == 0 and re.search(r"MSI1:\s+OKAY", out), \
        f"exit {status}: {out}"


def msi_not_okay(rc):
    status, out = msi_test(rc)
    assert status != 0 and re.search(r"MSI1:\s+NOT OKAY", out), \
        f"expected NOT OKAY, got exit {status}: {out}"


def read_okay(rc, size):
    dev = newest_test_device(rc)
    out = shell_ok(rc, f"pcitest -D {dev} -r -s {size}", 120)
    assert re.search(r"READ.*OKAY", out) and "NOT OKAY" not in out, out


def dropped_irq(r, rig, ep, rc, n):
    name = f"dropped IRQ doorbell ({n})"
    mark, ep_mark = rc.mark(), ep.mark()
    before = status_value(rig, "rc", "dropped")
    command(rig, "drop rc irq 1")
    r.step(f"{name}: MSI test says NOT OKAY", msi_not_okay, rc)
    r.record(f"{name}: the server dropped exactly one",
             status_value(rig, "rc", "dropped") == before + 1,
             command(rig, "status"))
    r.step(f"{name}: the next MSI test is OKAY", msi_okay, rc)
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark)
    r.no_trouble(f"{name}: EP kernel log clean", ep, ep_mark)


def held_none(rig):
    return status_value(rig, "rc", "held") == 0


def delayed_doorbells(r, rig, ep, rc, n):
    name = f"delayed doorbells ({n})"
    mark, ep_mark = rc.mark(), ep.mark()
    before = status_value(rig, "rc", "delayed")
    command(rig, "delay rc 200")
    r.step(f"{name}: 64 KiB read passes with a 200 ms delay", read_okay,
           rc, 65536)
    r.record(f"{name}: the server delayed doorbells",
             status_value(rig, "rc", "delayed") > before,
             command(rig, "status"))
    command(rig, "delay rc 1500")
    r.step(f"{name}: MSI test with a 1500 ms delay says NOT OKAY",
           msi_not_okay, rc)
    command(rig, "delay rc 0")
    # The late interrupt must not land in the next test: wait it out.
    r.step(f"{name}: the held doorbells go out", wait_until,
           lambda: held_none(rig), 10,
           "the server to forward the doorbells it held for the RC")
    r.step(f"{name}: MSI test without delay is OKAY", msi_okay, rc)
    r.step(f"{name}: and a 64 KiB read", read_okay, rc, 65536)
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark)
    r.no_trouble(f"{name}: EP kernel log clean", ep, ep_mark)


def bar0_okay(rc):
    out = shell_ok(rc, f"pcitest -D {newest_test_device(rc)} -b 0")
    assert re.search(r"BAR0:\s+OKAY", out), out


def link_down(r, rig, ep, rc, n, role, how):
    name = f"{role} forced off the link, {how} ({n})"
    mark, ep_mark = rc.mark(), ep.mark()
    ms = 3000 if how == "timed" else 600000
    command(rig, f"down {role} {ms}")
    r.step(f"{name}: RC removes the function", rc.expect,
           r"vlink-rc \S+: link down: removed 1 function", DOWN_TIMEOUT,
           "the RC to remove the endpoint's function", since=mark)
    r.step(f"{name}: EP sees link down", ep.expect,
           r"pci_epc \S+: link down", DOWN_TIMEOUT,
           "the endpoint to see link down", since=ep_mark)
    if how == "timed":
        up_mark = ep_mark
    else:
        up_mark = ep.mark()
        out = shell_ok(rc, "vlink-pcishow")
        r.record(f"{name}: nothing enumerated while down",
                 "no PCI function in domain 0001" in out, out)
        command(rig, f"up {role}")
    r.step(f"{name}: EP sees link up again", ep.expect,
           r"pci_epc \S+: link up", DOWN_TIMEOUT + ms / 1000,
           "the endpoint to see link up", since=up_mark)
    r.step(f"{name}: RC enumerates it again", wait_probed, rc, mark)
    r.step(f"{name}: BAR0 test passes", bar0_okay, rc)
    r.step(f"{name}: MSI test passes", msi_okay, rc)
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark)
    r.no_trouble(f"{name}: EP kernel log clean", ep, ep_mark)


def unconfirmed_withdraw(r, rig, ep, rc):
    name = "withdrawal the RC does not confirm"
    mark, ep_mark = rc.mark(), ep.mark()
    command(rig, "drop rc link 1000")
    shell_ok(ep, "vlink-epf down t0", 120)
    r.step(f"{name}: the EP says it keeps the BAR memory", ep.expect,
           r"pci_epc \S+: function 0 withdrawn, but the root complex did not "
           r"confirm within \d+ s: its BAR memory is kept", DOWN_TIMEOUT,
           "the endpoint to give up waiting", since=ep_mark)
    r.step(f"{name}: the framework keeps it, not frees it", ep.expect,
           r"pci_epf_test\S*: BAR0: the host may still write its \d+ bytes "
           r"at \S+: kept, not freed", DOWN_TIMEOUT,
           "the framework to keep BAR0's memory", since=ep_mark)
    command(rig, "drop rc link 0")
    mark = rc.mark()
    shell_ok(ep, "vlink-epf up t1")
    r.step(f"{name}: a new function is enumerated once doorbells flow",
           wait_probed, rc, mark)
    r.step(f"{name}: BAR0 test passes", bar0_okay, rc)
    r.no_trouble(f"{name}: RC kernel log clean", rc, mark)


def run(results, build):
    with Rig(build, name="linkfaults", control=True) as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0")
            results.step("link faults: function enumerated", wait_probed,
                         rc, mark)
            shell_ok(rc, "pcitest -i 1")
            for n in range(ROUNDS):
                dropped_irq(results, rig, ep, rc, n)
            for n in range(ROUNDS):
                delayed_doorbells(results, rig, ep, rc, n)
            for n in range(ROUNDS):
                link_down(results, rig, ep, rc, n, "ep", "timed")
            for n in range(ROUNDS):
                link_down(results, rig, ep, rc, n, "rc", "on request")
            unconfirmed_withdraw(results, rig, ep, rc)
        except Abort:
            pass
        check_consoles(results, rig, "link faults")
