# SPDX-License-Identifier: GPL-2.0
"""Minimal test bookkeeping shared by the suites: one PASS/FAIL line per
test, a reason on failure, and the totals for the last line of `make test`.
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "qemu"))

from vlinkrig import RigError  # noqa: E402

# What a kernel says when something went wrong that a test must not ignore,
# in two kinds.  A header starts a report of its own wherever it appears.
REPORT_HEADERS = (
    r"Unable to handle",
    r"kernel BUG at",
    r"watchdog: BUG: soft lockup",
    r"(?<!Oops - )BUG:",                        # not ARM's "Oops - BUG: 0"
    r"BUG \S+ \([^()\n]*\): ",                  # SLUB's: BUG <cache> (...):
    r"WARNING:",
    r"Kernel panic",
    r"INFO: possible .*locking",
    r"INFO: trying to register non-static key",
    r"INFO: task .+ blocked for more than \d+ seconds",
    r"INFO: rcu_\w+ (?:self-detected stall|detected (?:expedited )?stalls)",
    r"irq \d+: nobody cared",
    r"kmemleak: .*new suspected",
    r"general protection",
)
# A message says what went wrong inside a report in progress (a warning's
# text, the checker's name on its BUG: line, the Oops after "Unable to
# handle"): it belongs to that report, and is a report of its own only
# where none is in progress.
REPORT_MESSAGES = (
    r"Internal error: Oops",
    r"refcount_t:",
    r"KASAN",
    r"DMA-API: (?!preallocated|debugging enabled)",
    r"list_(?:add|del) corruption",
)
KERNEL_TROUBLE = re.compile("|".join(f"(?:{p})" for p in
                                     REPORT_HEADERS + REPORT_MESSAGES))
_HEADER = re.compile("|".join(f"(?:{p})" for p in REPORT_HEADERS))
# Where a report with a stack trace ends; the DMA-API checker then prints
# the stack of the mapping it complains about, as part of the same report.
REPORT_END = re.compile(r"---\[ end trace [0-9a-f]+ \]---[^\n]*(?:\n|$)"
                        r"(?:DMA-API: Mapped at:\n(?:[ \t][^\n]*\n)*)?")
# For the free stretches of an excuse (a stack trace): any number of lines
# none of which says anything KERNEL_TROUBLE matches.
QUIET_LINES = (rf"(?:(?![^\n]*(?:{KERNEL_TROUBLE.pattern}))[^\n]*\n)*?")

# The first line of every error the DMA-API checker prints (err_printk()
# in kernel/dma/debug.c): "DMA-API: <driver> <device>: <what>".
DMA_API_ERROR = re.compile(r"DMA-API: \S+ \S+: ")
DMA_API_ERROR_COUNT = "/sys/kernel/debug/dma-api/error_count"


def kernel_reports(text):
    """Split console text into the kernel's reports: [(start, end)].

    A report starts at its header (where KERNEL_TROUBLE matches) and ends
    where the next one starts or at its own end-of-trace line, whichever
    comes first; one without an end-of-trace line runs to the next report
    or the end of the text.  A message (REPORT_MESSAGES) inside a report
    in progress is part of it, so a warning and its text are one report.
    """
    starts = []  # [start, where its end-of-trace line ends or None]
    for m in KERNEL_TROUBLE.finditer(text):
        if starts and not _HEADER.match(text, m.start()):
            _, own_end = starts[-1]
            if own_end is None or m.start() < own_end:
                continue
        end = REPORT_END.search(text, m.end())
        starts.append([m.start(), end.end() if end else None])
    spans = []
    for i, (start, own_end) in enumerate(starts):
        nxt = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        spans.append((start, nxt if own_end is None else min(own_end, nxt)))
    return spans


def _excuses(known):
    if known is None:
        return []
    if isinstance(known, (str, re.Pattern)):
        known = [known]
    return [re.compile(k) if isinstance(k, str) else k for k in known]


def unexcused_reports(text, known=None):
    """The reports in text that no excuse in known accounts for, in order.

    known: a regex, or a list of them, for reports a test expects and
    explains.  An excuse applies to one report at a time and must match
    that report's text whole (re.fullmatch), from its header to its end,
    so it can never reach into the report before or after it.  Write the
    excuses without re.S and their stack traces as QUIET_LINES.
    """
    excuses = _excuses(known)
    return [text[s:e] for s, e in kernel_reports(text)
            if not any(x.fullmatch(text, s, e) for x in excuses)]


def guest_alive(guest):
    """The guest's QEMU still runs and its console is open."""
    return guest.proc is not None and guest.proc.poll() is None and \
        not guest.closed


KMEMLEAK = "/sys/kernel/debug/kmemleak"
# How many lines of a failing report the FAIL line is followed by.
REPORT_SHOWN = 60

