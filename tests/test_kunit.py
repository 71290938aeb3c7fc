# SPDX-License-Identifier: GPL-2.0
"""KUnit suites of the endpoint framework, run inside the booted kernel.

The kunit kernel variant (kernel/kunit.config) runs the suites of
drivers/pci/endpoint/tests/ at boot, before userspace, and prints KTAP on
the console.  One endpoint guest is enough; its link driver starts too, and
waits for a peer that never comes.

Each KUnit case becomes one test, "kunit: <suite>: <case>"; a skipped case
fails (a case that cannot run here tests nothing).  One more says whether
the KTAP output was complete: every suite the top-level plan announced
reported, every suite's cases as many as its plan, and the suites this
project ships all present with the number of cases their sources list.
Then the guest must still reach userspace with nothing of the suites' fakes
left in sysfs or configfs, and with a kernel log free of oopses and
warnings.
"""

import os
import re

from vlinkrig import Rig, RigError

BOOT_TIMEOUT = 180     # from QEMU start to the KTAP header
SUITES_TIMEOUT = 300   # from the header to the last suite's result
SHELL_TIMEOUT = 120
CFS = "/sys/kernel/config/pci_ep"

# The suites of drivers/pci/endpoint/tests/ and their KUNIT_CASE()s: a
# missing suite, or one that reports another number of cases (a case
# dropped, or its plan and cases cut short alike), is a failure.  Adding a
# case means counting it here.
EXPECTED_SUITES = {
    "pci_epc_mem": 13,              # pci-epc-mem-test.c
    "pci_epc_free_bar": 6,          # pci-epf-bar-test.c
    "pci_epf_alloc_space": 10,
    "pci_epc_lifetime": 11,         # pci-epc-core-test.c
    "pci_epc_func_no": 6,
    "pci_epc_helpers": 5,
    "pci_epf_lifetime": 5,          # pci-epf-core-test.c
    "pci_epf_bind": 9,
    "pci_ep_cfs_attrs": 16,         # pci-ep-cfs-test.c
}

# printk may prefix each line with a timestamp
_TS = r"(?:\[\s*\d+\.\d+\] ?)?"
# The count is whole only once its line ends.
HEADER = re.compile(rf"^{_TS}KTAP version 1\n{_TS}1\.\.(\d+)(?=\r?\n)",
                    re.M)

VERSION = re.compile(r"^(\s*)K?TAP version \d+\s*$")
PLAN = re.compile(r"^(\s*)1\.\.(\d+)\s*$")
SUBTEST = re.compile(r"^(\s*)# Subtest: (.*?)\s*$")
RESULT = re.compile(r"^(\s*)(ok|not ok) (\d+)(?: (?:- )?([^#]*?))?\s*"
                    r"(?:#\s*(\w+)\s*(.*?))?\s*$")


def last_result(n):
    """The result line of the last of n suites: its name is whole only
    once the line ends."""
    return rf"^{_TS}(?:not )?ok {n} [^\n]*\n"


def strip_ts(line):
    return re.sub(r"^\[\s*\d+\.\d+\] ?", "", line.rstrip("\r"))


class Case:
    def __init__(self, num, name, ok, directive, note, diag):
        self.num = num
        self.name = name
        self.ok = ok
        self.skip = (directive or "").upper() == "SKIP"
        self.note = note
        self.diag = diag


class Suite:
    def __init__(self, name, indent):
        self.name = name
        self.indent = indent
        self.plan = None
        self.cases = []
        self.result = None      # (ok, num) of the top-level line


def failure_text(diag):
    """The assertion messages among the lines before a 'not ok'.

    KUnit prints "# <case>: EXPECTATION FAILED at <file>:<line>", indented
    lines saying what was expected, then, at column 0, the message of a
    KUNIT_*_MSG() (after an empty line for a boolean check).  A line at
    column 0 that looks like "<device>: <text>" is a kernel message, not
    part of it.
    """
    out, keep, blank = [], False, False
    for line in diag:
        if "FAILED at" in line or "failed to initialize" in line or \
                "timed out" in line or "internal error" in line:
            keep, blank = True, False
            out.append(re.sub(r"^\s*# [^:]*: ", "", line).strip())
        elif not keep:
            continue
        elif not line.strip():
            blank = True
        elif line.startswith((" ", "\t")) and \
                not line.lstrip().startswith("#"):
            out.append(line.strip())
        else:
            if blank or ": " not in line:
                out.append(line.strip())
            keep = False
    text = "; ".join(out) or "no assertion message on the console"
    return text if len(text) <= 600 else text[:597] + "..."


