#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The whole suite, as `make test` runs it.

Prints one PASS/FAIL line per test, how long each stage took, and ends
with the line `N passed, N failed`.  Exit status 1 when anything failed.
Guest consoles are left in build/logs/*.log.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))

import test_boot  # noqa: E402
import test_compat  # noqa: E402
import test_console  # noqa: E402
import test_badinput  # noqa: E402
import test_endpoint  # noqa: E402
import test_fuzz  # noqa: E402
import test_hostile  # noqa: E402
import test_link_faults  # noqa: E402
import test_kunit  # noqa: E402
import test_multifunction  # noqa: E402
import test_ntb  # noqa: E402
import test_patches  # noqa: E402
import test_pcitest  # noqa: E402
import test_peer_failure  # noqa: E402
import test_reports  # noqa: E402
import test_soak  # noqa: E402
import test_teardown  # noqa: E402
import test_topology  # noqa: E402
import test_unbind  # noqa: E402
import vlinkrig  # noqa: E402
from vlinktest import Results, Stage  # noqa: E402


SERVER_RUN_SH = os.path.join(HERE, "server", "run.sh")
# A case run.sh runs: a call, at its top level, of server_case or of one of
# its case_* functions; each reports one result line.
SERVER_CASE_CALL = re.compile(
    r"^(?:\w+=\S* )*(?:server_case \S+ .*|case_\w+)$", re.M)


def server_case_count():
    """How many results tests/server/run.sh promises: one per case it
    calls, read from the script itself."""
    with open(SERVER_RUN_SH, encoding="utf-8") as f:
        return len(SERVER_CASE_CALL.findall(f.read()))


def server_results(output, returncode, cases):
    """Judge run.sh's output and exit status.

    Returns ([(name, ok, reason)], [other output lines]).  Besides one
    result per case: the results must be exactly cases, each under its
    own name, and the exit status must agree with them (0 when all
    passed, 1 when one failed), so a script that died half way or exited
    on a usage error fails even when some results came first.
    """
    records, other, names, failed = [], [], [], 0
    for line in output.splitlines():
        # PASS server: <name> | FAIL server: <name>: <reason>
        m = re.match(r"(PASS (server: .*)|FAIL (server: [^:]*): (.*))$", line)
        if m:
            names.append(m.group(2) or m.group(3))
            failed += not m.group(2)
            records.append((names[-1], bool(m.group(2)), m.group(4)))
        else:
            other.append(line)
    records.append((f"server: {cases} cases, each reported once",
                    len(names) == cases and
                    len(set(names)) == len(names),
                    f"{len(names)} results, {len(set(names))} distinct"))
    want = 1 if failed else 0
    records.append(("server: the test program's exit status agrees with "
                    "its results", returncode == want,
                    f"exit status {returncode}, expected {want} after "
                    f"{failed} FAIL line(s)"))
    return records, other


def server_tests(results, build):
    """The link server's own tests, on this machine, without QEMU."""
    proc = subprocess.run(
        [SERVER_RUN_SH,
         os.path.join(build, "server", "vlink-server"),
         os.path.join(build, "server", "test-server")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=300)
    records, other = server_results(proc.stdout, proc.returncode,
                                    server_case_count())
    for line in other:
        print(f"  {line}")
    for name, ok, reason in records:
        results.record(name, ok, reason)


GUEST_SUITES = (
    ("boot test", test_boot),
    ("endpoint framework: bind, BARs, bad input, cycles", test_endpoint),
    ("stock pcitest: pcitest.sh, DMA, irq types, corruption", test_pcitest),
    ("topologies: rc-2ep, ep-2rc", test_topology),
    ("multi-function endpoint", test_multifunction),
    ("hostile endpoint", test_hostile),
    ("unbind and remove of both link drivers", test_unbind),
    ("hostile endpoint fuzzer", test_fuzz),
    ("peer failure", test_peer_failure),
    ("link faults injected by the server", test_link_faults),
    ("bad input table", test_badinput),
    ("lifecycle soak", test_soak),
)
# How many stages the closing table of stage times shows.
SLOWEST = 12
# What every other architecture and pairing must pass too.
CORE_SUITES = (test_boot, test_endpoint, test_pcitest, test_peer_failure)


class Pass:
    """One run of guest suites: a kernel variant, the EP's and the RC's
    architectures and a boot path (the rig reads them from VLINK_*)."""

    def __init__(self, name, suites=None, kvariant="vlink", ep="arm",
                 rc="arm", boot="kernel"):
        self.name = name
        self.suites = suites
        self.env = {"VLINK_KVARIANT": kvariant, "VLINK_EP_ARCH": ep,
                    "VLINK_RC_ARCH": rc, "VLINK_BOOT": boot}
        self.prefix = "" if name == "arm" else f"[{name}] "


PASSES = {p.name: p for p in (
    Pass("arm"),
    Pass("debug", kvariant="debug"),
    Pass("arm64", CORE_SUITES, ep="arm64", rc="arm64"),
    # A 64-bit root complex with a 32-bit endpoint: a PC-class host with
    # a small board; and the reverse.
    Pass("arm-ep-arm64-rc", CORE_SUITES, ep="arm", rc="arm64"),
    Pass("arm64-ep-arm-rc", (test_pcitest,), ep="arm64", rc="arm"),
    # A board's boot path: U-Boot boots the FIT from each guest's disk.
    Pass("uboot", (test_boot,), boot="uboot"),
    Pass("uboot-arm64", (test_boot,), ep="arm64", rc="arm64",
         boot="uboot"),
)}


def stage(results, title, run, *args):
    """Run one stage, timed.  A stage that dies (a wait that timed out
    outside a test's own checks, a harness bug) is a failure of its own,
    with the traceback on the output, and the run goes on.  So is a QEMU
    or link server of the stage that crashed or would not stop."""
    with Stage(f"{results.prefix}{title}"):
        del vlinkrig.EXITS[:]
        try:
            run(results, *args)
        except Exception as e:  # pylint: disable=broad-except
            traceback.print_exc()
            results.record(f"{title}: the stage runs to its end", False,
                           f"{type(e).__name__}: {e}")
        if vlinkrig.EXITS:
            bad = [f"{name}: {how}" for name, how in vlinkrig.EXITS if how]
            results.record(f"{title}: its {len(vlinkrig.EXITS)} QEMU and "
                           "server processes ended as the rig ended them",
                           not bad, "; ".join(bad))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", required=True)
    ap.add_argument("--passes", default="arm",
                    help="the runs of the guest suites, in order: "
                    f"{', '.join(PASSES)}")
    ap.add_argument("--only", metavar="MODULES",
                    help="run only these guest suites, e.g. "
                    "test_soak,test_hostile")
    args = ap.parse_args()
    only = args.only.split(",") if args.only else None
    if only and not set(only) <= {m.__name__ for _, m in GUEST_SUITES}:
        ap.error(f"--only: guest suites are "
                 f"{', '.join(m.__name__ for _, m in GUEST_SUITES)}")
    passes = args.passes.split(",")
    if not set(passes) <= set(PASSES):
        ap.error(f"--passes: the passes are {', '.join(PASSES)}")
    build = os.path.abspath(args.build)
    # SIGTERM (a CI timeout, a kill) unwinds through the rigs' teardowns,
    # as make run's does: no QEMU, server or RAM file is left behind.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))

    logs = os.path.join(build, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)

    results = Results()
    t0 = time.monotonic()
    # The checks that judge everything below, on synthetic input: seconds.
    stage(results, "report checks: self test", test_reports.run)
    stage(results, "rig console: self test", test_console.run)
    if not only:
        stage(results, "link server tests", server_tests, build)
        stage(results, "API compatibility: 6.1 function drivers on our "
              "headers", test_compat.run, build)
        stage(results, "patch series: git am, build and checkpatch per "
              "patch", test_patches.run, build)
        stage(results, "KUnit suites of the endpoint framework",
              test_kunit.run, build)
        stage(results, "NTB: the tree's NTB functions on the ntb kernel",
              test_ntb.run, build)
    for p in map(PASSES.get, passes):
        # The same suites on each kernel, architecture and boot path: the
        # debug kernel must stay silent.
        os.environ.update(p.env)
        results.prefix = p.prefix
        for title, module in GUEST_SUITES:
            if (p.suites is None or module in p.suites) and \
                    (not only or module.__name__ in only):
                stage(results, title, module.run, build)
    results.prefix = ""
    for var in Pass("arm").env:
        os.environ.pop(var, None)
    # The rig's own teardown does not depend on the kernel: once.
    if not only:
        stage(results, "teardown of an interrupted make run",
              test_teardown.run, build)
    Stage.print_times(SLOWEST)
    print(f"=== total: {time.monotonic() - t0:.1f} s; consoles in {logs}")
    print(f"{results.passed} passed, {results.failed} failed", flush=True)
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
