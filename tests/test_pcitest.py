# SPDX-License-Identifier: GPL-2.0
"""The stock host side as the judge: tools/pci/pcitest.sh end to end, its
transfers again over DMA, the host driver with legacy and MSI-X interrupts,
and a corrupted transfer that the checksums must catch.
"""

import re

from vlinkrig import Rig, RigError
from vlinktest import Abort, check_consoles
from test_endpoint import bind, shell_ok, wait_probed

# What pcitest.sh prints OKAY for: 6 BARs, set-irq-type legacy + the
# legacy IRQ, set MSI + 32 MSI, set MSI-X + 2048 MSI-X, set MSI again, and
# 5 sizes each of read, write and copy.
PCITEST_SH = {
    r"BAR\d": 6,
    r"SET IRQ TYPE TO LEGACY": 1,
    r"LEGACY IRQ": 1,
    r"SET IRQ TYPE TO MSI": 2,
    r"MSI\d+": 32,
    r"SET IRQ TYPE TO MSI-X": 1,
    r"MSI-X\d+": 2048,
    r"READ \(\s*\d+ bytes\)": 5,
    r"WRITE \(\s*\d+ bytes\)": 5,
    r"COPY \(\s*\d+ bytes\)": 5,
}
SIZES = (1, 1024, 1025, 1024000, 1024001)


def count_results(out):
    counts = dict.fromkeys(PCITEST_SH, 0)
    bad = []
    for line in out.splitlines():
        m = re.match(r"(.*?):\s+(OKAY|NOT OKAY)\s*$", line)
        if not m:
            continue
        if m.group(2) != "OKAY":
            bad.append(line.strip())
            continue
        for rx in counts:
            if re.fullmatch(rx, m.group(1).strip()):
                counts[rx] += 1
    return counts, bad


def judge_pcitest_sh(r, out, title="pcitest.sh", msix=2048):
    """Every test pcitest.sh runs said OKAY in out, its whole output (or
    pcitest_short()'s, which tests msix MSI-X vectors)."""
    counts, bad = count_results(out)
    r.record(f"{title}: no NOT OKAY line", not bad,
             f"{len(bad)} failed, first: {bad[:3]}")
    for rx, want in {**PCITEST_SH, r"MSI-X\d+": msix}.items():
        name = rx.replace("\\d+", "N").replace("\\d", "N")
        name = re.sub(r"\\\(.*", "(size)", name)
        r.record(f"{title}: {want} x {name} OKAY", counts[rx] == want,
                 f"{counts[rx]} OKAY lines")


def pcitest_short(msix):
    """A shell command that runs pcitest.sh's tests in its order, but
    MSI-X vectors 1 to msix only, not 2048: where a second pcitest.sh
    would only repeat the first's 4096 execs at the debug kernel's ~80 ms
    each."""
    sizes = " ".join(map(str, SIZES))
    return ("for b in 0 1 2 3 4 5; do pcitest -b $b; done; "
            "pcitest -i 0; pcitest -l; pcitest -i 1; "
            "for m in $(seq 32); do pcitest -m $m; done; pcitest -i 2; "
            f"for x in $(seq {msix}); do pcitest -x $x; done; pcitest -i 1; "
            f"for op in -r -w -c; do for s in {sizes}; do "
            "pcitest $op -s $s; done; done")


def pcitest_sh(r, rc):
    status, out = rc.run("pcitest.sh > /tmp/pcitest.out 2>&1; "
                         "cat /tmp/pcitest.out", 900)
    judge_pcitest_sh(r, out)


def dma_transfers(r, rc, sizes=SIZES, name="DMA"):
    for op, flag in (("READ", "-r"), ("WRITE", "-w"), ("COPY", "-c")):
        for size in sizes:
            status, out = rc.run(f"pcitest -d {flag} -s {size}", 120)
            r.record(f"{name}: {op} {size} bytes OKAY",
                     status == 0 and re.search(rf"{op} \(\s*{size} bytes\):"
                                               r"\s+OKAY", out),
                     f"exit {status}: {out.strip()[-200:]}")


# What the endpoint says about its DMA engine, with the server's or without.
ENGINE_LINE = {
    True: r"DMA engine: \d+ channels, run by the link server",
    False: r"DMA engine: \d+ channels, run by workers on this CPU",
}
CHANNELS_LINE = {
    True: r"using DMA channels dma\d+chan\d+ \(read\), dma\d+chan\d+ "
          r"\(write\), dma\d+chan\d+ \(copy\)",
    False: r"using DMA channel dma\d+chan\d+ through the outbound windows",
}


