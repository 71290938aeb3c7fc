#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""`make run`: boot the endpoint and root-complex guests joined by the link,
bind a pci_epf_test function on the endpoint, run the stock pcitest.sh on
the root complex, show both consoles (prefixed [ep] and [rc]) and print a
summary.

  vlink-run.py --build build              all of the above, then stop
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


def bind_and_test(ep, rc):
    """Bind pci_epf_test on the EP, let the stock host side judge it."""
    rows = []
    mark = rc.mark()
    status, out = ep.run("vlink-epf up t0 -m 32 -x 2048")
    rows.append(("ep", "bind", status == 0,
                 "pci_epf_test 104c:b500 bound and started" if status == 0
                 else out.strip()))
    if status:
        return rows
    rows.append(("rc", "enumerate", *summary_line(
        rc, r"vlink-rc \S+: endpoint started.*", "the RC to enumerate")))
    try:
        rc.expect(r"pci-endpoint-test \S+:|pci_endpoint_test", 5,
                  "the host driver", since=mark)
    except RigError:
        pass
    status, out = rc.run("for i in $(seq 100); do "
                         "[ -e /dev/pci-endpoint-test.0 ] && break; "
                         "sleep 0.1; done; vlink-pcishow; "
                         "ls /dev/pci-endpoint-test.0")
    rows.append(("rc", "host driver", status == 0,
                 "/dev/pci-endpoint-test.0" if status == 0 else out.strip()))
    status, out = rc.run("pcitest.sh", 900)
    okay = out.count("\tOKAY")
    bad = out.count("NOT OKAY")
    rows.append(("rc", "pcitest.sh", status == 0 and okay and not bad,
                 f"{okay} OKAY, {bad} NOT OKAY"))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--name", default="run",
                    help="names the run's sockets, RAM files and logs")
    ap.add_argument("--shell", choices=("ep", "rc"),
                    help="stay in an interactive shell on this guest")
    args = ap.parse_args()

    # Ctrl-C and SIGTERM unwind through the rig's teardown.  SIGINT is
    # set explicitly: a shell that starts us in the background without job
    # control hands it down ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))
    rows = []
    with Rig(args.build, name=args.name) as rig:
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
        rows += bind_and_test(guests["ep"], guests["rc"])

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
