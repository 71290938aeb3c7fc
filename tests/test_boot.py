# SPDX-License-Identifier: GPL-2.0
"""Boot test: both guests come up joined by the link, prove both RAM
windows and the doorbells, and survive the endpoint's QEMU being killed
and restarted.
"""

from vlinkrig import Rig
from vlinktest import Abort, check_consoles

BOOT_TIMEOUT = 180
LINK_TIMEOUT = 30
DRIVER = {"ep": "vlink-ep", "rc": "vlink-rc"}
PEER_NAME = {"ep": "root complex", "rc": "endpoint"}


def link_found(guest, role):
    guest.expect(DRIVER[role] + r" \S+: .* link: shm 1024 KiB v\d+, peer id "
                 r"\d+; peer-RAM window", BOOT_TIMEOUT,
                 "the link driver to find its link device and window")


def peer_up(guest, role, since=0):
    guest.expect(DRIVER[role] + r" \S+: peer " + PEER_NAME[role] + " up",
                 LINK_TIMEOUT, f"the {PEER_NAME[role]} to come up",
                 since=since)


def pattern_ok(guest, role, since=0):
    m = guest.expect(DRIVER[role] + r" \S+: test pattern from the peer: "
                     r"(OK.*|MISMATCH.*)\r?\n", LINK_TIMEOUT,
                     "the peer's pattern in our RAM", since=since)
    assert m.group(1).startswith("OK"), m.group(0)


def round_trip(guest, role, since=0):
    guest.expect(DRIVER[role] + r" \S+: doorbell round trip: median \d+ us",
                 LINK_TIMEOUT, "the doorbell round-trip measurement",
                 since=since)


def uboot_booted(guest, role):
    """Debian's U-Boot found the boot disk's script and booted this role's
    configuration of the FIT, every part's hash checked."""
    for pattern, what in (
            (r"Found U-Boot script /boot\.scr", "U-Boot to find boot.scr"),
            (f"Using '{role}' configuration", f"the FIT's {role} "
             "configuration"),
            (r"Trying 'kernel' kernel subimage", "the FIT's kernel"),
            (r"Trying 'initramfs' ramdisk subimage", "the FIT's initramfs"),
            (f"Trying 'fdt-{role}' fdt subimage", f"the {role} tree"),
            (r"Starting kernel", "U-Boot to start the kernel"),
            (f"Kernel command line: .*vlink\.role={role}",
             "the boot script's command line")):
        guest.expect(pattern, 5, what)
    uboot = guest.output().split("Starting kernel", 1)[0]
    hashes = uboot.count("Verifying Hash Integrity ... sha256+ OK")
    assert hashes >= 3, f"{hashes} subimage hashes checked, not 3"
    assert "Bad hash" not in uboot and "ERROR" not in uboot, "U-Boot error"


def run(results, build):
    with Rig(build, name="boot") as rig:
        try:
            scenario(results, rig)
        except Abort:
            pass
        check_consoles(results, rig, "boot")


def scenario(results, rig):
    r = results
    rig.start_server()
    ep = rig.start_guest("ep")
    rc = rig.start_guest("rc")
    guests = {"ep": ep, "rc": rc}

    for role, g in guests.items():
        r.step(f"boot: {role} kernel reaches userspace", g.wait_shell,
               BOOT_TIMEOUT)
    for role, g in guests.items():
        if rig.boot == "uboot":
            r.step(f"boot: U-Boot boots the FIT's {role} configuration from "
                   "the boot disk", uboot_booted, g, role)
    for role, g in guests.items():
        r.step(f"boot: {role} finds its link device and peer-RAM window",
               link_found, g, role)
    for role, g in guests.items():
        r.step(f"boot: {role} sees the {PEER_NAME[role]} come up",
               peer_up, g, role)
    for role, g in guests.items():
        r.step(f"boot: {role} RAM holds the pattern the peer wrote "
               "through its window", pattern_ok, g, role)
    for role, g in guests.items():
        r.step(f"boot: {role} doorbell round trip measured", round_trip,
               g, role)
    for role, g in guests.items():
        r.no_trouble(f"boot: {role} kernel log clean", g)

    # The endpoint's QEMU dies: the root complex must notice, and live.
    mark = rc.mark()
    ep.kill()
    r.step("peer death: rc logs the endpoint going down", rc.expect,
           r"vlink-rc \S+: peer endpoint down", LINK_TIMEOUT,
           "the root complex to log the endpoint down", since=mark)
    status, _ = r.step("peer death: rc shell still answers", rc.run, "true",
                       30)
    r.record("peer death: rc shell exit status", status == 0,
             f"status {status}")
    r.no_trouble("peer death: rc kernel log clean", rc, mark)

    # A new endpoint guest on the same RAM file: the link comes back.
    ep2 = rig.start_guest("ep", name="ep-restarted")
    r.step("restart: ep kernel reaches userspace", ep2.wait_shell,
           BOOT_TIMEOUT)
    r.step("restart: ep sees the root complex up", peer_up, ep2, "ep")
    r.step("restart: rc sees the endpoint up again", peer_up, rc, "rc",
           mark)
    r.step("restart: rc RAM holds the new endpoint's pattern", pattern_ok,
           rc, "rc", mark)
    r.step("restart: ep RAM holds the root complex's pattern", pattern_ok,
           ep2, "ep")