DMA_LINE = (r"pci_epf_test \S+: (READ|WRITE|COPY) \d+ bytes ok, [\d.]+ MB/s, "
            r"DMA, map/unmap (\d+) us")


def dma_engine_used(r, ep, server, name):
    """The engine the rig asked for ran the transfers, on the channels it
    offers: private read and write channels only with the server's.  Those
    take the host's addresses: READ and WRITE then map no window, and only
    COPY, host to host, does."""
    log = ep.output(0)
    lines = re.findall(DMA_LINE, log)
    wrong = [f"{op} map/unmap {us} us" for op, us in lines
             if (int(us) == 0) != (server and op != "COPY")]
    which = "COPY only" if server else "every transfer"
    r.record(f"{name}: windows mapped for {which}", lines and not wrong,
             f"{len(lines)} DMA lines; {wrong[:4] or 'none'}")
    r.record(f"{name}: the endpoint's DMA engine is "
             f"{'the server' if server else 'its own CPU'}",
             re.search(ENGINE_LINE[server], log),
             f"no line /{ENGINE_LINE[server]}/ in the endpoint's log")
    r.record(f"{name}: pci-epf-test took the channels it should",
             re.search(CHANNELS_LINE[server], log) and
             "Falling back" not in log,
             f"no line /{CHANNELS_LINE[server]}/ in the endpoint's log")


DMA_RTT = "$(ls /sys/kernel/debug/vlink/*/dma_rtt)"
DMA_RTT_LINE = (r"^dma {size} n={n} min_ns=(\d+) median_ns=(\d+) "
                r"p99_ns=(\d+) max_ns=(\d+)$")


def dma_rtt(r, ep, name):
    """debugfs dma_rtt times back-to-back transfers on the engine, each
    checked at its destination; what it cannot do it refuses."""
    for n, size in ((200, 1024), (20, 1048576)):
        status, out = ep.run(f"echo '{n} {size}' > {DMA_RTT} && "
                             f"cat {DMA_RTT}", 120)
        m = re.search(DMA_RTT_LINE.format(n=n, size=size), out, re.M)
        r.record(f"{name}: dma_rtt: {n} back-to-back transfers of {size} "
                 "bytes timed",
                 status == 0 and m and
                 0 < int(m.group(1)) <= int(m.group(2)) <= int(m.group(4)),
                 f"exit {status}: {out.strip()[-200:]}")
    for bad in ("0", "1 2", "1 4190209", "100001", "x"):
        status, out = ep.run(f"echo '{bad}' > {DMA_RTT}")
        r.record(f"{name}: dma_rtt: '{bad}' refused",
                 status != 0 and "Invalid argument" in out,
                 f"exit {status}: {out.strip()[-200:]}")
    status, out = ep.run(f"cat {DMA_RTT}")
    r.record(f"{name}: dma_rtt: a refusal keeps the last figures",
             re.search(DMA_RTT_LINE.format(n=20, size=1048576), out, re.M),
             out.strip()[-200:])


DMA_POLL_US = "/sys/module/pci_epf_test/parameters/dma_poll_us"
DMA_POLLED = "$(ls /sys/kernel/debug/vlink/*/dma_polled)"


def read_number(ep, path):
    """The number a sysfs or debugfs file of the endpoint holds."""
    out = shell_ok(ep, f"cat {path}")
    m = re.search(r"^(\d+)\s*$", out, re.M)
    assert m, f"{path}: {out!r}"
    return int(m.group(1))


def dma_polling(r, ep, rc, polled_before):
    """pci-epf-test polls the engine for dma_poll_us before it sleeps, and
    the transfers so far ended that way; with 0 every transfer ends by its
    interrupt alone, and still works."""
    polled = r.step("DMA: completions taken by polling counted",
                    read_number, ep, DMA_POLLED)
    r.record("DMA: pci-epf-test's polls took completions",
             polled > polled_before,
             f"dma_polled went from {polled_before} to {polled}")
    status, out = ep.run(f"cat {DMA_POLL_US} && echo 0 > {DMA_POLL_US} && "
                         f"cat {DMA_POLL_US}")
    r.record("DMA: dma_poll_us is 500 by default and takes 0",
             status == 0 and re.findall(r"^(\d+)\s*$", out, re.M) ==
             ["500", "0"], f"exit {status}: {out.strip()[-200:]}")
    try:
        dma_transfers(r, rc, (1024, 1048576), "DMA, dma_poll_us=0")
        after = r.step("DMA, dma_poll_us=0: polled completions read",
                       read_number, ep, DMA_POLLED)
        r.record("DMA, dma_poll_us=0: no completion taken by polling",
                 after == polled,
                 f"dma_polled went from {polled} to {after}")
    finally:
        ep.run(f"echo 500 > {DMA_POLL_US}")


