# SPDX-License-Identifier: GPL-2.0
"""Self test of the checks that judge what the suites saw, on synthetic
input, without a guest: one result per case.

  reports   vlinktest.py splits a console into the kernel's reports, each
            from its own header to its end, and an excuse accounts for one
            whole report only (an excused report next to another one, or
            one that only looks like the expected one, still fails); every
            report format the debug kernel prints is seen
  DMA-API   the error count the checker keeps must match the errors on
            the console; every console of a rig is checked, by its name
  KUnit     a skipped case fails, each suite has its pinned case count,
            the wait for the last suite sees its whole line
  server    run.sh's exit status and its number of cases are judged too
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vlinktest  # noqa: E402
from vlinktest import (DMA_API_ERROR, Results, check_consoles,  # noqa: E402
                       kernel_reports, unexcused_reports)
from test_badinput import STOCK_ALLOC_WARNING  # noqa: E402
from test_peer_failure import IN_FLIGHT_MAPPING  # noqa: E402
import test_kunit  # noqa: E402

CUT = "------------[ cut here ]------------\n"
END = "---[ end trace 0000000000000000 ]---\n"
PROMPT = "~ # "
RULE = "=" * 66 + "\n"  # KASAN's report starts and ends with one


def stack(*frames):
    """An ARM unwinder's backtrace: ' callee from caller+0x../0x..'."""
    return "".join(f" {a} from {b}+0x{i * 8 + 16:x}/0x{i * 8 + 64:x}\n"
                   for i, (a, b) in enumerate(zip(frames, frames[1:])))


def saved_stack(*frames):
    """A stack KASAN saved at allocation or free: ' func+0x../0x..'."""
    return "".join(f" {f}+0x{i * 8 + 16:x}/0x{i * 8 + 64:x}\n"
                   for i, f in enumerate(frames))


def header(comm="kworker/0:1", pid=31, taint="Not tainted"):
    return (f"CPU: 0 PID: {pid} Comm: {comm} {taint} 6.1.0 #1\n"
            "Hardware name: Generic DT based system\n")


def in_flight(count=1, device="0001:00:00.0", mapper="pci_endpoint_test_ioctl",
              before_message=""):
    """The debug kernel's report of a mapping left when a device goes."""
    return (CUT +
            "WARNING: CPU: 0 PID: 31 at kernel/dma/debug.c:859 "
            "dma_debug_device_change+0x1b0/0x1f8\n" + before_message +
            f"DMA-API: pci {device}: device driver has pending DMA "
            f"allocations while released from device [count={count}]\n"
            "One of leaked entries details: [device address="
            "0x0000000048a00000] [size=4194304 bytes] [mapped with "
            "DMA_FROM_DEVICE] [mapped as single]\n"
            "Modules linked in:\n" +
            header(taint="Tainted: G        W         ") +
            "Workqueue: events vlink_rc_link_work\n" +
            stack("unwind_backtrace", "show_stack", "dump_stack_lvl",
                  "__warn", "warn_slowpath_fmt", "dma_debug_device_change",
                  "blocking_notifier_call_chain",
                  "device_release_driver_internal", "pci_stop_bus_device",
                  "pci_stop_and_remove_bus_device_locked",
                  "vlink_rc_link_work", "process_one_work") +
            END +
            "DMA-API: Mapped at:\n"
            " debug_dma_map_page+0x5c/0x12c\n"
            " dma_map_page_attrs+0x90/0xb0\n"
            f" {mapper}+0x3f4/0xd10\n"
            " sys_ioctl+0x4a0/0xc68\n"
            " ret_fast_syscall+0x0/0x54\n")


