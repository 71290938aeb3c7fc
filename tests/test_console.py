# SPDX-License-Identifier: GPL-2.0
"""Self test of the rig's shell protocol, on synthetic consoles, without a
guest: one result per case.

The kernel prints each message to the serial console whole, but between
two pieces of a line the shell writes (the UART driver sends the shell's
output a FIFO-full at a time).  A command's end marker cut by a message
once made the rig wait 60 s for a command that had finished (a bind on the
debug kernel, its probe's messages racing the marker).  Each case answers
one command with a console cut that way and checks that Guest.run() finds
the status and the output.
"""

import os
import re
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))

from vlinkrig import Guest, RigError  # noqa: E402

MSG = "vlink-ep 0000:00:01.0: wrote test pattern into the peer's RAM\n"
# A message that starts with the letter the tag goes on with ("ep-1").
EPC_MSG = "pci_epc 0000:00:01.0: link down\n"


class ScriptedConsole(Guest):
    """A guest whose shell answers each command with reply(tag)."""

    def __init__(self, reply):  # pylint: disable=super-init-not-called
        self.name = "unbind-debug-ep"
        self.seq = 0
        self.buf = ""
        self.cond = threading.Condition()
        self.closed = False
        self.reply = reply

    def send(self, text):
        tag = re.search(r'"(@@[^"]+@)"', text).group(1)
        with self.cond:
            # the tty echoes the typed line first
            self.buf += "~ # " + text + self.reply(tag)
            self.cond.notify_all()


def cut(text, at, msg=MSG):
    return text[:at] + msg + text[at:]


def answer(out="hello\n", status=0, begin=None, end=None):
    """The shell's answer, with begin(line) and end(line) cutting its
    marker lines."""
    def reply(tag):
        first, last = f"{tag}@ <\n", f"\n{tag}@ >{status}@\n"
        return (begin or str)(first) + out + (end or str)(last)
    return reply


CASES = (
    ("a marker line whole", answer(), (0, "hello\n")),
    ("a message between the status and its end",
     answer(end=lambda x: cut(x, len(x) - 2)), (0, "hello\n")),
    ("a message inside the tag of the end marker",
     answer(end=lambda x: cut(x, 7)), (0, "hello\n")),
    ("two messages inside the end marker",
     answer(end=lambda x: cut(cut(x, 5), len(x) + len(MSG) - 4)),
     (0, "hello\n")),
    ("a message cutting a three-digit status",
     answer(status=237, end=lambda x: cut(x, len(x) - 4)), (237, "hello\n")),
    ("a message that starts with the tag's next letter",
     answer(end=lambda x: cut(x, x.index("ep-") + 1, EPC_MSG)),
     (0, "hello\n")),
    ("a message inside the begin marker",
     answer(begin=lambda x: cut(x, 4)), (0, "hello\n")),
    ("a message after the begin marker, before its newline",
     answer(begin=lambda x: cut(x, len(x) - 1)), (0, "hello\n")),
    ("output without a newline at its end", answer(out="no newline"),
     (0, "no newline")),
    ("no output", answer(out="", status=1), (1, "")),
    ("a message in the output belongs to it",
     answer(out="a\n" + MSG + "b\n"), (0, "a\n" + MSG + "b\n")),
)


def check(reply, want):
    con = ScriptedConsole(reply)
    try:
        got = con.run("some command", timeout=0.2)
    except RigError as e:
        return False, str(e).split(";")[0]
    return got == want, f"got {got!r}, want {want!r}"


def run(results):
    for name, reply, want in CASES:
        results.record(f"rig console: {name}", *check(reply, want))