def fallback_run(r, build):
    """A server without the RAM files: the channels copy on the EP's CPU."""
    name = "DMA without the server's engine"
    with Rig(build, name="dmacpu", server_dma=False) as rig:
        try:
            ep, rc = rig.start_pair()
            r.step(f"{name}: bind", bind, ep, rc, "t0")
            dma_transfers(r, rc, (1024, 1048576), name)
            dma_engine_used(r, ep, False, name)
            dma_rtt(r, ep, name)
        except Abort:
            pass
        check_consoles(r, rig, "dmacpu")


CORRUPT_NEXT = "/sys/module/pci_epf_test/parameters/corrupt_next"
CORRUPT_SIZE = 4096
# pcitest's flag, its name for the transfer, and the endpoint's command for
# it with who catches the flipped byte: -w has the endpoint READ the
# host's buffer and check its CRC; -r has it WRITE the host's buffer, whose
# CRC the host checks; -c has it COPY, and the host compares the copies.
CORRUPTIONS = (("-w", "WRITE", "READ"), ("-r", "READ", "WRITE"),
               ("-c", "COPY", "COPY"))


def corruption(r, ep, rc):
    """Each kind of transfer with one byte flipped fails the stock check,
    and the endpoint's console shows the flip happened in that transfer."""
    for flag, op, ep_op in CORRUPTIONS:
        name = f"corruption: pcitest {flag}"
        mark = ep.mark()
        shell_ok(ep, f"echo 1 > {CORRUPT_NEXT}")
        status, out = rc.run(f"pcitest {flag} -s {CORRUPT_SIZE}")
        r.record(f"{name}: a byte flipped in flight says NOT OKAY",
                 status != 0 and re.search(rf"{op}.*NOT OKAY", out),
                 f"exit {status}: {out!r}")
        # The hook says which byte, just before the transfer's own line.
        try:
            ep.expect(rf"corrupt_next: flipping byte {CORRUPT_SIZE // 2}\n"
                      rf"(?:.*\n)*?.*pci_epf_test \S+: {ep_op} "
                      rf"{CORRUPT_SIZE} bytes ", 10,
                      f"the endpoint to flip a byte of its {ep_op}",
                      since=mark)
            flipped, why = True, ""
        except RigError as e:
            flipped, why = False, str(e)
        r.record(f"{name}: the endpoint flipped a byte of that {ep_op}",
                 flipped, why)
        left = read_number(ep, CORRUPT_NEXT)
        r.record(f"{name}: corrupt_next is back to 0", left == 0,
                 f"corrupt_next is {left}")
        mark = ep.mark()
        status, out = rc.run(f"pcitest {flag} -s {CORRUPT_SIZE}")
        r.record(f"{name}: the next transfer is clean again",
                 status == 0 and re.search(rf"{op}.*OKAY", out) and
                 "NOT OKAY" not in out and
                 "corrupt_next" not in ep.output(mark),
                 f"exit {status}: {out!r}; endpoint: "
                 f"{ep.output(mark).strip()[-200:]!r}")


# The interrupt chip /proc/interrupts must show for each host irq_type.
IRQ_CHIP = {0: "vlink-intx", 2: "vlink-pci-msi"}


def irq_type_run(r, build, irq_type, name):
    """Host driver with irq_type forced: an id without driver data."""
    with Rig(build, name=f"irqtype{irq_type}",
             cmdline=f"pci_endpoint_test.irq_type={irq_type}") as rig:
        try:
            ep, rc = rig.start_pair()
            mark = rc.mark()
            shell_ok(ep, "vlink-epf up t0 -v 0x1912 -D 0x0028 -x 64")
            r.step(f"{name}: host driver probes 1912:0028", wait_probed, rc,
                   mark)
            for op, flag in (("READ", "-r"), ("WRITE", "-w")):
                status, out = rc.run(f"pcitest {flag} -s 1048576", 120)
                r.record(f"{name}: {op} 1 MiB OKAY",
                         status == 0 and re.search(rf"{op}.*OKAY", out),
                         f"exit {status}: {out.strip()[-200:]}")
            status, out = rc.run("grep pci-endpoint-test /proc/interrupts")
            m = re.search(r"^\s*\d+:\s+(\d+)\s+(\S+)", out, re.M)
            r.record(f"{name}: interrupts arrived on {IRQ_CHIP[irq_type]}",
                     m and int(m.group(1)) > 0 and
                     m.group(2) == IRQ_CHIP[irq_type], f"{out.strip()!r}")
        except Abort:
            pass
        check_consoles(r, rig, name)


