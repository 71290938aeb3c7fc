#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make run`: boot the endpoint and root-complex guests joined by the link,
show both consoles (prefixed [ep] and [rc]) and print a summary.

  vlink-run.py --build build              boot, check the link, stop
  vlink-run.py --build build --shell ep   ... then an interactive shell on
                                          the EP console (rc: same on RC);
                                          Ctrl-A x quits QEMU

Everything started is torn down on exit, on error and on Ctrl-C.
"""

import argparse
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vlinkrig import Rig, RigError  # noqa: E402

DRIVER = {"ep": "vlink-ep", "rc": "vlink-rc"}


def summary_line(guest, pattern, what, timeout=60):
    try:
        m = guest.expect(pattern, timeout, what)
        return True, m.group(0).split(": ", 1)[-1]
    except RigError as e:
        return False, str(e)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--shell", choices=("ep", "rc"),
                    help="stay in an interactive shell on this guest")
    args = ap.parse_args()

    # Ctrl-C and SIGTERM unwind through the rig's teardown.
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))
    rows = []
    with Rig(args.build, name="run") as rig:
        rig.start_server()
        guests = {}
        for role in ("ep", "rc"):
            if role == args.shell:
                continue
            guests[role] = rig.start_guest(role, echo=True)
        if args.shell:
            print(f"vlink: interactive {args.shell} console; Ctrl-A x quits")
            shell = rig.start_guest(args.shell, interactive=True)
            shell.proc.wait()
            return 0
        for role, g in guests.items():
            g.wait_shell()
        for role, g in guests.items():
            d = DRIVER[role]
            rows.append((role, "peer up", *summary_line(
                g, d + r" \S+: peer .* up.*", "the peer to come up")))
            rows.append((role, "RAM window", *summary_line(
                g, d + r" \S+: test pattern from the peer: .*",
                "the peer's test pattern")))
            rows.append((role, "doorbells", *summary_line(
                g, d + r" \S+: doorbell round trip: .*",
                "the doorbell round trip")))

    print("\n==== vlink summary ====")
    failed = 0
    for role, what, ok, text in rows:
        failed += not ok
        print(f"  {role}  {what:<12} {'OK  ' if ok else 'FAIL'} {text}")
    print(f"  logs: {os.path.join(os.path.abspath(args.build), 'logs')}")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except RigError as e:
        print(f"vlink-run: {e}", file=sys.stderr)
        sys.exit(1)
