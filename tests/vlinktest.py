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

# What a kernel says when something went wrong that a test must not ignore.
KERNEL_TROUBLE = re.compile(
    r"(Internal error: Oops|BUG:|WARNING:|Kernel panic|Unable to handle|"
    r"refcount_t:|INFO: possible .*locking|KASAN|kmemleak: .*new suspected|"
    r"DMA-API: (?!preallocated|debugging enabled)|"
    r"list_(add|del) corruption|general protection)")


KMEMLEAK = "/sys/kernel/debug/kmemleak"

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

        known: a regex for one report a test expects and explains; it must
        match the text that starts with the report.
        """
        text = guest.output(since)
        skip_to = 0
        for m in KERNEL_TROUBLE.finditer(text):
            if m.start() < skip_to:
                continue
            k = known and re.match(known, text[m.start():], re.S)
            if k:
                skip_to = m.start() + k.end()
                continue
            return self.record(name, False,
                               f"{guest.name} console: {m.group(0)!r}")
        return self.record(name, True)


    def no_leaks(self, name, guest):
        """On a kernel with kmemleak: a scan finds nothing unreferenced.

        kmemleak reports an object only once it is 5 s old, so the guest
        waits that long between the two scans (a property of the tool, not
        a synchronisation).  Nothing is recorded on kernels without it.
        """
        status, _ = guest.run(f"[ -e {KMEMLEAK} ]")
        if status:
            return True
        status, out = guest.run(f"echo scan > {KMEMLEAK}; sleep 6; "
                                f"echo scan > {KMEMLEAK}; cat {KMEMLEAK}",
                                120)
        leaks = re.findall(r"unreferenced object 0x[0-9a-f]+ \(size (\d+)",
                           out)
        return self.record(name, status == 0 and not leaks,
                           f"{len(leaks)} leak(s): {out.strip()[:600]!r}")


class Abort(Exception):
    """A scenario stopped at a failed step (already recorded)."""


class Stage:
    """Times a stage of the run and prints how long it took."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.t0 = time.monotonic()
        print(f"=== {self.name}", flush=True)
        return self

    def __exit__(self, *exc):
        print(f"=== {self.name}: {time.monotonic() - self.t0:.1f} s",
              flush=True)