# /sys/bus/pci/devices/*/resource: a 64-bit memory BAR (IORESOURCE_MEM_64).
IORESOURCE_MEM_64 = 0x00100000


def host_bars(rc):
    """Each standard BAR of the host's test device: None when absent, else
    whether the host sees a 64-bit BAR."""
    status, out = rc.run("head -n 6 /sys/bus/pci/drivers/pci-endpoint-test/"
                         "*/resource")
    rows = [ln.split() for ln in out.splitlines() if ln.startswith("0x")]
    assert status == 0 and len(rows) == 6, f"no resource file: {out!r}"
    return [None if int(end, 16) == 0 else bool(int(fl, 16) &
                                                IORESOURCE_MEM_64)
            for _, end, fl in rows]


def bar64_run(r, build):
    """pci-epf-test on a controller whose BARs 0, 2 and 4 are fixed 64-bit
    (dts/vlink-ep.bar64.dtso): the host finds three 64-bit BARs and
    pcitest passes on each, and on the transfers through them."""
    name = "pcitest, 64-bit BARs"
    with Rig(build, name="bar64", trees={"ep": "ep.bar64"}) as rig:
        try:
            ep, rc = rig.start_pair()
            r.record(f"{name}: ep says its BARs 0, 2 and 4 are 64-bit",
                     re.search(r"vlink-ep \S+: BARs 0, 2 and 4 are 64-bit",
                               ep.output()), "no such line on the console")
            r.step(f"{name}: bind 104c:b500", bind, ep, rc)
            bars = host_bars(rc)
            r.record(f"{name}: the host sees 64-bit BARs 0, 2 and 4 and "
                     "nothing in 1, 3 and 5",
                     bars == [True, None, True, None, True, None],
                     f"BARs as the host sees them: {bars}")
            for bar in range(6):
                status, out = rc.run(f"pcitest -b {bar}")
                okay = re.search(rf"BAR{bar}:\s+OKAY", out)
                r.record(f"{name}: pcitest -b {bar} "
                         f"{'OKAY' if bar % 2 == 0 else 'NOT OKAY (no BAR)'}",
                         bool(okay) == (bar % 2 == 0), out.strip()[-200:])
            for op, flag in (("READ", "-r"), ("WRITE", "-w"), ("COPY", "-c")):
                status, out = rc.run(f"pcitest {flag} -s 1048576", 120)
                r.record(f"{name}: {op} 1 MiB OKAY", status == 0 and
                         re.search(rf"{op} \(\s*1048576 bytes\):\s+OKAY",
                                   out), f"exit {status}: {out[-200:]}")
        except Abort:
            pass
        check_consoles(r, rig, name)


def run(results, build):
    with Rig(build, name="pcitest") as rig:
        try:
            ep, rc = rig.start_pair()
            results.step("pcitest: bind 104c:b500 with 32 MSI, 2048 MSI-X",
                         bind, ep, rc, "t0 -m 32 -x 2048")
            pcitest_sh(results, rc)
            polled = results.step("DMA: polled completions read before",
                                  read_number, ep, DMA_POLLED)
            dma_transfers(results, rc)
            dma_engine_used(results, ep, True, "DMA")
            dma_rtt(results, ep, "DMA")
            dma_polling(results, ep, rc, polled)
            corruption(results, ep, rc)
            results.no_leaks([("pcitest: ep: no kmemleak leak", ep),
                              ("pcitest: rc: no kmemleak leak", rc)])
        except Abort:
            pass
        check_consoles(results, rig, "pcitest")
    fallback_run(results, build)
    irq_type_run(results, build, 0, "irq_type=0 (legacy)")
    irq_type_run(results, build, 2, "irq_type=2 (MSI-X)")
    bar64_run(results, build)