def stock_alloc(frame="pci_endpoint_test_ioctl", comm="pcitest"):
    """The page allocator's warning for the stock driver's 64 MiB kzalloc."""
    return (CUT +
            "WARNING: CPU: 0 PID: 97 at mm/page_alloc.c:5534 "
            "__alloc_pages+0x9c4/0xd94\n"
            "Modules linked in:\n" + header(comm, 97) +
            stack("unwind_backtrace", "show_stack", "dump_stack_lvl",
                  "__warn", "warn_slowpath_fmt", "__alloc_pages",
                  "__kmalloc_large_node", "__kmalloc", frame, "sys_ioctl",
                  "ret_fast_syscall") +
            END)


def kasan(where="vlink_rc_link_work"):
    return (RULE +
            f"BUG: KASAN: use-after-free in {where}+0x2c/0x1d0\n"
            "Read of size 4 at addr c4d0a1b8 by task kworker/0:1/31\n\n" +
            header() + stack("unwind_backtrace", "show_stack",
                             "dump_stack_lvl", "print_report", "kasan_report",
                             where, "process_one_work") +
            "\nAllocated by task 1:\n kasan_save_stack+0x24/0x48\n"
            "\nFreed by task 31:\n kasan_save_stack+0x24/0x48\n\n"
            "The buggy address belongs to the object at c4d0a180\n"
            " which belongs to the cache kmalloc-128 of size 128\n" +
            RULE +
            "Disabling lock debugging due to kernel taint\n")


def warning(where="vlink_rc_link_work", message=""):
    return (CUT + f"WARNING: CPU: 0 PID: 31 at drivers/pci/controller/vlink/"
            f"pcie-vlink-rc.c:412 {where}+0x88/0x1d0\n" + message +
            "Modules linked in:\n" + header() +
            stack("unwind_backtrace", "show_stack", "dump_stack_lvl",
                  "__warn", "warn_slowpath_fmt", where, "process_one_work") +
            END)


BOOT = ("Booting Linux on physical CPU 0x0\n"
        "DMA-API: preallocated 65536 debug entries\n"
        "DMA-API: debugging enabled by kernel config\n"
        "kasan: KernelAddressSanitizer initialized\n"
        "vlink-init: rc guest userspace up\n" + PROMPT)
AFTER = "vlink-rc 0000:00:01.0: link down: removed 1 function\n" + PROMPT

# The report formats the debug kernel prints (19), each a report alone.
FORMATS = {
    "SLUB 'BUG <cache> (...): ' report": (
        "=" * 77 + "\n"
        "BUG kmalloc-64 (Not tainted): Poison overwritten\n" +
        "-" * 77 + "\n\n"
        "0xc4a1b2c0-0xc4a1b2c3 @offset=704. First byte 0x0 instead of 0x6b\n"
        "Allocated in vlink_rc_probe+0x44/0x3a0 age=1200 cpu=0 pid=1\n"
        "Slab 0xef5a3c20 objects=21 used=21 fp=0x00000000 flags=0x200\n"
        "FIX kmalloc-64: Restoring Poison 0xc4a1b2c0-0xc4a1b2c3=0x6b\n"),
    "RCU self-detected stall": (
        "rcu: INFO: rcu_sched self-detected stall on CPU\n"
        "rcu: \t0-....: (2100 ticks this GP) idle=4b4/1/0x40000002\n"
        "\t(t=2100 jiffies g=1229 q=57 ncpus=1)\n" + header() +
        stack("unwind_backtrace", "show_stack", "rcu_sched_clock_irq")),
    "RCU stall detected on another CPU": (
        "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n"
        "rcu: \t1-...!: (0 ticks this GP) idle=a8c/0/0x0\n"),
    "RCU tasks stall": (
        "INFO: rcu_tasks detected stalls on tasks:\n"
        "c4e0b000: .. nvcsw: 2/2 holdout: 1 idle_cpu: -1/0\n"),
    "irq N: nobody cared": (
        'irq 35: nobody cared (try booting with the "irqpoll" option)\n' +
        header("swapper/0", 0) + "handlers:\n[<c06d2a10>] vlink_rc_irq\n"
        "Disabling IRQ #35\n"),
    "lockdep: register non-static key": (
        "INFO: trying to register non-static key.\n"
        "The code is fine but needs lockdep annotation, or maybe\n"
        "you didn't initialize this object before use?\n"
        "turning off the locking correctness validator.\n" + header()),
    "hung task": (
        "INFO: task pcitest:123 blocked for more than 122 seconds.\n"
        "      Not tainted 6.1.0 #1\n"
        '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this '
        "message.\ntask:pcitest         state:D stack:0     pid:123   "
        "ppid:1      flags:0x00000001\n"),
    "soft lockup": (
        "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! "
        "[kworker/0:1:31]\n" + header()),
}

