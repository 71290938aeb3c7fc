# SPDX-License-Identifier: GPL-2.0
"""The bad input table: every way we could think of to hand the stack
something wrong, each with the errno or message it must get.

  server     vlink-server's arguments, on this machine (no guest needed)
  attrs      configfs attributes of a function: non-numbers, overflows,
             empty, blanks, 5000-character values, out-of-range counts
  orders     linking, unlinking, starting, stopping and removing in the
             wrong order or in the wrong place
  script     vlink-epf with missing, unknown and wrong arguments
  host       the stock pcitest on the root complex with sizes and numbers
             the host driver or the endpoint cannot serve
  registers  the endpoint's register block written directly (as a
             misbehaving host driver would), through the endpoint guest's
             RAM file: sizes beyond the outbound window, wrapping sizes,
             addresses outside the host's RAM, unknown commands
  crs        vendor ID 0x0001, which a host reads as a Configuration
             Request Retry: refused at bind
  reuse      a function number given again: the new function must show
             only its own capabilities

Each case is one result, "bad input: <what>".  After the table a fresh
function is bound and pcitest -b 0..5 must pass; then the consoles must be
clean (the one report excused is the page allocator's warning that the
stock host driver causes by asking kzalloc() for 64 MiB).
"""

import mmap
import os
import re
import struct
import subprocess
import tempfile
import time

from vlinkrig import Rig, RigError
from vlinktest import (QUIET_LINES, Abort, EACCES, EBUSY, EEXIST, EINVAL,
                       ENODEV, ENOENT, ENOSPC, ENOTEMPTY, EPERM,
                       check_consoles)
from test_endpoint import CFS, bar_tests, epc_name, shell_ok

SERVER = os.path.join("server", "vlink-server")

# The page allocator's one warning when the stock host driver asks
# kzalloc() for more than 4 MiB (pcitest -s 67108864): not our code.
# The excuse takes that one report whole, and only when the stock driver's
# own frame is in its stack and pcitest is the task that asked.
STOCK_ALLOC_WARNING = (
    r"WARNING: CPU: \d+ PID: \d+ at mm/page_alloc\.c:\d+ "
    r"__alloc_pages\+0x[0-9a-f]+/0x[0-9a-f]+\n"
    + QUIET_LINES +
    r"CPU: \d+ PID: \d+ Comm: pcitest [^\n]*\n"
    + QUIET_LINES +
    r"[^\n]*\bpci_endpoint_test_\w+\b[^\n]*\n"
    + QUIET_LINES +
    r"---\[ end trace [0-9a-f]+ \]---\n")

# pci-epf-test's register block (docs/pci-epf-test.md).
REG_COMMAND, REG_STATUS, REG_SRC, REG_DST, REG_SIZE = 0x04, 0x08, 0x0c, 0x14, \
    0x1c
REG_IRQ_TYPE, REG_IRQ_NUMBER, REG_FLAGS = 0x24, 0x28, 0x2c
CMD_READ, CMD_WRITE, CMD_COPY = 1 << 3, 1 << 4, 1 << 5
ST_READ_OK, ST_READ_FAIL, ST_WRITE_OK, ST_WRITE_FAIL = 1, 2, 4, 8
ST_COPY_OK, ST_COPY_FAIL, ST_IRQ, ST_SRC_BAD, ST_DST_BAD = 0x10, 0x20, 0x40, \
    0x80, 0x100
RC_RAM = 0x40000000
MIB = 1 << 20


class Table:
    """Runs the cases and records one result each."""

    def __init__(self, r, timeout):
        self.r = r
        self.timeout = timeout
        self.count = 0

    def record(self, what, ok, reason=""):
        self.count += 1
        return self.r.record(f"bad input: {what}", ok, reason)

    def case(self, guest, what, cmd, status, rx, absent=None, after=None):
        """cmd on guest must exit with status and print rx (regex); absent:
        a regex the output must not hold; after: a command whose output
        must match a further regex, given as (cmd, rx)."""
        st, out = guest.run(cmd, self.timeout)
        why = []
        if st != status:
            why.append(f"exit {st}, expected {status}")
        if rx and not re.search(rx, out):
            why.append(f"no /{rx}/")
        if absent and re.search(absent, out):
            why.append(f"/{absent}/ present")
        if after and not why:
            _, more = guest.run(after[0], self.timeout)
            if not re.search(after[1], more):
                why.append(f"then '{after[0]}' gave {more.strip()!r}, "
                           f"expected /{after[1]}/")
                out += more
        return self.record(what, not why,
                           f"{'; '.join(why)}: {cmd!r} printed "
                           f"{out.strip()[-400:]!r}")


# ---- the link server, on this machine ----

