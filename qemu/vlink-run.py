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
  vlink-run.py --build build --topology rc-2ep
                                          the same with two endpoint
                                          guests (ep0, ep1) on one root
                                          complex, pcitest.sh on each
  vlink-run.py --build build --topology ep-2rc
                                          one endpoint guest with two
                                          link controllers, each to its
                                          own root complex (rc0, rc1): a
                                          function on each controller
  vlink-run.py --build build --topology vntb
                                          a pair on the ntb kernel: the
                                          tree's pci-epf-vntb on the
                                          endpoint, ntb_hw_epf on the
                                          root complex, ntb_netdev on
                                          both; ping and a 16 MiB TCP
                                          transfer each way
  vlink-run.py --build build --topology ntb
                                          ep-2rc-far on the ntb kernel:
                                          the tree's pci-epf-ntb joins
                                          the two root complexes, each
                                          with ntb_hw_epf and
                                          ntb_netdev; ping and a 16 MiB
                                          TCP transfer each way

Everything started is torn down on exit, on error and on Ctrl-C.
"""

import argparse
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vlinkrig import TOPOLOGIES, Rig, RigError, pcitest_sh_on  # noqa: E402
import vlinkntb  # noqa: E402

DRIVER = {"ep": "vlink-ep", "rc": "vlink-rc"}


def summary_line(guest, pattern, what, timeout=60):
    try:
        m = guest.expect(pattern, timeout, what)
        return True, m.group(0).split(": ", 1)[-1]
    except RigError as e:
        return False, str(e)


def link_index(guest, link):
    """Which of a guest's links, in slot order, a link of the topology is."""
    return [i for i, _ in guest.links].index(link)


def link_device(guest, link):
    """The PCI name of a guest's link device for one of its links: the
    k-th of them sits in slot 1 + 2k (vlinkrig.TOPOLOGIES)."""
    return f"0000:00:{1 + 2 * link_index(guest, link):02x}.0"


def label(guest, link):
    """A summary row's guest column: the guest, and which of its links
    when it has several (ep-2rc's ep: ep.0, ep.1)."""
    if len(guest.links) == 1:
        return guest.guest
    return f"{guest.guest}.{link_index(guest, link)}"


def link_rows(guest, link):
    """The link's handshake, as one of its two guests saw it."""
    d = DRIVER[guest.role] + " " + link_device(guest, link)
    rows = []
    for what, pattern, waited in (
            ("peer up", r": peer .* up.*", "the peer to come up"),
            ("RAM window", r": test pattern from the peer: .*",
             "the peer's test pattern"),
            ("doorbells", r": doorbell round trip: .*",
             "the doorbell round trip")):
        rows.append((label(guest, link), what, *summary_line(
            guest, re.escape(d) + pattern, f"{d}: {waited}")))
    return rows


def bind_and_test(ep, rc, link, n):
    """Bind pci_epf_test on the EP's controller of the link, let the stock
    host side judge it: the stock pcitest.sh on the RC's n-th host
    device."""
    rows = []
    dev = f"/dev/pci-endpoint-test.{n}"
    epc = link_device(ep, link)
    fn = f"t{link_index(ep, link)}"
    mark = rc.mark()
    status, out = ep.run(f"vlink-epf create {fn} -m 32 -x 2048 && "
                         f"vlink-epf bind {fn} {epc} && vlink-epf start {epc}")
    rows.append((label(ep, link), "bind", status == 0,
                 f"pci_epf_test 104c:b500 bound to {epc} and started"
                 if status == 0
                 else out.strip()))
    if status:
        return rows
    rows.append((label(rc, link), "enumerate", *summary_line(
        rc, re.escape(f"vlink-rc {link_device(rc, link)}") +
        r": endpoint started.*", "the RC to enumerate")))
    try:
        rc.expect(r"pci-endpoint-test \S+:|pci_endpoint_test", 5,
                  "the host driver", since=mark)
    except RigError:
        pass
    status, out = rc.run(f"for i in $(seq 100); do [ -e {dev} ] && break; "
                         f"sleep 0.1; done; vlink-pcishow; ls {dev}")
    rows.append((label(rc, link), "host driver", status == 0,
                 dev if status == 0 else out.strip()))
    status, out = rc.run(pcitest_sh_on(n), 900)
    okay = out.count("\tOKAY")
    bad = out.count("NOT OKAY")
    rows.append((label(rc, link), f"pcitest.sh {n}",
                 status == 0 and okay and not bad,
                 f"{okay} OKAY, {bad} NOT OKAY"))
    return rows