# (name, console text, excuses, whether the check must pass)
CONSOLES = [
    ("a clean boot passes", BOOT + AFTER, None, True),
    ("the expected DMA-API report alone is excused",
     BOOT + in_flight() + AFTER, IN_FLIGHT_MAPPING, True),
    ("one excuse takes each of three such reports, one at a time",
     BOOT + (in_flight() + AFTER) * 3, IN_FLIGHT_MAPPING, True),
    ("the stock allocator warning alone is excused",
     BOOT + stock_alloc() + "WRITE (67108864 bytes):\t\tNOT OKAY\n" + PROMPT,
     STOCK_ALLOC_WARNING, True),
    ("a header after a shell prompt on the same line is still a report",
     BOOT + warning().replace(CUT, ""), None, False),
    ("KASAN BUG report followed by an excused DMA-API report fails",
     BOOT + kasan() + in_flight() + AFTER, IN_FLIGHT_MAPPING, False),
    # The warning's header, then KASAN (say, on freed memory its message
    # reads), then its DMA-API line: the report HEAD's excuse let through.
    ("KASAN BUG report before the DMA-API line of an excused report fails",
     BOOT + in_flight(before_message=kasan("string")) + AFTER,
     IN_FLIGHT_MAPPING, False),
    ("warning, then KASAN BUG report, then an excused DMA-API report fails",
     BOOT + warning() + kasan() + in_flight() + AFTER, IN_FLIGHT_MAPPING,
     False),
    ("an excused DMA-API report followed by a KASAN BUG report fails",
     BOOT + in_flight() + kasan() + AFTER, IN_FLIGHT_MAPPING, False),
    ("a DMA-API report with count=2 is not the expected one",
     BOOT + in_flight(count=2) + AFTER, IN_FLIGHT_MAPPING, False),
    ("a DMA-API report of another function is not the expected one",
     BOOT + in_flight(device="0001:00:00.1") + AFTER, IN_FLIGHT_MAPPING,
     False),
    ("a pending mapping for the device to read is not the expected one",
     BOOT + in_flight().replace("DMA_FROM_DEVICE", "DMA_TO_DEVICE") + AFTER,
     IN_FLIGHT_MAPPING, False),
    ("a pending mapping our driver made is not the expected one",
     BOOT + in_flight(mapper="vlink_rc_map") + AFTER, IN_FLIGHT_MAPPING,
     False),
    ("a list corruption message inside the excused warning fails",
     BOOT + in_flight().replace("Modules linked in:\n",
                                "list_add corruption. prev->next should be "
                                "next (c4d0a1b8)\nModules linked in:\n") +
     AFTER, IN_FLIGHT_MAPPING, False),
    ("an allocator warning without the stock driver's frame fails",
     BOOT + stock_alloc(frame="vlink_ep_alloc") + PROMPT,
     STOCK_ALLOC_WARNING, False),
    ("an allocator warning from elsewhere, then KASAN in the stock driver "
     "fails",
     BOOT + stock_alloc(frame="vlink_ep_alloc", comm="kworker/0:1") +
     kasan("pci_endpoint_test_ioctl") + warning(), STOCK_ALLOC_WARNING,
     False),
    ("the excuse of one suite does not excuse another's report",
     BOOT + stock_alloc() + PROMPT, IN_FLIGHT_MAPPING, False),
] + [(f"{name} fails the check", BOOT + text + PROMPT, None, False)
     for name, text in FORMATS.items()]

