# SPDX-License-Identifier: GPL-2.0
"""A hostile endpoint, thousands of times: the endpoint's seeded fuzzer
(/sys/kernel/debug/vlink-ep/<dev>/fuzz) publishes mutated config images,
capability chains, BAR descriptors, function masks and link headers, and
the root complex rescans each, with the stock pci_endpoint_test probing
what it accepts (the functions are Renesas parts, which it drives with
its irq_type parameter, here MSI-X: the PCI core maps and writes the table
the image describes).  The root complex must answer every generation, write nothing of
the endpoint's RAM outside the BARs it accepted, stay silent but for its
refusals, and enumerate a good function afterwards.

VLINK_FUZZ_SEED (a number, or "random") and VLINK_FUZZ_COUNT choose the
run (`make soak` runs a longer one); the seed and figures are printed.
"""

import os
import random
import re

from vlinkrig import Rig
from vlinktest import Abort, check_consoles
from test_endpoint import bar_tests, shell_ok, wait_probed

FUZZ = "$(ls /sys/kernel/debug/vlink-ep/*/fuzz)"
# Per generation a rescan, a probe and a removal: a bound, generous on TCG
# (measured: 7 ms on the normal kernel, 0.65 s on the debug kernel).
FIGURES = re.compile(r"seed (\d+): (\d+) mutations, (\d+) refused, (\d+) "
                     r"accepted, (\d+) unanswered, (\d+) canary faults, "
                     r"good image (enumerated|NOT enumerated)")


def settings():
    """seed, generations and the seconds each may take at most."""
    debug = os.environ.get("VLINK_KVARIANT", "vlink") != "vlink"
    seed = os.environ.get("VLINK_FUZZ_SEED", "1")
    seed = random.randrange(1 << 31) if seed == "random" else int(seed)
    count = int(os.environ.get("VLINK_FUZZ_COUNT", "300" if debug else
                               "2000"))
    return seed, count, 3.0 if debug else 0.5


def fuzz(r, ep, rc):
    seed, count, per_generation = settings()
    # Only warnings and worse on the consoles: thousands of enumerations.
    shell_ok(rc, "dmesg -n 5")
    shell_ok(ep, "dmesg -n 5")
    status, out = r.step("fuzz: the EP's fuzzer runs to its end", ep.run,
                         f"echo {seed} {count} > {FUZZ}; echo status $?; "
                         f"cat {FUZZ}", 60 + count * per_generation)
    m = FIGURES.search(out)
    r.record("fuzz: the run reports its figures", status == 0 and m, out)
    if not m:
        raise Abort("fuzz")
    tried, refused, accepted, unanswered, canary = map(int, m.groups()[1:6])
    print(f"fuzz: seed {seed}: {tried} mutations tried, {refused} "
          f"function images refused, {accepted} accepted, {unanswered} "
          f"unanswered, {canary} canary faults", flush=True)
    r.record("fuzz: every mutation was published", tried == count,
             f"{tried} of {count}")
    r.record("fuzz: the root complex answered every generation",
             unanswered == 0, f"{unanswered} unanswered")
    r.record("fuzz: nothing written outside the accepted BARs", canary == 0,
             f"{canary} generations overwrote the canary")
    r.record("fuzz: some images refused, some accepted",
             refused > 0 and accepted > 0,
             f"{refused} refused, {accepted} accepted")
    r.record("fuzz: the unspoiled image was enumerated afterwards",
             m.group(7) == "enumerated", m.group(0))
    r.record("fuzz: the fuzzer's write succeeded", "status 0" in out, out)

    r.step("fuzz: RC shell still answers", shell_ok, rc, "dmesg -n 7")
    shell_ok(ep, "dmesg -n 7")
    out = shell_ok(rc, "vlink-pcishow")
    r.record("fuzz: nothing left enumerated", "no PCI function in domain "
             "0001" in out, out)
    mark = rc.mark()
    shell_ok(ep, "vlink-epf up t0")
    r.step("fuzz: a real function is enumerated after the run", wait_probed,
           rc, mark)
    r.step("fuzz: and passes the BAR tests", bar_tests, rc)


def run(results, build):
    with Rig(build, name="fuzz",
             cmdline="pci_endpoint_test.irq_type=2") as rig:
        try:
            ep, rc = rig.start_pair()
            fuzz(results, ep, rc)
        except Abort:
            pass
        check_consoles(results, rig, "fuzz")