def traffic_rows(label, steps, a, b, a_addr, b_addr):
    """Run the steps that bring an NTB up, then ping and a TCP transfer
    each way between guests a and b; a summary row per step, up to the
    first that fails."""
    rows = []
    steps += vlinkntb.traffic_steps(a, b, a_addr, b_addr)
    for what, fn, fargs in steps:
        try:
            value = fn(*fargs)
        except (RigError, AssertionError) as e:
            rows.append((label, what, False, str(e)))
            break
        rows.append((label, what, True,
                     f"{value:.1f} MB/s" if isinstance(value, float)
                     else ""))
    return rows


def vntb(args):
    """The tree's vNTB stack on a pair, then traffic both ways."""
    with vlinkntb.vntb_rig(args.build, args.name) as rig:
        rig.start_server()
        ep = rig.start_guest("ep", echo=True)
        rc = rig.start_guest("rc", echo=True)
        ep.wait_shell()
        rc.wait_shell()
        return traffic_rows("vntb", vlinkntb.vntb_steps(ep, rc, rc.mark()),
                            ep, rc, vlinkntb.EP_ADDR, vlinkntb.RC_ADDR)


def ntb(args):
    """The tree's pci-epf-ntb between two root complexes, then traffic
    both ways."""
    with vlinkntb.ntb_rig(args.build, args.name) as rig:
        ep, rc0, rc1 = vlinkntb.start_ntb_guests(rig, echo=True)
        steps = vlinkntb.ntb_steps(ep, rc0, rc1, rc0.mark(), rc1.mark())
        return traffic_rows("ntb", steps, rc0, rc1, vlinkntb.RC0_ADDR,
                            vlinkntb.RC1_ADDR)


def pair_or_topology(args, topology):
    """Boot a topology, pcitest.sh on each link; None after --shell."""
    rows = []
    with Rig(args.build, name=args.name, topology=args.topology) as rig:
        rig.start_server()
        guests = {}
        for name in topology["guests"]:
            if name == args.shell:
                continue
            guests[name] = rig.start_guest(name, echo=True)
        if args.shell:
            print(f"vlink: interactive {args.shell} console; Ctrl-A x quits")
            shell = rig.start_guest(args.shell, interactive=True)
            shell.proc.wait()
            return None
        for g in guests.values():
            g.wait_shell()
        for link, (ep, rc) in enumerate(topology["links"]):
            rows += link_rows(guests[ep], link) + link_rows(guests[rc], link)
        # An RC's host devices come in the order its endpoints are bound.
        bound = {}
        for link, (ep, rc) in enumerate(topology["links"]):
            n = bound[rc] = bound.get(rc, -1) + 1
            rows += bind_and_test(guests[ep], guests[rc], link, n)
    return rows


# What --topology runs instead of pcitest.sh on each link.
NTB_RUNS = {"vntb": vntb, "ntb": ntb}


def print_summary(rows, args):
    print("\n==== vlink summary ====")
    # Long step names run over; the short ones line up.
    width = min(16, max((len(what) for _, what, _, _ in rows), default=0))
    for guest, what, ok, text in rows:
        print(f"  {guest:<5} {what:<{width}} {'OK  ' if ok else 'FAIL'} "
              f"{text}".rstrip())
    print(f"  logs: {os.path.join(os.path.abspath(args.build), 'logs')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--name", default="run",
                    help="names the run's sockets, RAM files and logs")
    ap.add_argument("--topology", choices=[*TOPOLOGIES, *NTB_RUNS],
                    default="pair",
                    help="the guests and links to build, or an NTB run")
    ap.add_argument("--shell",
                    help="stay in an interactive shell on this guest "
                    "(a pair's: ep or rc)")
    args = ap.parse_args()
    topology = TOPOLOGIES.get(args.topology, TOPOLOGIES["pair"])
    if args.shell and (args.topology in NTB_RUNS or
                       args.shell not in topology["guests"]):
        ap.error(f"--shell: the guests are {', '.join(topology['guests'])},"
                 " and not with an NTB run, which drives the consoles")

    # Ctrl-C and SIGTERM unwind through the rig's teardown.  SIGINT is
    # set explicitly: a shell that starts us in the background without job
    # control hands it down ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(130))
    if args.topology in NTB_RUNS:
        rows = NTB_RUNS[args.topology](args)
    else:
        rows = pair_or_topology(args, topology)
    if rows is None:
        return 0
    print_summary(rows, args)
    return 1 if any(not ok for _, _, ok, _ in rows) else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except RigError as e:
        print(f"vlink-run: {e}", file=sys.stderr)
        sys.exit(1)