# (name, console text, number of reports it holds)
SPLITS = [
    ("a warning and its DMA-API message and mapping are one report",
     in_flight(), 1),
    ("a KASAN BUG line is one report", kasan(), 1),
    ("an Oops and the panic after it are two reports",
     "8<--- cut here ---\nUnable to handle kernel NULL pointer dereference "
     "at virtual address 00000000 when write\nInternal error: Oops: 805 "
     "[#1] SMP ARM\n" + header() + END +
     "Kernel panic - not syncing: Fatal exception\n", 2),
    ("kernel BUG at and its 'Oops - BUG' are one report",
     "kernel BUG at drivers/pci/endpoint/pci-epc-core.c:120!\nInternal "
     "error: Oops - BUG: 0 [#1] SMP ARM\n" + header() + END, 1),
    ("a report without an end of trace ends at the next one",
     kasan() + in_flight(), 2),
] + [(f"{name} is one report", text, 1) for name, text in FORMATS.items()]


class Quiet(Results):
    """Results that keep their records instead of printing them."""

    def __init__(self):
        super().__init__()
        self.records = []
        self.details = []

    def record(self, name, ok, reason=""):
        self.records.append((name, bool(ok), reason))
        return ok

    def detail(self, lines):
        self.details.append(lines)


class FakeRig:
    def __init__(self, name, kvariant):
        self.name = name
        self.kvariant = kvariant
        self.debug = "debug" in kvariant.split("+")
        self.guests = []


class FakeProc:
    def __init__(self, alive):
        self.alive = alive

    def poll(self):
        return None if self.alive else -9


class FakeGuest:
    """A guest's console, and the error_count its debugfs would show."""

    def __init__(self, rig, name, text, alive=True, error_count=0):
        self.rig = rig
        self.name = f"{rig.name}-{name}"
        self.text = text
        self.proc = FakeProc(alive)
        self.closed = not alive
        self.error_count = error_count
        self.commands = []
        rig.guests.append(self)

    def output(self, since=0):
        return self.text[since:]

    def run(self, cmd, timeout=60):
        self.commands.append(cmd)
        if vlinktest.DMA_API_ERROR_COUNT in cmd:
            return 0, f"error_count={self.error_count}\n"
        return 127, "sh: not found\n"


def check_console(text, known, want_clean):
    r = Quiet()
    guest = FakeGuest(FakeRig("t", "debug"), "rc", text)
    clean = r.no_trouble("console", guest, known=known)
    if bool(clean) == want_clean:
        return True, ""
    left = unexcused_reports(text, known)
    return False, (f"check {'passed' if clean else 'failed'}; unexcused: "
                   f"{[x.split(chr(10), 1)[0][:80] for x in left]}")


def check_report_shown():
    """A failed console check prints the report under its FAIL line: the
    CI output may be all a reader gets."""
    r = Quiet()
    text = ("boot\nBUG: KASAN: use-after-free in vlink_x+0x1/0x2\n"
            "Read of size 4 at addr c1 by task sh/1\n"
            + "".join(f" frame_{i}+0x0/0x4\n" for i in range(80)))
    r.no_trouble("console", FakeGuest(FakeRig("t", "debug"), "rc", text))
    shown = r.details[0] if len(r.details) == 1 else []
    ok = (len(shown) == vlinktest.REPORT_SHOWN + 1 and
          shown[0].startswith("BUG: KASAN") and "Read of size" in shown[1]
          and shown[-1].startswith("... 22 more line(s)"))
    return ok, f"shown: {shown[:2]} ... {shown[-1:]}"


def check_split(text, want):
    spans = kernel_reports(text)
    return len(spans) == want, \
        f"{len(spans)} reports: {[text[s:e][:60] for s, e in spans]}"