# The errno texts busybox prints.
EINVAL = "Invalid argument"
ENOENT = "No such file or directory"
EEXIST = "File exists"
EBUSY = "Device or resource busy"
ENOSPC = "No space left on device"
ENODEV = "No such device"
EPERM = "Operation not permitted"
ENOTEMPTY = "Directory not empty"
EACCES = "Permission denied"


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.prefix = ""  # names the kernel variant a suite runs on

    def record(self, name, ok, reason=""):
        name = self.prefix + name
        if ok:
            self.passed += 1
            print(f"PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}: {reason}", flush=True)
        return ok

    def step(self, name, fn, *args, **kw):
        """Run fn; a RigError or AssertionError is this test's failure.

        Returns fn's value, or raises Abort so that the scenario stops: the
        steps after a failed one would only fail for the same reason.
        """
        try:
            value = fn(*args, **kw)
        except (RigError, AssertionError) as e:
            self.record(name, False, str(e) or "assertion failed")
            raise Abort(name) from e
        self.record(name, True)
        return value

    def no_trouble(self, name, guest, since=0, known=None):
        """The guest's kernel said nothing alarming since position since.

        known: the excuses for reports a test expects and explains, as
        unexcused_reports() takes them; each excuses one report at a time.
        """
        trouble = unexcused_reports(guest.output(since), known)
        if not trouble:
            return self.record(name, True)
        first = trouble[0].split("\n", 1)[0]
        more = f" and {len(trouble) - 1} more report(s)" \
            if len(trouble) > 1 else ""
        self.record(name, False,
                    f"{guest.name} console: {first[:200]!r}{more}")
        # The CI output may be all a reader gets: show the report itself.
        lines = trouble[0].rstrip("\n").split("\n")
        if len(lines) > REPORT_SHOWN:
            lines[REPORT_SHOWN:] = [f"... {len(lines) - REPORT_SHOWN} more "
                                    f"line(s) in the {guest.name} log"]
        self.detail(lines)
        return False

    def detail(self, lines):
        """Print what explains the failure just recorded."""
        for line in lines:
            print(f"  | {line}")

    def dma_api_errors_shown(self, name, guest):
        """On the debug kernel: every error the DMA-API checker counted was
        printed on the console.

        By default the checker prints only its first error of a boot and
        counts the others in silence; the guests' init asks for all of
        them, and this catches any that still went unprinted (before init,
        or on an initramfs without that).  Nothing is recorded on other
        kernels, which have no DMA-API debugging.
        """
        if not guest.rig.debug:
            return True
        try:
            status, out = guest.run(f'echo "error_count=$(cat '
                                    f'{DMA_API_ERROR_COUNT})"', 30)
        except RigError as e:
            return self.record(name, False, f"{guest.name}: cannot read "
                               f"{DMA_API_ERROR_COUNT}: {e}")
        m = re.search(r"error_count=(\d+)", out)
        if status or not m:
            return self.record(name, False, f"{guest.name}: cannot read "
                               f"{DMA_API_ERROR_COUNT}: {out.strip()!r}")
        counted = int(m.group(1))
        printed = len(DMA_API_ERROR.findall(guest.output()))
        return self.record(name, counted <= printed,
                           f"{guest.name}: the DMA-API checker counted "
                           f"{counted} error(s), the console shows {printed}")


    def no_leaks(self, checks):
        """On kernels with kmemleak: for each (name, guest) of checks, a
        scan finds nothing unreferenced.

        kmemleak reports an object only once it is 5 s old, so each guest
        waits that long between its two scans (a property of the tool, not
        a synchronisation); the guests scan and wait side by side.  Nothing
        is recorded for a kernel without kmemleak.
        """
        scans = []
        for name, guest in checks:
            status, _ = guest.run(f"[ -e {KMEMLEAK} ]")
            if status == 0:
                scans.append((name, guest, guest.run_start(
                    f"echo scan > {KMEMLEAK}; sleep 6; "
                    f"echo scan > {KMEMLEAK}; cat {KMEMLEAK}")))
        for name, guest, scan in scans:
            status, out = guest.run_wait(scan, 120)
            leaks = re.findall(r"unreferenced object 0x[0-9a-f]+ "
                               r"\(size (\d+)", out)
            self.record(name, status == 0 and not leaks,
                        f"{len(leaks)} leak(s): {out.strip()[:600]!r}")


def check_consoles(results, rig, title, known=None):
    """Every console the rig started, each over its whole life.

    The per-step checks say where a report came from; this one makes sure
    none falls between them: guests killed on purpose (over the life they
    had), replacements, and guests no step looked at.  Call it once at the
    end of the suite's `with Rig(...)` block, while the survivors run: on
    the debug kernel each of them must also have printed every DMA-API
    error it counted.

    known: {name: excuses} for the reports expected on a console, keyed by
    the name the guest was started under (its role unless start_guest()
    was given a name); excuses as unexcused_reports() takes them.
    """
    known = known or {}
    for guest in rig.guests:
        short = guest.name[len(rig.name) + 1:]
        results.no_trouble(f"{title}: {short} console clean over its whole "
                           "life", guest, known=known.get(short))
        if guest_alive(guest):
            results.dma_api_errors_shown(f"{title}: {short}: every DMA-API "
                                         "error printed", guest)


class Abort(Exception):
    """A scenario stopped at a failed step (already recorded)."""


class Stage:
    """Times a stage of the run and prints how long it took; every stage's
    time is kept in Stage.times, for the run's closing table."""

    times = []

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.monotonic()
        print(f"=== {self.name}", flush=True)
        return self

    def __exit__(self, *exc):
        took = time.monotonic() - self.t0
        Stage.times.append((self.name, took))
        print(f"=== {self.name}: {took:.1f} s", flush=True)

    @staticmethod
    def print_times(slowest):
        """The slowest stages of the run, slowest first."""
        total = sum(t for _, t in Stage.times)
        shown = min(slowest, len(Stage.times))
        print(f"=== the {shown} slowest of {len(Stage.times)} stages, "
              f"{total:.0f} s in all:")
        for name, took in sorted(Stage.times, key=lambda x: -x[1])[:slowest]:
            print(f"  {took:7.1f} s {100 * took / max(total, 1):5.1f} %  "
                  f"{name}")