def parse(text):
    """Parse KUnit's KTAP from a console log.

    Returns (top-level plan or None, [Suite], [problem strings]).
    """
    lines = [strip_ts(x) for x in text.split("\n")]
    start = None
    for i in range(len(lines) - 1):
        if VERSION.match(lines[i]) and not VERSION.match(lines[i]).group(1) \
                and PLAN.match(lines[i + 1]) \
                and not PLAN.match(lines[i + 1]).group(1):
            start = i
            break
    if start is None:
        return None, [], ["no KTAP header (KTAP version 1, 1..N) on the "
                          "console"]
    plan = int(PLAN.match(lines[start + 1]).group(2))
    suites, problems, diag = [], [], []
    current = None

    for line in lines[start + 2:]:
        m = SUBTEST.match(line)
        if m and m.group(1):
            current = Suite(m.group(2), m.group(1))
            diag = []
            continue
        m = PLAN.match(line)
        if m and current and current.plan is None and \
                m.group(1) == current.indent:
            current.plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            if not VERSION.match(line):
                diag.append(line)
            continue
        indent, status, num, name, directive, note = m.groups()
        ok = status == "ok"
        name = (name or "").strip()
        if not indent:
            # a suite's own result; one that failed to initialize has no
            # subtest block before it
            if current is None or current.name != name:
                current = Suite(name, None)
                problems.append(f"suite {name}: no test cases reported "
                                f"({failure_text(diag)})")
            current.result = (ok, int(num))
            suites.append(current)
            current, diag = None, []
            if len(suites) == plan:
                break
        elif current and indent == current.indent:
            current.cases.append(Case(int(num), name, ok, directive,
                                      note.strip() if note else "", diag))
            diag = []
        else:
            # a parameter of a parameterised case: part of its diagnostics
            diag.append(line)

    if current is not None:
        suites.append(current)
        problems.append(f"suite {current.name}: output ends before its "
                        f"result line")
    if len(suites) != plan:
        problems.append(f"{len(suites)} of the {plan} suites the plan "
                        f"announced reported")
    for s in suites:
        if s.plan is not None and s.plan != len(s.cases):
            problems.append(f"suite {s.name}: {len(s.cases)} cases "
                            f"reported, plan said {s.plan}")
        nums = [c.num for c in s.cases]
        if nums != list(range(1, len(nums) + 1)):
            problems.append(f"suite {s.name}: cases numbered {nums}")
        if s.result and s.cases and s.result[0] != all(
                c.ok for c in s.cases):
            problems.append(f"suite {s.name}: suite result "
                            f"{'ok' if s.result[0] else 'not ok'} does "
                            "not match its cases")
    seen = {s.name: s for s in suites}
    for name, want in EXPECTED_SUITES.items():
        if name not in seen:
            problems.append(f"suite {name} missing")
        elif len(seen[name].cases) != want:
            problems.append(f"suite {name}: {len(seen[name].cases)} cases "
                            f"reported, its source has {want}")
    return plan, suites, problems


def case_result(c):
    """(ok, reason) of one KUnit case: a skipped one fails too."""
    if c.skip:
        return False, f"skipped: {c.note or 'no reason given'}"
    return c.ok, "" if c.ok else failure_text(c.diag)


def run(results, build):
    kernel = os.path.join(build, "arm", "zImage-kunit")
    if not os.path.exists(kernel):
        results.record("kunit: KTAP output complete and every plan met",
                       False, f"no {kernel}: make kernel KVARIANT=kunit")
        return
    with Rig(build, name="kunit", kvariant="kunit") as rig:
        try:
            scenario(results, rig)
        except RigError as e:
            results.record("kunit: the kunit kernel boots", False, str(e))


def scenario(results, rig):
    r = results
    rig.start_server()
    ep = rig.start_guest("ep")

    waited = []
    try:
        m = ep.expect(HEADER.pattern, BOOT_TIMEOUT,
                      "the KUnit KTAP header (KTAP version 1, 1..N)")
        n = int(m.group(1))
        ep.expect(last_result(n), SUITES_TIMEOUT,
                  f"the result line of KUnit suite {n} of {n}",
                  since=m.start())
    except RigError as e:
        waited.append(str(e))

    plan, suites, problems = parse(ep.output())
    for s in suites:
        for c in s.cases:
            r.record(f"kunit: {s.name}: {c.name}", *case_result(c))
    problems = waited + problems
    total = sum(len(s.cases) for s in suites)
    r.record("kunit: KTAP output complete and every plan met",
             not problems, "; ".join(problems))
    print(f"  kunit: {len(suites)} suites, {total} cases", flush=True)

    if not waited:
        try:
            ep.wait_shell(SHELL_TIMEOUT)
            r.record("kunit: guest reaches userspace after the suites", True)
            leftovers(r, ep)
        except RigError as e:
            r.record("kunit: guest reaches userspace after the suites",
                     False, str(e))
    r.no_trouble("kunit: kernel log clean", ep)


def leftovers(results, ep):
    """The suites' fake controllers, functions and driver are all gone."""
    places = ("/sys/devices", "/sys/class/pci_epc",
              "/sys/bus/pci-epf/devices", "/sys/bus/pci-epf/drivers",
              f"{CFS}/controllers", f"{CFS}/functions")
    status, out = ep.run("ls " + " ".join(places), 30)
    left = sorted({w for w in out.split() if "kunit" in w})
    results.record("kunit: nothing of the suites is left behind",
                   status == 0 and not left,
                   f"ls exited {status}: {out.strip()[-300:]}" if status
                   else f"left behind: {' '.join(left)}")