def check_error_count():
    """18: counted errors the console does not show fail; killed guests
    are not asked, the normal kernel is not asked."""
    problems = []
    rig = FakeRig("peerfail-debug", "debug")
    text = BOOT + in_flight() + AFTER
    shown = FakeGuest(rig, "rc", text, error_count=1)
    silent = FakeGuest(rig, "ep", BOOT, error_count=2)
    killed = FakeGuest(rig, "ep-1", BOOT, alive=False, error_count=5)
    r = Quiet()
    ok_shown = r.dma_api_errors_shown("shown", shown)
    ok_silent = r.dma_api_errors_shown("silent", silent)
    if not ok_shown:
        problems.append(f"1 counted, 1 printed failed: {r.records}")
    if ok_silent:
        problems.append("2 counted, none printed passed")
    n = len(DMA_API_ERROR.findall(text))
    if n != 1:
        problems.append(f"{n} DMA-API errors counted in one report")
    r = Quiet()
    check_consoles(r, rig, "peer failure", known={"rc": IN_FLIGHT_MAPPING})
    if killed.commands:
        problems.append(f"a killed guest was asked: {killed.commands}")
    got = {name: ok for name, ok, _ in r.records}
    want = {"peer failure: rc console clean over its whole life": True,
            "peer failure: rc: every DMA-API error printed": True,
            "peer failure: ep console clean over its whole life": True,
            "peer failure: ep: every DMA-API error printed": False,
            "peer failure: ep-1 console clean over its whole life": True}
    if got != want:
        problems.append(f"check_consoles recorded {got}")
    normal = FakeRig("boot", "vlink")
    guest = FakeGuest(normal, "rc", BOOT, error_count=3)
    r = Quiet()
    r.dma_api_errors_shown("normal kernel", guest)
    if r.records or guest.commands:
        problems.append(f"asked the normal kernel: {guest.commands}")
    return not problems, "; ".join(problems)


def check_consoles_by_name():
    """20: an excuse keyed by a guest's name is for that console only."""
    rig = FakeRig("peerfail", "vlink")
    FakeGuest(rig, "rc", BOOT + in_flight() + AFTER)
    FakeGuest(rig, "rc-1", BOOT + in_flight() + AFTER, alive=False)
    r = Quiet()
    check_consoles(r, rig, "peer failure", known={"rc": IN_FLIGHT_MAPPING})
    got = [(name, ok) for name, ok, _ in r.records]
    want = [("peer failure: rc console clean over its whole life", True),
            ("peer failure: rc-1 console clean over its whole life", False)]
    return got == want, f"recorded {got}"


def ktap(counts, skip=None):
    """KUnit's console output for suites with counts[name] cases each."""
    out = ["KTAP version 1", f"1..{len(counts)}"]
    for i, (name, n) in enumerate(counts.items(), 1):
        out += ["    KTAP version 1", f"    # Subtest: {name}", f"    1..{n}"]
        for c in range(1, n + 1):
            out.append(f"    ok {c} case_{c}" +
                       (" # SKIP no controller here" if (name, c) == skip
                        else ""))
        out.append(f"ok {i} {name}")
    return "\n".join(out) + "\n"


def check_kunit(counts, skip=None, want_ok=True):
    _, suites, problems = test_kunit.parse(ktap(counts, skip))
    failed = [f"{s.name}: {c.name}" for s in suites for c in s.cases
              if not test_kunit.case_result(c)[0]]
    ok = not problems and not failed
    return ok == want_ok, f"problems {problems}, failed cases {failed}"


def check_last_result():
    """A console read cut inside the last result line ("ok 9 pci_ep" of
    "ok 9 pci_ep_cfs_attrs") made the parser see a suite "pci_ep"."""
    text = ktap(test_kunit.EXPECTED_SUITES)
    n = len(test_kunit.EXPECTED_SUITES)
    cut = text[:text.rindex(f"ok {n} ") + 10]
    rx = re.compile(test_kunit.last_result(n), re.M)
    on_cut, on_whole = bool(rx.search(cut)), bool(rx.search(text))
    return (not on_cut and on_whole,
            f"cut {cut[-12:]!r}: {on_cut}, whole: {on_whole}")