def server_cases(t, build):
    server = os.path.join(build, SERVER)
    with tempfile.TemporaryDirectory(prefix="vlink-badinput.") as d:
        ep, rc, mon = (os.path.join(d, n) for n in ("ep", "rc", "mon"))
        regular = os.path.join(d, "file")
        with open(regular, "w") as f:
            f.write("not a socket\n")
        long_path = os.path.join(d, "x" * 120)
        usage = r"usage: vlink-server"
        cases = [
            ("server: no arguments", [], 2, usage),
            ("server: --rc missing", ["--ep", ep], 2,
             r"--ep and --rc are required"),
            ("server: unknown option", ["--bogus", "--ep", ep, "--rc", rc],
             2, r"unrecognized option '--bogus'"),
            ("server: --ep without its value", ["--rc", rc, "--ep"], 2,
             r"option '--ep' requires an argument"),
            ("server: stray argument", ["--ep", ep, "--rc", rc, "extra"], 2,
             r"unexpected argument 'extra'"),
            ("server: the same socket for --ep and --rc",
             ["--ep", ep, "--rc", ep], 2,
             r"--ep and --rc name the same socket"),
            ("server: the same socket for --ep and --monitor",
             ["--ep", ep, "--rc", rc, "--monitor", ep], 2,
             r"--ep and --monitor name the same socket"),
            ("server: socket in a directory that does not exist",
             ["--ep", os.path.join(d, "nodir", "ep"), "--rc", rc], 1,
             r"cannot bind: No such file or directory \(does its directory "
             r"exist\?\)"),
            ("server: socket path longer than sun_path",
             ["--ep", long_path, "--rc", rc], 1,
             r"socket path too long \(max 107 bytes\)"),
            ("server: socket path is a regular file",
             ["--ep", regular, "--rc", rc], 1,
             r"exists and is not a socket; refusing to replace it"),
            ("server: pidfile in a directory that does not exist",
             ["--ep", ep, "--rc", rc, "--pidfile",
              os.path.join(d, "nodir", "pid")], 1,
             r"pid\.tmp: cannot create: No such file or directory"),
        ]
        for what, args, status, rx in cases:
            try:
                p = subprocess.run([server] + args, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   timeout=10)
                st, out = p.returncode, p.stdout
            except subprocess.TimeoutExpired as e:
                st, out = "still running after 10 s", str(e.output)
            left = sorted(set(os.listdir(d)) - {"file", "live"})
            t.record(what, st == status and re.search(rx, out) and not left,
                     f"exit {st} (expected {status}), sockets left {left}, "
                     f"output {out.strip()[-300:]!r}, expected /{rx}/")

        # A second server on the socket of a live one.
        live = os.path.join(d, "live")
        first = subprocess.Popen([server, "--ep", live, "--rc", rc],
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        try:
            end = time.monotonic() + 10
            while not os.path.exists(live) and time.monotonic() < end:
                time.sleep(0.05)
            p = subprocess.run([server, "--ep", live, "--rc", rc + "2"],
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True,
                               timeout=10)
            alive = first.poll() is None
            t.record("server: a socket a live server listens on",
                     p.returncode == 1 and alive and re.search(
                         r"something is already listening there", p.stdout),
                     f"exit {p.returncode}, first server alive {alive}, "
                     f"output {p.stdout.strip()[-300:]!r}")
        finally:
            first.terminate()
            first.wait(10)


# ---- configfs attributes ----

ATTR_CASES = [
    # (what, attribute, value as shell words or LONG(c), errno)
    ("vendorid: not a number", "vendorid", "abc"),
    ("vendorid: negative", "vendorid", "-1"),
    ("vendorid: 0x10000 (17 bits)", "vendorid", "0x10000"),
    ("vendorid: 0x100000000 (overflows 32 bits)", "vendorid", "0x100000000"),
    ("vendorid: 5000 digits", "vendorid", "LONG(1)"),
    ("deviceid: empty line", "deviceid", ""),
    ("deviceid: leading blank", "deviceid", " 0x10"),
    ("deviceid: trailing blank", "deviceid", "0x10 "),
    ("deviceid: two numbers", "deviceid", "1 2"),
    ("deviceid: 5000 letters", "deviceid", "LONG(x)"),
    ("revid: 256", "revid", "256"),
    ("revid: 0x", "revid", "0x"),
    ("progif_code: 0x100", "progif_code", "0x100"),
    ("subclass_code: 1.5", "subclass_code", "1.5"),
    ("baseclass_code: 999", "baseclass_code", "999"),
    ("baseclass_code: 09 (not octal)", "baseclass_code", "09"),
    ("cache_line_size: 0x1ff", "cache_line_size", "0x1ff"),
    ("subsys_vendor_id: 65536", "subsys_vendor_id", "65536"),
    ("subsys_id: 0xfffff", "subsys_id", "0xfffff"),
    ("interrupt_pin: 5", "interrupt_pin", "5"),
    ("interrupt_pin: -1", "interrupt_pin", "-1"),
    ("msi_interrupts: 0", "msi_interrupts", "0"),
    ("msi_interrupts: 33", "msi_interrupts", "33"),
    ("msi_interrupts: 4294967297 (33 after wrapping)", "msi_interrupts",
     "4294967297"),
    ("msix_interrupts: 0", "msix_interrupts", "0"),
    ("msix_interrupts: 2049", "msix_interrupts", "2049"),
    ("msix_interrupts: 0x100000000", "msix_interrupts", "0x100000000"),
]
ATTRS = ("vendorid", "deviceid", "revid", "progif_code", "subclass_code",
         "baseclass_code", "cache_line_size", "subsys_vendor_id", "subsys_id",
         "interrupt_pin", "msi_interrupts", "msix_interrupts")
# What pci-epf-test leaves in a new function.
DEFAULTS = ("0xffff", "0xffff", "0x0000", "0x0000", "0x0000", "0x00ff",
            "0x0000", "0x0000", "0x0000", "0x0001", "0", "0")


def attr_cases(t, ep):
    shell_ok(ep, "mkdir $B")
    for what, attr, value in ATTR_CASES:
        m = re.fullmatch(r"LONG\((.)\)", value)
        cmd = (f"L {m.group(1)} > $B/{attr}" if m else
               f"echo '{value}' > $B/{attr}")
        t.case(ep, what, cmd, 1, EINVAL)
    t.case(ep, "an attribute that does not exist", "echo 1 > $B/bogus", 1,
           f"can't create .*bogus: {EACCES}")
    t.case(ep, "a write of no bytes at all changes nothing",
           ": > $B/vendorid", 0, None, after=("cat $B/vendorid", r"^0xffff$"))
    want = "\n".join(f"{a}:{v}" for a, v in zip(ATTRS, DEFAULTS))
    t.case(ep, "the refused writes left every attribute as it was",
           f"cd $B && grep . {' '.join(ATTRS)}; cd /", 0, re.escape(want))
    # configfs hands a store at most 4095 bytes: a longer write arrives in
    # pieces, each parsed alone, the last one wins.
    t.case(ep, "revid: 5000 characters '000...07' arrive as two pieces, "
           "the last one (7) wins",
           "{ head -c 4999 /dev/zero | tr '\\0' 0; echo 7; } > $B/revid", 0,
           None, after=("cat $B/revid", r"^0x0007$"))
    for what, attr, value, shown in (
            ("msi_interrupts 32 (the maximum) accepted", "msi_interrupts",
             "32", "32"),
            ("msix_interrupts 2048 (the maximum) accepted",
             "msix_interrupts", "2048", "2048"),
            ("interrupt_pin 4 (INTD) accepted", "interrupt_pin", "4",
             "0x0004"),
            ("deviceid in octal (0132400 = 0xb500) accepted", "deviceid",
             "0132400", "0xb500")):
        t.case(ep, what, f"echo {value} > $B/{attr}", 0, None,
               after=(f"cat $B/{attr}", rf"^{shown}$"))
    shell_ok(ep, "rmdir $B")


# ---- binding orders and places ----

def wait_link_up(ep, since, timeout):
    ep.expect(r"pci_epc \S+: link up", timeout, "the endpoint's link up",
              since=since)


def order_cases(t, ep, rc):
    to = t.timeout
    t.case(ep, "start with no function linked", "echo 1 > $C/start", 1,
           f"not started: no function is linked(.|\n)*{ENODEV}")
    t.case(ep, "stop when stopped: nothing happens", "echo 0 > $C/start", 0,
           None, absent=r"stopped \(generation")
    t.case(ep, "start = 'maybe' (not a boolean)", "echo maybe > $C/start", 1,
           EINVAL)
    t.case(ep, "start = empty line", "echo > $C/start", 1, EINVAL)
    shell_ok(ep, "mkdir $B")
    t.case(ep, "unlink a function that is not linked", "rm $C/bad", 1,
           ENOENT)
    t.case(ep, "rmdir of a function that does not exist",
           "rmdir $G/nosuch", 1, ENOENT)
    t.case(ep, "mkdir of a function that exists", "mkdir $B", 1, EEXIST)
    t.case(ep, "mkdir under a function driver that does not exist",
           "mkdir $F/nodrv/x", 1, ENOENT)
    t.case(ep, "mkdir in functions/", "mkdir $F/x", 1, EPERM)
    t.case(ep, "mkdir in controllers/", "mkdir $CFS/controllers/x", 1,
           EPERM)
    t.case(ep, "mkdir in a controller's directory", "mkdir $C/x", 1, EPERM)
    t.case(ep, "rmdir of a controller's directory", "rmdir $C", 1, EPERM)
    t.case(ep, "rmdir of a function's primary/", "rmdir $B/primary", 1,
           EPERM)
    t.case(ep, "link to a controller that does not exist",
           "ln -s $B $CFS/controllers/no-such-epc/bad", 1, ENOENT)
    t.case(ep, "link a controller into a controller", "ln -sn $C $C/ctl", 1,
           EINVAL)
    t.case(ep, "link a function into primary/ (not a controller)",
           "mkdir $G/other && ln -sn $G/other $B/primary/f", 1, EINVAL)
    shell_ok(ep, "rmdir $G/other")
    t.case(ep, "link through secondary/ with no primary link",
           "ln -sn $C $B/secondary/ctl", 1,
           rf"bind to \S+ failed: -22(.|\n)*{EINVAL}")

    shell_ok(ep, "echo 0x104c > $B/vendorid; echo 0xb500 > $B/deviceid; "
             "echo 1 > $B/msi_interrupts; ln -sn $B $C/bad")
    t.case(ep, "link the same function twice (a second name)",
           "ln -sn $B $C/bad2", 1, EBUSY)
    t.case(ep, "link it again under the same name", "ln -sn $B $C/bad", 1,
           EEXIST)
    t.case(ep, "ln -s (no -n) onto the existing link: a function as its "
           "own virtual function", "ln -s $B $C/bad", 1, EINVAL)
    t.case(ep, "link it from its primary/ as well",
           "ln -sn $C $B/primary/ctl", 1, EBUSY)
    t.case(ep, "link it through secondary/ as well (single interface)",
           "ln -sn $C $B/secondary/ctl", 1,
           rf"pci_epf_test has a single interface(.|\n)*{EBUSY}")
    t.case(ep, "rmdir of a linked function", "rmdir $B", 1, EBUSY)

    mark, rmark = ep.mark(), rc.mark()
    shell_ok(ep, "echo 1 > $C/start")
    wait_link_up(ep, mark, to)
    mark, rmark = ep.mark(), rc.mark()
    t.case(ep, "start when started: nothing happens", "echo 1 > $C/start", 0,
           None, absent=r"started \(generation")
    t.case(rc, "start when started: the host keeps its device",
           "pcitest -b 0", 0, r"BAR0:\s+OKAY", absent="endpoint started")
    shell_ok(ep, "echo 0 > $C/start")
    rc.expect(r"link down: removed 1 function", to, "the host to remove the "
              "function", since=rmark)
    t.case(ep, "stop twice: the second does nothing", "echo 0 > $C/start", 0,
           None, absent=r"stopped \(generation")
    shell_ok(ep, "rm $C/bad; ln -sn $C $B/primary/ctl")
    t.case(ep, "rmdir of a function linked from its primary/", "rmdir $B", 1,
           ENOTEMPTY)
    t.case(ep, "unlink from the controller's side what primary/ linked",
           "rm $C/bad", 1, ENOENT)
    shell_ok(ep, "rm $B/primary/ctl")

    # Virtual functions: the vlink controller has none.
    shell_ok(ep, "mkdir $G/pf $G/vf && ln -sn $G/vf $G/pf/vf1")
    t.case(ep, "link a virtual function to the controller",
           "ln -sn $G/vf $C/vf", 1, EINVAL)
    t.case(ep, "link a function with a virtual function (the controller "
           "has none)", "ln -sn $G/pf $C/pf", 1,
           rf"controller has no virtual function 1(.|\n)*{EINVAL}")
    t.case(ep, "a function as its own virtual function",
           "ln -sn $G/pf $G/pf/self", 1, EINVAL)
    shell_ok(ep, "ln -sn $B $C/bad")
    t.case(ep, "make a linked function a virtual function",
           "mkdir $G/pf2 && ln -sn $B $G/pf2/vf1", 1, EBUSY)
    shell_ok(ep, "rm $C/bad; rm $G/pf/vf1; rmdir $G/pf $G/vf $G/pf2")

    # A ninth function: the link has eight function numbers.
    shell_ok(ep, "for i in 0 1 2 3 4 5 6 7 8; do mkdir $G/n$i; done; "
             "for i in 0 1 2 3 4 5 6 7; do ln -sn $G/n$i $C/n$i || exit; "
             "done", to)
    t.case(ep, "link a ninth function", "ln -sn $G/n8 $C/n8", 1,
           rf"all 8 function numbers are in use(.|\n)*{ENOSPC}")
    t.case(ep, "vlink-epf bind of a ninth function", "vlink-epf bind n8", 1,
           r"the kernel refused to bind 'n8'")
    shell_ok(ep, "for i in 0 1 2 3 4 5 6 7; do rm $C/n$i; done; "
             "for i in 0 1 2 3 4 5 6 7 8; do rmdir $G/n$i; done", to)
    shell_ok(ep, "rmdir $B")


# ---- vlink-epf ----

SCRIPT_CASES = [
    # (what, command, exit status, message)
    ("vlink-epf without a command", "vlink-epf", 2, r"usage: vlink-epf"),
    ("vlink-epf with an unknown command", "vlink-epf frob", 2,
     r"unknown command 'frob'(.|\n)*usage:"),
    ("vlink-epf create without a name", "vlink-epf create", 1,
     r"create: which NAME\?"),
    ("vlink-epf create with an unknown option", "vlink-epf create x -q 1", 2,
     r"[Ii]llegal option -+ ?q(.|\n)*usage:"),
    ("vlink-epf create -m without its value", "vlink-epf create x -m", 2,
     r"No arg for -m option|requires an argument"),
    ("vlink-epf create -d with a driver that does not exist",
     "vlink-epf create x -d nodrv", 1, r"no function driver 'nodrv'"),
    ("vlink-epf create -m 33: refused, and the half-made function removed",
     "(vlink-epf create x -m 33; s=$?; [ -e $G/x ] && echo LEFT; exit $s)",
     1, r"msi_interrupts = '33' refused by the kernel(?!(.|\n)*LEFT)"),
    ("vlink-epf create -p 5", "vlink-epf create x -p 5", 1,
     r"interrupt_pin = '5' refused by the kernel"),
    ("vlink-epf create -x 2049", "vlink-epf create x -x 2049", 1,
     r"msix_interrupts = '2049' refused by the kernel"),
    ("vlink-epf create -v 0x10000", "vlink-epf create x -v 0x10000", 1,
     r"vendorid = '0x10000' refused by the kernel"),
    ("vlink-epf create of a name that exists", "vlink-epf create sc", 1,
     r"function 'sc' exists already"),
    ("vlink-epf bind without a name", "vlink-epf bind", 1,
     r"bind: which NAME\?"),
    ("vlink-epf bind of a function that does not exist",
     "vlink-epf bind nosuch", 1, r"no function 'nosuch'"),
    ("vlink-epf bind to a controller that does not exist",
     "vlink-epf bind sc no-such-epc", 1,
     r"no controller 'no-such-epc' \(have: \S+"),
    ("vlink-epf unbind of a function that is not bound",
     "vlink-epf unbind sc", 1, r"'sc' is not bound to"),
    ("vlink-epf unbind without a name", "vlink-epf unbind", 1,
     r"unbind: which NAME\?"),
    ("vlink-epf start with nothing bound", "vlink-epf start", 1,
     r"refused to start \(no function bound\?\)"),
    ("vlink-epf start of a controller that does not exist",
     "vlink-epf start no-such-epc", 1, r"no controller 'no-such-epc'"),
    ("vlink-epf stop of a controller that does not exist",
     "vlink-epf stop no-such-epc", 1, r"no controller 'no-such-epc'"),
    ("vlink-epf destroy of a function that does not exist",
     "vlink-epf destroy nosuch", 1, r"no function 'nosuch'"),
    ("vlink-epf destroy -d with a driver that does not have it",
     "vlink-epf destroy sc -d nodrv", 1,
     r"no function 'sc' of driver 'nodrv'"),
    ("vlink-epf destroy without a name", "vlink-epf destroy", 1,
     r"destroy: which NAME\?"),
    ("vlink-epf down of a function that is not bound",
     "vlink-epf down nosuch", 1, r"'nosuch' is not bound to"),
    ("vlink-epf list without configfs", "CFS=/nonexistent vlink-epf list", 1,
     r"/nonexistent missing: is configfs mounted"),
]


def script_cases(t, ep):
    shell_ok(ep, "vlink-epf create sc")
    for what, cmd, status, rx in SCRIPT_CASES:
        t.case(ep, what, cmd, status, rx)
    shell_ok(ep, "vlink-epf bind sc")
    t.case(ep, "vlink-epf bind twice", "vlink-epf bind sc", 1,
           r"'sc' is bound to \S+ already")
    t.case(ep, "vlink-epf destroy of a bound function", "vlink-epf destroy sc",
           1, r"cannot destroy 'sc' \(still bound\?\)")
    shell_ok(ep, "vlink-epf unbind sc && vlink-epf destroy sc")


# ---- the host side: stock pcitest ----

def host_cases(t, ep, rc):
    to = t.timeout
    mark = ep.mark()
    shell_ok(ep, "vlink-epf up host -m 4")
    wait_link_up(ep, mark, to)
    shell_ok(rc, "for i in $(seq 100); do [ -e /dev/pci-endpoint-test.0 ] "
             "&& break; sleep 0.1; done; [ -e /dev/pci-endpoint-test.0 ]")
    for flag, op in (("-r", "READ"), ("-w", "WRITE"), ("-c", "COPY"),
                     ("-d -c", "COPY")):
        t.case(rc, f"pcitest {flag} -s 0", f"pcitest {flag} -s 0", 1,
               rf"{op} \(\s*0 bytes\):\s+NOT OKAY")
    # The host driver allocates size + 4 KiB with kzalloc(): 4 MiB - 4 KiB
    # is its largest buffer (the window is 32 MiB).
    for flag, op in (("-r", "READ"), ("-d -w", "WRITE"), ("-c", "COPY")):
        t.case(rc, f"pcitest {flag} -s 4190208 (the host driver's largest "
               "buffer) is OKAY", f"pcitest {flag} -s 4190208", 0,
               rf"{op} \(4190208 bytes\):\s+OKAY")
    t.case(rc, "pcitest -r -s 67108864 (64 MiB, beyond the window): the "
           "host driver cannot allocate it, NOT OKAY",
           "pcitest -r -s 67108864", 1,
           r"Failed to allocate(.|\n)*READ \(67108864 bytes\):\s+NOT OKAY")
    t.case(rc, "pcitest -w -s 4194304 (4 MiB): NOT OKAY, host allocation",
           "pcitest -w -s 4194304", 1,
           r"WRITE \(4194304 bytes\):\s+NOT OKAY")
    for what, cmd in (("pcitest -b 6 (no BAR 6)", "pcitest -b 6"),
                      ("pcitest -m 33", "pcitest -m 33"),
                      ("pcitest -x 2049", "pcitest -x 2049"),
                      ("pcitest -i 3 (no such irq type)", "pcitest -i 3")):
        t.case(rc, f"{what}: refused by pcitest itself", cmd, 234,
               r"usage: pcitest")
    t.case(rc, "pcitest -D on a device that does not exist",
           "pcitest -D /dev/pci-endpoint-test.9 -b 0", 237,
           r"can't open PCI Endpoint Test device: No such file")
    t.case(rc, "pcitest -m 5 on a function offering 4 MSI: NOT OKAY after "
           "the host's 1 s wait", "pcitest -m 5", 1, r"MSI5:\s+NOT OKAY")
    t.case(rc, "pcitest -x 1 on a function without MSI-X", "pcitest -x 1", 1,
           r"MSI-X1:\s+NOT OKAY")
    t.case(rc, "pcitest -i 2 (MSI-X) on a function without MSI-X",
           "pcitest -i 2", 1, r"SET IRQ TYPE TO MSI-X:\s+NOT OKAY")
    t.case(rc, "a transfer with no irq type left: NOT OKAY at once",
           "pcitest -w -s 1024", 1, r"WRITE \(\s*1024 bytes\):\s+NOT OKAY")
    t.case(rc, "back to MSI, transfers are OKAY again",
           "pcitest -i 1 && pcitest -r -s 1024", 0,
           r"SET IRQ TYPE TO MSI:\s+OKAY(.|\n)*READ \(\s*1024 bytes\):\s+OKAY")


# ---- the register block, written through the endpoint's RAM ----

class Registers:
    """The register BAR of function 0, seen in the endpoint guest's RAM."""

    def __init__(self, rig, rc):
        _, out = rc.run("vlink-pcishow; head -3 "
                        "/sys/bus/pci/devices/0000:00:02.0/resource")
        bar0 = re.search(r"BAR0 (0x[0-9a-f]+)", out)
        win = re.findall(r"^(0x[0-9a-f]+) 0x[0-9a-f]+ 0x[0-9a-f]+$", out,
                         re.M)
        assert bar0 and len(win) == 3, f"no BAR0 or window in {out!r}"
        self.off = int(bar0.group(1), 16) - int(win[2], 16)
        self.file = open(rig.ram_file("ep"), "r+b")
        self.mem = mmap.mmap(self.file.fileno(), 0)

    def close(self):
        self.mem.close()
        self.file.close()

    def get(self, reg):
        return struct.unpack_from("<I", self.mem, self.off + reg)[0]

    def put(self, reg, val):
        struct.pack_into("<I", self.mem, self.off + reg, val)

    def command(self, cmd, src=0, dst=0, size=0, flags=0, irq_type=1,
                timeout=10):
        """Parameters, then the command word; the status once done.  IRQ
        number 0 is no vector: the endpoint interrupts nobody."""
        self.put(REG_STATUS, 0)
        for reg, val in ((REG_SRC, src & 0xffffffff), (REG_SRC + 4, src >> 32),
                         (REG_DST, dst & 0xffffffff), (REG_DST + 4, dst >> 32),
                         (REG_SIZE, size), (REG_FLAGS, flags),
                         (REG_IRQ_TYPE, irq_type), (REG_IRQ_NUMBER, 0)):
            self.put(reg, val)
        self.put(REG_COMMAND, cmd)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.get(REG_COMMAND) and self.get(REG_STATUS) & ST_IRQ:
                return self.get(REG_STATUS)
            time.sleep(0.01)
        return None


REGISTER_CASES = [
    # (what, command, src, dst, size, flags, bits set, bits clear, EP log)
    ("READ of 0 bytes", CMD_READ, RC_RAM + 0x8000000, 0, 0, 0,
     ST_READ_FAIL, ST_READ_OK, r"READ 0 bytes FAILED \(-22\)"),
    ("READ of 64 MiB (the outbound window is 32 MiB)", CMD_READ,
     RC_RAM + 0x8000000, 0, 64 * MIB, 0, ST_READ_FAIL | ST_SRC_BAD,
     ST_READ_OK, r"READ 67108864 bytes FAILED \(-12\)"),
    ("READ of 0xffffffff bytes at an unaligned address (the window span "
     "wraps)", CMD_READ, RC_RAM + 0x8000010, 0, 0xffffffff, 0, ST_READ_FAIL,
     ST_READ_OK, r"READ 4294967295 bytes FAILED \(-22\)"),
    ("READ from outside the host's RAM", CMD_READ, 0x80000000, 0, 4096, 0,
     ST_READ_FAIL | ST_SRC_BAD, ST_READ_OK,
     r"outside the host's RAM(.|\n)*READ 4096 bytes FAILED \(-22\)"),
    ("WRITE to an address beyond 4 GiB", CMD_WRITE, 0, 0x1_4000_0000, 4096,
     0, ST_WRITE_FAIL | ST_DST_BAD, ST_WRITE_OK,
     r"WRITE 4096 bytes FAILED \(-22\)"),
    ("COPY of 20 MiB (each half of a COPY gets at most 16 MiB)", CMD_COPY,
     RC_RAM + 0x8000000, RC_RAM + 0xa000000, 20 * MIB, 0, ST_COPY_FAIL,
     ST_COPY_OK, r"COPY 20971520 bytes FAILED \(-12\)"),
    ("DMA WRITE of 0xffffffff bytes (a private channel needs no window: "
     "the local buffer is what cannot be had)", CMD_WRITE, 0,
     RC_RAM + 0x9000020, 0xffffffff, 1, ST_WRITE_FAIL,
     ST_WRITE_OK | ST_DST_BAD, r"WRITE 4294967295 bytes FAILED \(-12\), DMA"),
    ("DMA READ from outside the host's RAM (the engine refuses the "
     "address)", CMD_READ, 0x80000000, 0, 4096, 1, ST_READ_FAIL,
     ST_READ_OK, r"DMA channel \d+: read from host 0x80000000: address not "
     r"reachable(.|\n)*?READ 4096 bytes FAILED \(-5\), DMA"),
    ("DMA COPY of 0xffffffff bytes at unaligned addresses (the engine "
     "refuses it: the COPY must fail)", CMD_COPY, RC_RAM + 0x8000010,
     RC_RAM + 0x9000020, 0xffffffff, 1, ST_COPY_FAIL, ST_COPY_OK,
     r"COPY 4294967295 bytes FAILED"),
]


def register_cases(t, rig, ep, rc):
    # Locate the block, and make sure it is the one: the size register
    # must hold what the host driver wrote last.
    shell_ok(rc, "pcitest -r -s 1234")
    try:
        regs = Registers(rig, rc)
        assert regs.get(REG_SIZE) == 1234, \
            f"size register {regs.get(REG_SIZE)}, not 1234"
    except (AssertionError, OSError, ValueError) as e:
        for case in REGISTER_CASES:
            t.record(f"registers: {case[0]}", False,
                     f"cannot locate the register block: {e}")
        return
    try:
        for what, cmd, src, dst, size, flags, on, off, log in REGISTER_CASES:
            mark = ep.mark()
            st = regs.command(cmd, src, dst, size, flags,
                              timeout=t.timeout)
            why = None
            if st is None:
                why = "no answer (status never showed IRQ_RAISED)"
            elif st & on != on or st & off:
                why = f"status {st:#x}: wanted {on:#x} set, {off:#x} clear"
            else:
                try:
                    ep.expect(log, t.timeout, f"/{log}/", since=mark)
                except RigError as e:
                    why = str(e)
            said = ep.output(mark).strip()[-300:]
            t.record(f"registers: {what}", why is None,
                     f"{why}; endpoint said {said!r}")

        mark = ep.mark()
        regs.put(REG_STATUS, 0)
        regs.put(REG_COMMAND, 0x40)
        try:
            ep.expect(r"ignoring unknown command 0x40", t.timeout,
                      "the endpoint to refuse command 0x40", since=mark)
            why = None if not regs.get(REG_COMMAND) and \
                not regs.get(REG_STATUS) else \
                f"command {regs.get(REG_COMMAND):#x} status " \
                f"{regs.get(REG_STATUS):#x}"
        except RigError as e:
            why = str(e)
        t.record("registers: an unknown command is dropped, no status, no "
                 "interrupt", why is None, why)

        # A READ only reads the host's memory (whose checksum it then
        # misses): nothing here ever writes to the host.
        mark = ep.mark()
        st = regs.command(CMD_READ, RC_RAM + 0x8000000, 0, 4096, 0,
                          irq_type=7, timeout=t.timeout)
        try:
            ep.expect(r"host asked for unknown irq type 7", t.timeout,
                      "the endpoint to refuse irq type 7", since=mark)
            why = None if st and st & (ST_READ_OK | ST_READ_FAIL) else \
                f"status {st}"
        except RigError as e:
            why = str(e)
        t.record("registers: irq type 7: the transfer is done, no "
                 "interrupt raised", why is None, why)
    finally:
        regs.close()
    # The host driver programs every register again for each command.
    t.case(rc, "registers: the host driver works again afterwards",
           "pcitest -b 0 && pcitest -r -s 4096 && pcitest -d -w -s 4096", 0,
           r"BAR0:\s+OKAY(.|\n)*READ \(\s*4096 bytes\):\s+OKAY(.|\n)*"
           r"WRITE \(\s*4096 bytes\):\s+OKAY")


# ---- vendor ID 0x0001 ----

def crs_case(t, ep, rc):
    """Vendor ID 0x0001 is what a host reads while a function answers
    Configuration Request Retry Status: a host would retry for a minute.
    The controller refuses it when the function binds, and says why."""
    mark = ep.mark()
    t.case(ep, "vendorid 0x0001 (the retry value): the bind is refused",
           "vlink-epf down host && vlink-epf up crs -v 0x0001 -m 1", 1,
           r"the kernel refused to bind 'crs'")
    try:
        ep.expect(r"function 0: vendor ID 0x0001 is reserved for "
                  r"Configuration Request Retry Status", t.timeout,
                  "the controller to say why it refused", since=mark)
        why = None
    except RigError as e:
        why = str(e)
    t.record("vendorid 0x0001: the controller says why", why is None, why)
    shell_ok(ep, "vlink-epf destroy crs")


# ---- a function number given again ----

def reuse_case(t, ep, rc):
    """Function 0 with MSI and 2048 MSI-X vectors, then a function without
    either in the same number: the host must see no capability at all, and
    its driver must refuse a function without MSI.  (With the previous
    function's MSI-X capability left over, its table and PBA would lie far
    beyond the new function's 256-byte BAR 0.)"""
    mark = ep.mark()
    shell_ok(ep, "vlink-epf up mx -m 4 -x 2048")
    wait_link_up(ep, mark, t.timeout)
    mark = ep.mark()
    shell_ok(ep, "vlink-epf down mx && mkdir $G/plain && "
             "echo 0x104c > $G/plain/vendorid && "
             "echo 0xb500 > $G/plain/deviceid && vlink-epf bind plain && "
             "vlink-epf start")
    what = "function number reused: no MSI or MSI-X capability left from " \
        "the function before"
    try:
        wait_link_up(ep, mark, t.timeout)
    except RigError as e:
        t.record(what, False, f"no link up: {e}")
        raise
    t.case(rc, what,
           "od -An -tx1 -j6 -N1 /sys/bus/pci/devices/0001:00:00.0/config; "
           "od -An -tx1 -j0x34 -N1 /sys/bus/pci/devices/0001:00:00.0/config",
           0, r"^\s*00\s+00\s*$")
    t.case(rc, "function number reused: the host driver refuses a function "
           "without MSI", "vlink-pcishow | head -1", 0,
           r"104c:b500 class 0xff0000 driver -")
    shell_ok(ep, "vlink-epf down plain")


def run(results, build):
    timeout = 180 if os.environ.get("VLINK_KVARIANT", "vlink") != "vlink" \
        else 60
    t = Table(results, timeout)
    t0 = time.monotonic()
    server_cases(t, build)
    with Rig(build, name="badinput") as rig:
        rig.start_server()
        ep = rig.start_guest("ep")
        rc = rig.start_guest("rc")
        try:
            results.step("bad input: both guests boot",
                         lambda: (ep.wait_shell(240), rc.wait_shell(240)))
            scenario(t, rig, ep, rc)
        except Abort:
            pass
        except (RigError, AssertionError) as e:
            # A case that takes a guest down stops the table here.
            results.record("bad input: the table ran to its end", False,
                           str(e))
        check_consoles(results, rig, "bad input",
                       known={"rc": STOCK_ALLOC_WARNING})
    print(f"bad input: {t.count} cases in {time.monotonic() - t0:.0f} s",
          flush=True)


def scenario(t, rig, ep, rc):
    r = t.r
    epc = epc_name(ep)
    shell_ok(ep, f"CFS={CFS}; C=$CFS/controllers/{epc}; F=$CFS/functions; "
             "G=$F/pci_epf_test; B=$G/bad; "
             "L() { head -c 5000 /dev/zero | tr '\\0' \"$1\"; }")
    attr_cases(t, ep)
    order_cases(t, ep, rc)
    script_cases(t, ep)
    host_cases(t, ep, rc)
    register_cases(t, rig, ep, rc)
    crs_case(t, ep, rc)

    # After all that, the framework still works.
    mark = ep.mark()
    shell_ok(ep, "vlink-epf up fresh")
    r.step("bad input: afterwards a fresh function binds",
           wait_link_up, ep, mark, t.timeout)
    shell_ok(rc, "for i in $(seq 100); do [ -e /dev/pci-endpoint-test.0 ] "
             "&& break; sleep 0.1; done; [ -e /dev/pci-endpoint-test.0 ]")
    r.step("bad input: afterwards pcitest -b 0..5 pass", bar_tests, rc)
    shell_ok(ep, "vlink-epf down fresh")

    # Last: it may take the endpoint down on a kernel with KASAN.
    reuse_case(t, ep, rc)
