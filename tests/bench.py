#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make bench`: figures for the link, no pass/fail on speed.

Boots the endpoint and root-complex guests once, binds pci_epf_test
(`vlink-epf up t0 -m 32 -x 2048`) and measures:

  transfers  the stock `pcitest -r|-w|-c -s SIZE` (CPU) and with -d (DMA)
             at 1 KiB, 64 KiB, 1 MiB and 4 MiB - 4 KiB (the host driver
             adds its 4 KiB alignment, the kernel allocator stops at
             4 MiB).  The rate is the one the endpoint logs for each
             transfer ("pci_epf_test ...: READ 1048576 bytes ok, 812.3 MB/s,
             CPU, map/unmap 95 us"), the median of --runs runs; it times
             the copy alone, and map/unmap (median) is what mapping the
             host's buffers into the outbound window and unmapping them
             cost the same transfer (0 for a DMA READ or WRITE on private
             channels, which map nothing).  pcitest names the host's
             view, the endpoint its own: host read (-r) is the endpoint's
             WRITE, host write (-w) its READ, copy is COPY.  MB/s counts
             10^6 bytes per second.  Next to it: the wall time of each
             pcitest process on the root complex (exec to exit, median).
  ceiling    memcpy-bench SIZE on the endpoint guest (the endpoint does the
             copies) in the same boot: the rate a shared-memory link could
             reach; ratio = transfer rate / memcpy rate.  A CPU COPY moves
             the data twice (host to endpoint to host).  It is read before
             the transfers and again after them, and the better reading is
             the ceiling: one reading can come out a third below the other
             with nothing else running, which would flatter every ratio
             of the run.  The ratio to it is the figure the goals name.
  beside     memcpy-bench SIZE again right after each batch of transfers
             (median of 3), and the batch's rate against it: the host's
             load moves the guests' speed from minute to minute, so a low
             ratio beside a low memcpy is the host, not the path.
  engines    DMA runs twice: on the link server's engine (path "DMA",
             the server copies between the guests' RAM files) and, in a
             second boot whose server has no RAM files, on the endpoint's
             in-guest fallback (path "DMA-ep-cpu", a worker on its vCPU).
             The server logs its own host memcpy rate at start ("host
             memcpy ... MB/s"): the physical ceiling of any copy here.
  server     around each batch of DMA transfers on the server's engine,
  copy       SIGUSR1 makes the server log what it has copied so far
             ("dma stats"): the mean time one transfer's copy took in the
             server, beside the whole transfer as the endpoint times it.
             The rest is the guests' side: prep, doorbell, wake-ups.
             Each batch of transfers starts with one that is not counted:
             a first copy into untouched host memory takes milliseconds.
  back to    /sys/kernel/debug/vlink/<dev>/dma_rtt on the endpoint, on
  back       each engine: N memcpy transfers of SIZE between two warm
             buffers of the endpoint, one after the other, each timed
             from its prep to its callback (median).  That is how
             memcpy-bench times its warm copies, and how the doorbell
             round trip is taken, so these ratios compare like with like.
             Warm buffers stay in the host's caches too: the server's
             copies may then outrun its own memcpy figure, which is taken
             on 32 MiB, out of cache.
  fixed cost the time of one 1 KiB transfer per path: alone (1 KiB / the
             pcitest rate) and back to back (dma_rtt), each next to the
             doorbell round trip taken the same way (ratio = cost / round
             trip): alone against a round trip alone, back to back
             against the back-to-back median.  A pcitest transfer comes
             alone, tens of ms after the last, and so waits for host
             threads that have gone idle to wake, as a lone round trip
             does: on the server's engine the EP vCPU -> server ring
             thread, and for its interrupt the server -> EP QEMU's main
             loop -> EP vCPU (about 300 us here, the copy 1 us), which
             pci-epf-test's poll of the engine (dma_poll_us) skips.  The
             in-guest engine wakes no host thread.
  interrupts /sys/kernel/debug/vlink/<dev>/rtt on the endpoint: "irq N"
             (pending bit + IRQ doorbell, the MSI path, answered by the
             root complex's dispatcher) and "doorbell N" (bare ping/pong),
             median and p99 in us; and "doorbell 1" alone, 30 times 50 ms
             apart, as pcitest transfers come.  Then, from the host,
             `pcitest -m 1` per process: that includes exec, the endpoint
             noticing the
             command (it polls once a jiffy when idle) and the MSI; bare
             `pcitest` (exec, open, close) is given as its baseline.
  vNTB       the tree's pci-epf-vntb, ntb_hw_epf, ntb_transport and
             ntb_netdev on the ntb kernel (qemu/vlinkntb.py brings them
             up): ping's mean round trip each way, and the rate of a
             16 MiB TCP transfer each way (tcp-xfer, checked by md5sum),
             as the sender measures it.
  NTB        the same between the two root complexes of ep-2rc-far,
             joined by the tree's pci-epf-ntb (ntb_hw_epf, ntb_transport
             and ntb_netdev on each); their doorbells reach the far host
             by the endpoint's poll of its doorbell pages, once a jiffy.
  boot       seconds from starting each guest's QEMU to its userspace,
             from starting the root complex's QEMU to the pci-endpoint-test
             probe line on its console, and from the endpoint's bind
             command to that line.

A table goes to stdout, one CSV row per figure to --csv (metric, size,
path, value, unit, ceiling, ratio).  Exit status 0 unless the rig itself
fails (a guest does not boot, a command times out); a transfer that fails
shows as FAILED and does not change the exit status.
"""

import argparse
import csv
import math
import os
import re
import signal
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))

from vlinkrig import Rig, RigError, wait_until  # noqa: E402
import vlinkntb  # noqa: E402

SIZES = (1 << 10, 64 << 10, 1 << 20, (4 << 20) - 4096)
# host op as pcitest names it, its flag, the endpoint's name for it
OPS = (("read", "-r", "WRITE"), ("write", "-w", "READ"),
       ("copy", "-c", "COPY"))
# path name, pcitest flag, how the endpoint's log names it
PATHS = (("CPU", "", "CPU"), ("DMA", "-d ", "DMA"))
FALLBACK_PATHS = (("DMA-ep-cpu", "-d ", "DMA"),)
HOST_MEMCPY = r"host memcpy (\d+) bytes: ([\d.]+) MB/s"
# memcpy-bench runs right after each batch of transfers (median).
BESIDE_RUNS = 3
BIND = "vlink-epf up t0 -m 32 -x 2048"
USERSPACE = r"vlink-init: \w+ guest userspace up"
PROBE = r"pci-endpoint-test \S+:"
RTT_FILE = "/sys/kernel/debug/vlink/*/rtt"
DMA_RTT_FILE = "/sys/kernel/debug/vlink/*/dma_rtt"
# Back-to-back engine transfers per size: a few tenths of a second each.
ENGINE_N = dict(zip(SIZES, (1000, 500, 100, 30)))
PINGS = 20
# Lone round trips: how many, and the idle time before each.
ALONE_N = 30
ALONE_GAP_S = 0.05
# What the link server logs on SIGUSR1: its copies so far, all rings.
SERVER_COPIES = re.compile(r"dma stats: all rings: (\d+) copies, \d+ bytes, "
                           r"(\d+) us$", re.M)
# busybox ping's summary line
PING_RTT = r"round-trip min/avg/max = [\d.]+/([\d.]+)/[\d.]+ ms"


def size_name(size):
    """1 KiB, 1 MiB, 4 MiB-4 KiB."""
    mib, kib = 1 << 20, 1 << 10
    if size % mib == 0:
        return f"{size // mib} MiB"
    if size > mib and (mib - size % mib) % kib == 0:
        return f"{size // mib + 1} MiB-{(mib - size % mib) // kib} KiB"
    return f"{size // kib} KiB" if size % kib == 0 else f"{size} B"


def p99(values):
    """The 99th percentile as vlink-rtt.c takes it: sorted[n * 99 / 100]."""
    v = sorted(values)
    return v[len(v) * 99 // 100]


class Watch:
    """Note when a pattern first shows on a console, from another thread."""

    def __init__(self, guest, pattern, what, timeout, since=0):
        self.when = None
        self.error = None
        self.thread = threading.Thread(
            target=self._wait, args=(guest, pattern, what, timeout, since),
            daemon=True)
        self.thread.start()

    def _wait(self, guest, pattern, what, timeout, since):
        try:
            guest.expect(pattern, timeout, what, since=since)
            self.when = time.monotonic()
        except RigError as e:
            self.error = e

    def result(self):
        self.thread.join()
        if self.error:
            raise self.error
        return self.when


def shell(guest, cmd, timeout=120):
    """A command that must work, or the rig has failed."""
    status, out = guest.run(cmd, timeout)
    if status:
        raise RigError(f"{guest.name}: '{cmd}' exited {status}: "
                       f"{out.strip()[-300:]}")
    return out


def timed_loop(rc, cmd, n, timeout):
    """Run cmd n times on the RC; per run (seconds, status, output)."""
    out = shell(rc, f"for i in $(seq {n}); do a=$EPOCHREALTIME; "
                f"{cmd} > /tmp/bench.out 2>&1; s=$?; b=$EPOCHREALTIME; "
                f"echo \"@T $a $b $s\"; cat /tmp/bench.out; done", timeout)
    runs = []
    for chunk in re.split(r"^(?=@T )", out, flags=re.M)[1:]:
        head, _, body = chunk.partition("\n")
        m = re.fullmatch(r"@T (\d+\.\d+) (\d+\.\d+) (\d+)\s*", head)
        if not m:
            raise RigError(f"{rc.name}: '{cmd}': bad timing line {head!r}")
        runs.append((float(m.group(2)) - float(m.group(1)),
                     int(m.group(3)), body.strip()))
    if len(runs) != n:
        raise RigError(f"{rc.name}: '{cmd}': {len(runs)} of {n} timings")
    return runs


def server_copies(rig):
    """(copies, us spent copying) of the link server's engine so far."""
    seen = len(SERVER_COPIES.findall(rig.server_log()))
    os.kill(rig.servers[0].pid, signal.SIGUSR1)
    found = wait_until(
        lambda: SERVER_COPIES.findall(rig.server_log())[seen:], 10,
        "the link server's 'dma stats' line after SIGUSR1")
    return int(found[-1][0]), int(found[-1][1])


class Bench:
    def __init__(self, args):
        self.args = args
        self.rows = []          # CSV rows
        self.notes = []
        self.memcpy = {}        # size -> [MB/s of each reading], or None

    def add(self, metric, size, path, value, unit, ceiling=None, n=None,
            memcpy=False):
        """A figure; with memcpy, its ceiling is the endpoint's memcpy of
        size, settled once every reading is in (settle())."""
        self.rows.append(dict(metric=metric, size=size, path=path,
                              value=value, unit=unit, ceiling=ceiling,
                              ratio=None, n=n, memcpy=memcpy))
        self.ratio(self.rows[-1])

    @staticmethod
    def ratio(row):
        if row["value"] is not None and row["ceiling"]:
            row["ratio"] = row["value"] / row["ceiling"]

    def ceiling(self, size):
        readings = self.memcpy.get(size)
        return max(readings) if readings else None

    def settle(self):
        """Ceilings and ratios, from the best memcpy reading of each size."""
        for size, readings in self.memcpy.items():
            if readings:
                self.add("memcpy", size, "ep-user, the better reading",
                         max(readings), "MB/s")
        for r in self.rows:
            if r["memcpy"]:
                r["ceiling"] = self.ceiling(r["size"])
                self.ratio(r)

    # -- boot -------------------------------------------------------------

    def boot(self, rig):
        rig.start_server()
        t_ep = time.monotonic()
        ep = rig.start_guest("ep")
        ep_up = Watch(ep, USERSPACE, "the EP's userspace", 180)
        t_rc = time.monotonic()
        rc = rig.start_guest("rc")
        rc_up = Watch(rc, USERSPACE, "the RC's userspace", 180)
        ep.wait_shell(180)
        rc.wait_shell(180)
        self.add("boot_ep_qemu_to_userspace", "", "ep",
                 ep_up.result() - t_ep, "s")
        self.add("boot_rc_qemu_to_userspace", "", "rc",
                 rc_up.result() - t_rc, "s")

        probed = Watch(rc, PROBE, "the pci-endpoint-test probe line", 60,
                       since=rc.mark())
        t_bind = time.monotonic()
        shell(ep, BIND)
        t_probe = probed.result()
        shell(rc, "for i in $(seq 100); do [ -e /dev/pci-endpoint-test.0 ] "
              "&& break; sleep 0.1; done; [ -e /dev/pci-endpoint-test.0 ]")
        self.add("boot_rc_qemu_to_probe", "", "rc", t_probe - t_rc, "s")
        self.add("boot_ep_bind_to_probe", "", "ep->rc", t_probe - t_bind,
                 "s")
        return ep, rc

    # -- vNTB and NTB ----------------------------------------------------

    def ntb_traffic(self, kind, steps, a, b, a_addr, b_addr):
        """Bring an NTB stack up (steps), then ping's mean round trip and
        a TCP transfer each way between guests a and b."""
        for name, fn, args in steps:
            try:
                fn(*args)
            except AssertionError as e:
                raise RigError(f"{kind}: {name}: {e}") from None
        for src, dst, addr, port in ((a, b, b_addr, 5001),
                                     (b, a, a_addr, 5002)):
            path = f"{src.guest}->{dst.guest}"
            out = shell(src, f"ping -c {PINGS} {addr}", 60 + PINGS)
            m = re.search(PING_RTT, out)
            self.add(f"{kind}_ping_rtt", "", path,
                     float(m.group(1)) * 1e3 if m else None, "us", n=PINGS)
            try:
                rate = vlinkntb.transfer(src, dst, addr, port)
            except AssertionError as e:
                self.notes.append(f"{kind} transfer {path}: {e}")
                rate = None
            self.add(f"{kind}_tcp", vlinkntb.XFER_MB << 20, path, rate,
                     "MB/s")

    def vntb(self):
        """TCP/IP over the tree's vNTB stack, in a boot of its own."""
        with vlinkntb.vntb_rig(self.args.build,
                               f"{self.args.name}-vntb") as rig:
            ep, rc = rig.start_pair()
            self.ntb_traffic("vntb", vlinkntb.vntb_steps(ep, rc, rc.mark()),
                             ep, rc, vlinkntb.EP_ADDR, vlinkntb.RC_ADDR)

    def ntb(self):
        """TCP/IP between two root complexes over the tree's pci-epf-ntb,
        in a boot of its own."""
        with vlinkntb.ntb_rig(self.args.build,
                              f"{self.args.name}-ntb") as rig:
            ep, rc0, rc1 = vlinkntb.start_ntb_guests(rig)
            steps = vlinkntb.ntb_steps(ep, rc0, rc1, rc0.mark(), rc1.mark())
            self.ntb_traffic("ntb", steps, rc0, rc1, vlinkntb.RC0_ADDR,
                             vlinkntb.RC1_ADDR)

    # -- memcpy ceiling ---------------------------------------------------

    def memcpy_ceiling(self, ep, when):
        status, _ = ep.run("command -v memcpy-bench")
        if status:
            self.notes.append("memcpy-bench is not in the initramfs: no "
                              "ceiling, no ratio")
            for size in SIZES:
                self.memcpy[size] = None
            return
        for size in SIZES:
            rate = self.memcpy_rate(ep, size, self.args.runs)
            self.memcpy.setdefault(size, []).append(rate)
            self.add("memcpy_reading", size, f"ep-user, {when}", rate,
                     "MB/s")

    @staticmethod
    def memcpy_rate(ep, size, n):
        """memcpy-bench SIZE n times on the endpoint: the median MB/s."""
        out = shell(ep, f"for i in $(seq {n}); do memcpy-bench {size}; done")
        rates = [float(m) for m in
                 re.findall(r"^memcpy \d+ bytes x \d+: ([\d.]+) MB/s",
                            out, re.M)]
        if not rates:
            raise RigError(f"memcpy-bench {size}: no rate in {out!r}")
        return statistics.median(rates)

    # -- transfers --------------------------------------------------------

    def transfers(self, ep, rc, paths, rig=None):
        """pcitest transfers; with rig, the server's copies in them too."""
        runs = self.args.runs
        for op, flag, ep_op in OPS:
            for path, dflag, logged in paths:
                for size in SIZES:
                    cmd = f"pcitest {dflag}{flag} -s {size}"
                    rx = re.compile(
                        rf"pci_epf_test \S+: {ep_op} {size} bytes "
                        rf"(?:ok, ([\d.]+) MB/s, {logged}, "
                        rf"map/unmap (\d+) us|"
                        rf"FAILED \((-?\d+)\), {logged})")
                    since = self.warm_up(ep, rc, cmd, rx)
                    copies = server_copies(rig) if dflag and rig else None
                    timings = timed_loop(rc, cmd, runs, 60 + runs * 30)
                    if copies is not None:
                        self.server_copy(op, size, path, copies,
                                         server_copies(rig))
                    rates, maps, failed = [], [], []
                    for _ in range(runs):
                        m = ep.expect(rx.pattern, 30,
                                      f"the EP's {ep_op} {size} {path} line",
                                      since=since)
                        since = m.end()
                        if m.group(1) is not None:
                            rates.append(float(m.group(1)))
                            maps.append(int(m.group(2)))
                        else:
                            failed.append(m.group(3))
                    bad = [t for t in timings if t[1]]
                    if failed or bad:
                        self.notes.append(
                            f"{op} {size} {path}: {len(bad)} pcitest "
                            f"failure(s), EP errors {failed}: "
                            f"{(bad or [(0, 0, '')])[0][2][-120:]!r}")
                    rate = statistics.median(rates) if rates and not (
                        failed or bad) else None
                    self.add(op, size, path, rate, "MB/s", memcpy=True)
                    if maps:
                        self.add(f"{op}_map", size, path,
                                 statistics.median(maps), "us")
                    self.add(f"{op}_wall", size, path,
                             statistics.median(t[0] for t in timings) * 1e3,
                             "ms")
                    if self.memcpy.get(size):
                        self.add(f"{op}_memcpy_beside", size, path,
                                 self.memcpy_rate(ep, size, BESIDE_RUNS),
                                 "MB/s")

    @staticmethod
    def warm_up(ep, rc, cmd, rx):
        """One transfer that is not counted: the host's first touch of
        memory that no copy has used yet costs milliseconds (docs/link.md),
        and would be all of a mean.  Where the EP's log is to be read from
        after it."""
        since = ep.mark()
        rc.run(cmd, 60)
        try:
            return ep.expect(rx.pattern, 30, "the EP's warm-up line",
                             since=since).end()
        except RigError:
            return ep.mark()

    def server_copy(self, op, size, path, before, after):
        """The mean time one transfer's copy took inside the server."""
        n, us = after[0] - before[0], after[1] - before[1]
        if n != self.args.runs:
            self.notes.append(f"{op} {size} {path}: the server made {n} "
                              f"copies for {self.args.runs} transfers")
        self.add(f"{op}_server_copy", size, path, us / n if n else None,
                 "us", n=n)

    def host_memcpy(self, rig):
        """The server's own memcpy rate, from its log: the ceiling."""
        path = os.path.join(rig.logdir, f"{rig.name}-server.log")
        with open(path, errors="replace") as f:
            m = re.search(HOST_MEMCPY, f.read())
        if not m:
            self.notes.append(f"no /{HOST_MEMCPY}/ line in {path}")
            return
        self.add("host_memcpy", int(m.group(1)), "server", float(m.group(2)),
                 "MB/s")

    def debugfs_times(self, ep, pattern, runs, missing):
        """Write each (command, kind, timeout) of runs to the EP's debugfs
        file matching pattern and read back its line (vlink-rtt.c's
        format): {command: (n, median ns, p99 ns)}."""
        status, out = ep.run(f"ls {pattern}")
        files = out.split()
        if status or not files:
            self.notes.append(missing)
            return {}
        found = {}
        for cmd, kind, timeout in runs:
            status, out = ep.run(f"echo '{cmd}' > {files[0]} && "
                                 f"cat {files[0]}", timeout)
            m = re.search(rf"^{kind} n=(\d+) min_ns=\d+ median_ns=(\d+) "
                          r"p99_ns=(\d+) max_ns=\d+$", out, re.M)
            if status or not m:
                self.notes.append(f"'{cmd}' > {pattern} failed: "
                                  f"{out.strip()[-160:]!r}")
                continue
            found[cmd] = tuple(int(g) for g in m.groups())
        return found

    def engine(self, ep, path):
        """Back-to-back memcpy transfers on the endpoint's DMA engine
        (debugfs dma_rtt): warm buffers, as memcpy-bench copies them."""
        runs = [(f"{ENGINE_N[size]} {size}", f"dma {size}", 120)
                for size in SIZES]
        found = self.debugfs_times(ep, DMA_RTT_FILE, runs,
                                   f"no {DMA_RTT_FILE} on the EP: no "
                                   "back-to-back engine figures")
        for size, (cmd, _, _) in zip(SIZES, runs):
            if cmd in found:
                n, median, _ = found[cmd]
                us = median / 1e3
                self.add("engine_us", size, path, us, "us", n=n)
                self.add("engine", size, path, size / us, "MB/s", n=n,
                         memcpy=True)

    def fixed_cost(self):
        """One 1 KiB transfer's time per path, against a doorbell trip
        taken the same way: alone (pcitest) against one alone, back to
        back (dma_rtt) against the back-to-back median."""
        rtt = self.row("doorbell_rtt_median", "", None)
        rtt = rtt and rtt["value"]
        alone = self.row("doorbell_rtt_alone_median", "", None)
        alone = alone and alone["value"]
        size = SIZES[0]
        for op, _, _ in OPS:
            for path, _, _ in PATHS + FALLBACK_PATHS:
                r = self.row(op, size, path)
                if r and r["value"]:
                    self.add(f"{op}_fixed_cost", size, path,
                             size / r["value"], "us", alone)
        for path, _, _ in PATHS[1:] + FALLBACK_PATHS:
            r = self.row("engine_us", size, path)
            if r:
                self.add("engine_fixed_cost", size, path, r["value"], "us",
                         rtt)

    # -- interrupts -------------------------------------------------------

    def rtt(self, ep):
        n = self.args.rtt_n
        runs = [(f"{kind} {n}", kind, 60 + n // 10)
                for kind in ("doorbell", "irq")]
        found = self.debugfs_times(ep, RTT_FILE, runs,
                                   f"no {RTT_FILE} on the EP (kernel without "
                                   "vlink-rtt.c?): no round trips")
        for cmd, kind, _ in runs:
            if cmd not in found:
                continue
            done, median, p99 = found[cmd]
            path = f"ep debugfs rtt '{kind} {done}'"
            for stat, value in (("median", median), ("p99", p99)):
                self.add(f"{kind}_rtt_{stat}", "", path, value / 1e3, "us",
                         n=done)
        self.rtt_alone(ep)

    def rtt_alone(self, ep):
        """Doorbell round trips one at a time, after the host threads on
        their way have gone idle, as before a pcitest transfer."""
        cmd = (f"f=$(ls {RTT_FILE} | head -1) && for i in $(seq {ALONE_N}); "
               f"do sleep {ALONE_GAP_S}; echo 'doorbell 1' > $f && cat $f "
               "|| exit 1; done")
        status, out = ep.run(cmd, 60 + ALONE_N)
        ns = [int(x) for x in re.findall(
            r"^doorbell n=1 min_ns=\d+ median_ns=(\d+) ", out, re.M)]
        if status or len(ns) != ALONE_N:
            self.notes.append(f"lone round trips: {len(ns)} of {ALONE_N}: "
                              f"{out.strip()[-160:]!r}")
            return
        path = f"ep debugfs rtt 'doorbell 1', {ALONE_GAP_S * 1e3:g} ms apart"
        for stat, value in (("median", statistics.median(ns)),
                            ("p99", p99(ns))):
            self.add(f"doorbell_rtt_alone_{stat}", "", path, value / 1e3,
                     "us", n=ALONE_N)

    def msi_host(self, rc):
        n = self.args.msi_calls
        status, out = rc.run("pcitest -i 1")
        if status:
            self.notes.append(f"pcitest -i 1 (MSI) failed: "
                              f"{out.strip()[-160:]!r}")
            return
        for metric, cmd, path in (
                ("pcitest_msi_wall", "pcitest -m 1",
                 "rc wall per process: exec + EP command polling + MSI"),
                ("pcitest_bare_wall", "pcitest",
                 "rc wall per process: exec + open + close")):
            timings = timed_loop(rc, cmd, n, 60 + n)
            if cmd != "pcitest":
                bad = [t for t in timings if t[1]]
                if bad:
                    self.notes.append(f"{cmd}: {len(bad)} of {n} failed: "
                                      f"{bad[0][2][-120:]!r}")
            us = [t[0] * 1e6 for t in timings]
            self.add(f"{metric}_median", "", f"{path}, n={n}",
                     statistics.median(us), "us", n=n)
            self.add(f"{metric}_p99", "", f"{path}, n={n}", p99(us), "us",
                     n=n)

    # -- output -----------------------------------------------------------

    def row(self, metric, size, path):
        """The figure; path None matches any."""
        for r in self.rows:
            if (r["metric"], r["size"]) == (metric, size) and \
                    path in (None, r["path"]):
                return r
        return None

    def print_table(self, out=sys.stdout):
        def fmt(v, spec):
            return "-" if v is None else format(v, spec)

        def table(title, head, lines, left=1):
            """Aligned columns: the first `left` to the left, numbers right."""
            widths = [max(len(str(c)) for c in col)
                      for col in zip(head, *lines)]
            print(f"\n{title}", file=out)
            for i, line in enumerate([head] + lines):
                cells = [str(c).ljust(w) if j < left else str(c).rjust(w)
                         for j, (c, w) in enumerate(zip(line, widths))]
                print("  " + "  ".join(cells).rstrip(), file=out)
                if i == 0:
                    print("  " + "  ".join("-" * w for w in widths),
                          file=out)

        runs = self.args.runs
        lines = []
        for op, _, ep_op in OPS:
            for path, _, _ in PATHS + FALLBACK_PATHS:
                for size in SIZES:
                    r = self.row(op, size, path)
                    w = self.row(f"{op}_wall", size, path)
                    mp = self.row(f"{op}_map", size, path)
                    bs = self.row(f"{op}_memcpy_beside", size, path)
                    if not r:
                        continue
                    beside = bs and r["value"] and r["value"] / bs["value"]
                    lines.append((f"{op} ({ep_op})", size_name(size), path,
                                  fmt(r["value"], ".1f")
                                  if r["value"] is not None else "FAILED",
                                  fmt(r["ceiling"], ".1f"),
                                  fmt(r["ratio"], ".3f"),
                                  fmt(bs and bs["value"], ".1f"),
                                  fmt(beside, ".3f"),
                                  fmt(mp and mp["value"], ".0f"),
                                  fmt(w and w["value"], ".1f")))
        table(f"Transfers (median of {runs}; rate as the endpoint measures "
              "it, over the copy alone; ceiling = memcpy on the endpoint "
              "guest; beside = memcpy right after the batch, and the rate "
              "against it; map/unmap = the outbound mappings the endpoint "
              "made and took down for the transfer)",
              ("host op (EP op)", "size", "path", "rate MB/s",
               "memcpy MB/s", "ratio", "beside MB/s", "ratio beside",
               "map/unmap us", "pcitest wall ms"),
              lines, left=3)

        lines = []
        for op, _, ep_op in OPS:
            for size in SIZES:
                r = self.row(op, size, "DMA")
                c = self.row(f"{op}_server_copy", size, "DMA")
                if not (r and c and r["value"] and c["value"] is not None):
                    continue
                whole = size / r["value"]
                lines.append((f"{op} ({ep_op})", size_name(size),
                              fmt(whole, ".1f"), fmt(c["value"], ".1f"),
                              fmt(whole - c["value"], ".1f"),
                              fmt(c["value"] / whole, ".2f")))
        if lines:
            table("Lone DMA transfers on the server's engine: the copy in "
                  "the server (its mean, SIGUSR1 stats) within the transfer "
                  "as the endpoint times it (from the median rate)",
                  ("host op (EP op)", "size", "transfer us", "copy us",
                   "the rest us", "copy share"), lines, left=2)

        lines = []
        for path, _, _ in PATHS[1:] + FALLBACK_PATHS:
            for size in SIZES:
                r = self.row("engine", size, path)
                t = self.row("engine_us", size, path)
                if r and t:
                    lines.append((size_name(size), path, r["n"],
                                  fmt(t["value"], ".1f"),
                                  fmt(r["value"], ".1f"),
                                  fmt(r["ceiling"], ".1f"),
                                  fmt(r["ratio"], ".3f")))
        if lines:
            table("DMA engine, back to back (debugfs dma_rtt: memcpy between "
                  "two warm EP buffers, median; ceiling = memcpy-bench, "
                  "warm too)",
                  ("size", "path", "n", "us each", "rate MB/s",
                   "memcpy MB/s", "ratio"), lines, left=2)

        lines = []
        for op, _, ep_op in OPS:
            for path, _, _ in PATHS + FALLBACK_PATHS:
                r = self.row(f"{op}_fixed_cost", SIZES[0], path)
                if r:
                    lines.append((f"{op} ({ep_op}), alone", path,
                                  fmt(r["value"], ".1f"),
                                  fmt(r["ceiling"], ".1f"),
                                  fmt(r["ratio"], ".2f")))
        for path, _, _ in PATHS[1:] + FALLBACK_PATHS:
            r = self.row("engine_fixed_cost", SIZES[0], path)
            if r:
                lines.append(("memcpy, back to back", path,
                              fmt(r["value"], ".1f"),
                              fmt(r["ceiling"], ".1f"),
                              fmt(r["ratio"], ".2f")))
        if lines:
            table(f"Fixed cost: one {size_name(SIZES[0])} transfer "
                  "(against the doorbell round trip taken the same way: "
                  "alone, or back to back)",
                  ("transfer", "path", "us", "doorbell rtt us",
                   "ratio"), lines, left=2)
        lines = [(size_name(size),
                  *(fmt(r["value"], ".1f") for r in self.rows
                    if r["metric"] == "memcpy_reading" and r["size"] == size),
                  fmt(self.ceiling(size), ".1f"))
                 for size in SIZES if self.memcpy.get(size)]
        if lines:
            table("The endpoint's memcpy (memcpy-bench, median of "
                  f"{runs}): the better reading is the ceiling",
                  ("size", "before", "after", "ceiling"), lines)
        r = next((x for x in self.rows if x["metric"] == "host_memcpy"),
                 None)
        if r:
            print(f"\nHost memcpy in the link server ({size_name(r['size'])}"
                  f"): {r['value']:.1f} MB/s: the physical ceiling",
                  file=out)

        lines = []
        for kind, label in (("doorbell_rtt", "doorbell round trip (debugfs)"),
                            ("doorbell_rtt_alone",
                             f"doorbell round trip alone, "
                             f"{ALONE_GAP_S * 1e3:g} ms apart (debugfs)"),
                            ("irq_rtt", "MSI round trip (debugfs irq)"),
                            ("pcitest_msi_wall",
                             "pcitest -m 1 per call (incl. exec, "
                             "EP command polling)"),
                            ("pcitest_bare_wall",
                             "pcitest, no test (exec, open, close)")):
            med = [r for r in self.rows if r["metric"] == f"{kind}_median"]
            hi = [r for r in self.rows if r["metric"] == f"{kind}_p99"]
            if med and hi:
                lines.append((label, med[0]["n"], fmt(med[0]["value"], ".1f"),
                              fmt(hi[0]["value"], ".1f")))
        if lines:
            table("Interrupts", ("what", "n", "median us", "p99 us"), lines)

        for kind, title in (("vntb", "vNTB: ntb_netdev over pci-epf-vntb"),
                            ("ntb", "NTB: two root complexes over "
                             "pci-epf-ntb")):
            lines = []
            for r in self.rows:
                if r["metric"] == f"{kind}_ping_rtt":
                    lines.append((f"ping round trip ({r['n']})", r["path"],
                                  fmt(r["value"], ".0f") + " us"))
                elif r["metric"] == f"{kind}_tcp":
                    lines.append((f"TCP {size_name(r['size'])}", r["path"],
                                  fmt(r["value"], ".1f") + " MB/s"
                                  if r["value"] is not None else "FAILED"))
            if lines:
                table(title, ("what", "path", "figure"), lines, left=2)

        lines = []
        for metric, label in (
                ("boot_ep_qemu_to_userspace", "EP: QEMU start -> userspace"),
                ("boot_rc_qemu_to_userspace", "RC: QEMU start -> userspace"),
                ("boot_rc_qemu_to_probe",
                 "RC: QEMU start -> pci-endpoint-test probe"),
                ("boot_ep_bind_to_probe",
                 "EP bind command -> RC pci-endpoint-test probe")):
            # The bind is sent once both shells answer.
            r = [x for x in self.rows if x["metric"] == metric]
            if r:
                lines.append((label, fmt(r[0]["value"], ".2f")))
        table("Boot and bind", ("what", "time s"), lines)

        for note in self.notes:
            print(f"note: {note}", file=out)

    def write_csv(self, path):
        cols = ("metric", "size", "path", "value", "unit", "ceiling",
                "ratio")

        def cell(v):
            if v is None:
                return ""
            if isinstance(v, float):
                return f"{v:.6g}" if math.isfinite(v) else ""
            return v

        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for r in self.rows:
                w.writerow([cell(r[c]) for c in cols])


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--csv", help="write the figures here")
    ap.add_argument("--name", default="bench",
                    help="names the run's sockets, RAM files and logs")
    ap.add_argument("--runs", type=int, default=11,
                    help="runs per transfer and memcpy figure (median)")
    ap.add_argument("--rtt-n", type=int, default=1000,
                    help="round trips per debugfs measurement "
                    "(1000..100000)")
    ap.add_argument("--msi-calls", type=int, default=100,
                    help="pcitest -m 1 processes timed")
    args = ap.parse_args()
    if args.runs < 1 or args.msi_calls < 1:
        ap.error("--runs and --msi-calls must be positive")
    if not 1000 <= args.rtt_n <= 100000:
        ap.error("--rtt-n: 1000 to 100000 round trips")

    bench = Bench(args)
    start = time.monotonic()
    try:
        with Rig(args.build, name=args.name) as rig:
            ep, rc = bench.boot(rig)
            bench.host_memcpy(rig)
            bench.memcpy_ceiling(ep, "before the transfers")
            bench.transfers(ep, rc, PATHS, rig)
            bench.engine(ep, "DMA")
            bench.memcpy_ceiling(ep, "after them")
            bench.rtt(ep)
            bench.msi_host(rc)
        with Rig(args.build, name=f"{args.name}-ep-cpu",
                 server_dma=False) as rig:
            ep, rc = rig.start_pair()
            shell(ep, BIND)
            shell(rc, "for i in $(seq 100); do "
                  "[ -e /dev/pci-endpoint-test.0 ] && break; sleep 0.1; "
                  "done; [ -e /dev/pci-endpoint-test.0 ]")
            bench.transfers(ep, rc, FALLBACK_PATHS)
            bench.engine(ep, FALLBACK_PATHS[0][0])
        bench.settle()
        bench.fixed_cost()
        bench.vntb()
        bench.ntb()
    except (RigError, OSError) as e:
        print(f"bench: the rig failed: {e} (consoles in "
              f"{os.path.join(args.build, 'logs')})", file=sys.stderr)
        return 1
    bench.print_table()
    print(f"\n{len(bench.rows)} figures in {time.monotonic() - start:.0f} s; "
          f"consoles in {os.path.join(args.build, 'logs')}/{args.name}-*.log")
    if args.csv:
        bench.write_csv(args.csv)
        print(f"CSV: {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