def kunit_cases():
    expected = dict(test_kunit.EXPECTED_SUITES)
    short = dict(expected, pci_epc_mem=expected["pci_epc_mem"] - 1)
    longer = dict(expected, pci_epf_bind=expected["pci_epf_bind"] + 1)
    return [
        ("KUnit: every suite with its pinned number of cases passes",
         lambda: check_kunit(expected)),
        ("KUnit: a skipped case fails",
         lambda: check_kunit(expected, ("pci_epc_helpers", 2), False)),
        ("KUnit: a suite one case short, its plan agreeing, fails",
         lambda: check_kunit(short, want_ok=False)),
        ("KUnit: a suite with a case more than pinned fails",
         lambda: check_kunit(longer, want_ok=False)),
        ("KUnit: the wait for the last suite ends with its whole line",
         check_last_result),
    ]


# Cases in the made-up outputs below.
SERVER_CASES = 40
# A made-up run.sh with 3 cases: a definition, a call inside a function
# and a comment are not cases.
SERVER_SCRIPT = """server_case() {
\tserver_case nested TERM nested
}
case_help() {
\treport help "" "$d"
}
server_case handshake TERM handshake
case_help
# server_case commented-out TERM x
DMA=1 CONTROL=1 server_case dma-stall TERM dma-stall
"""


def check_server(output, status, want_failed):
    run_all = __import__("run-all")
    records, _ = run_all.server_results(output, status, SERVER_CASES)
    failed = sorted(name for name, ok, _ in records if not ok)
    return failed == sorted(want_failed), f"failed: {failed}"


def server_cases():
    n = SERVER_CASES
    passes = "".join(f"PASS server: case-{i}\n" for i in range(n))
    status_name = ("server: the test program's exit status agrees with its "
                   "results")
    count_name = f"server: {n} cases, each reported once"
    one_fail = passes.replace("PASS server: case-3\n",
                              "FAIL server: case-3: boom (files in /tmp/x)\n")
    calls = __import__("run-all").SERVER_CASE_CALL.findall
    return [
        ("server: run.sh's cases are its top-level calls of them",
         lambda: (len(calls(SERVER_SCRIPT)) == 3,
                  f"found {calls(SERVER_SCRIPT)}")),
        ("server: all cases passing, exit 0, passes",
         lambda: check_server(passes, 0, [])),
        ("server: all cases passing but a non-zero exit fails",
         lambda: check_server(passes, 2, [status_name])),
        ("server: a case missing fails",
         lambda: check_server(passes.replace("PASS server: case-0\n", ""),
                              0, [count_name])),
        ("server: a failed case, exit 1, fails that case only",
         lambda: check_server(one_fail, 1, ["server: case-3"])),
        ("server: a script that died half way fails",
         lambda: check_server(passes[:200].rsplit("\n", 1)[0] + "\n", 139,
                              [count_name, status_name])),
    ]


def run(results):
    for name, text, known, clean in CONSOLES:
        results.record(f"report checks: {name}",
                       *check_console(text, known, clean))
    for name, text, want in SPLITS:
        results.record(f"report checks: {name}", *check_split(text, want))
    results.record("report checks: DMA-API errors counted but not printed "
                   "fail", *check_error_count())
    results.record("report checks: excuses are for the console they name",
                   *check_consoles_by_name())
    results.record("report checks: a failed console check shows the report",
                   *check_report_shown())
    for name, fn in kunit_cases() + server_cases():
        results.record(f"report checks: {name}", *fn())


if __name__ == "__main__":
    res = Results()
    run(res)
    print(f"{res.passed} passed, {res.failed} failed")
    sys.exit(1 if res.failed else 0)
