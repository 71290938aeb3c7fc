# SPDX-License-Identifier: GPL-2.0
"""Lifecycle soak: a seeded random walk through configfs on the endpoint.

Functions are created (mkdir), their attributes written with valid and
invalid values, linked to the controller (from either side), unlinked,
the controller started and stopped, functions removed (rmdir), now and
then through the vlink-epf script, in legal and illegal orders.  A model
in Python says what each operation must give (exit status, errno text,
the kernel lines a link change prints on both guests) and what the root
complex must see whenever the link is up: which functions, with which
IDs and header, bound to the stock pci_endpoint_test or not; the bound
ones are then tested with pcitest.  The walk stops at the first step that
differs from the model; the trace of every step is left in
build/logs/soak-seed<N>.trace.

  VLINK_SOAK_SEED   the seed (default DEFAULT_SEED; "random" draws one,
                    printed first)
  VLINK_SOAK_STEPS  how many configfs operations (default 1000, 160 on
                    the debug kernel)

Replay a failure with the seed and step count its result names.

What the model knows about the stack, beyond docs/configfs.md:
- header attributes reach the host when the function is linked (bind()
  writes the header); a change while linked shows after a relink;
- a function linked while the link is up is not offered to the host until
  the next start; the function numbers are the lowest free ones;
- the host's PCI core finds nothing when vendor and device ID read as
  "absent" (ffff:ffff, 0000:0000, ffff:0000, 0000:ffff), and scans
  functions 1..7 only when function 0 is there;
- vendor ID 0x0001 is never generated: the controller refuses it at bind
  (a host would take it for a Configuration Request Retry; test_badinput);
- class codes are drawn from classes the PCI core has no quirks for
  (storage, display, bridges and serial buses would be rewritten by it);
- a function keeps the DMA channel it got on its first DMA transfer until
  it is unbound (DMA_CHANNELS below).
"""

import os
import random
import re
import time

from vlinkrig import Rig, RigError
from vlinktest import (Abort, EBUSY, EEXIST, EINVAL, ENODEV, ENOENT, ENOSPC,
                       ENOTEMPTY, EPERM, KMEMLEAK, check_consoles)
from test_endpoint import CFS, epc_name, shell_ok

NAMES = [f"s{i}" for i in range(10)]      # ten names for eight numbers
MAX_FUNCS = 8
ATTRS = {  # name: (min, max), in the order vlink-epf list/D prints them
    "vendorid": (0, 0xffff),
    "deviceid": (0, 0xffff),
    "revid": (0, 0xff),
    "progif_code": (0, 0xff),
    "subclass_code": (0, 0xff),
    "baseclass_code": (0, 0xff),
    "cache_line_size": (0, 0xff),
    "subsys_vendor_id": (0, 0xffff),
    "subsys_id": (0, 0xffff),
    "interrupt_pin": (0, 4),
    "msi_interrupts": (1, 32),
    "msix_interrupts": (1, 2048),
}
DECIMAL = ("msi_interrupts", "msix_interrupts")
# What pci-epf-test's probe() leaves in a new function.
DEFAULTS = dict(vendorid=0xffff, deviceid=0xffff, revid=0, progif_code=0,
                subclass_code=0, baseclass_code=0xff, cache_line_size=0,
                subsys_vendor_id=0, subsys_id=0, interrupt_pin=1,
                msi_interrupts=0, msix_interrupts=0)
# IDs: the host driver binds 104c:b500 and 104c:b501 (TI DRA7xx, default
# driver data); none of the others is in its table or has a PCI quirk.
VENDORS = (0x104c, 0x104c, 0x104c, 0xffff, 0x0000, 0x0002, 0x5a5a, 0xabcd,
           0xfffe, 0x7e57)
DEVICES = (0xb500, 0xb500, 0xb500, 0xb501, 0xffff, 0x0000, 0x0001, 0xbeef,
           0x5a5a, 0xfffe)
HOST_DRIVER_IDS = {(0x104c, 0xb500), (0x104c, 0xb501)}
BASECLASSES = (0xff, 0xff, 0x05, 0x08, 0x0b, 0x11, 0x12, 0x13)
NODIR = "nonexistent directory|No such file or directory"
TRUE_WORDS = ("1", "y", "Y", "on", "yes", "t")
FALSE_WORDS = ("0", "n", "N", "off", "no", "f")
BAD_BOOLS = ("2", "abc", "", "-1", " 1", "x1")
SIZES = (1, 1024, 1025, 4096, 65536, 65536, 1048576)
# The vlink DMA engine has a memcpy channel per function number
# (VLINK_DMA_CHANNELS), and pci-epf-test keeps the channel it got on its
# first DMA command until it is unbound: were they all held, DMA transfers
# of the other functions would fail (-ENODEV) and the host see NOT OKAY.
DMA_CHANNELS = 8


class Mismatch(Exception):
    """A step did not do what the model expects."""

    def __init__(self, side, detail):
        super().__init__(detail)
        self.side = side  # "ep": an operation; "rc": the host's view


def absent(vendor, device):
    """The PCI core's test for an empty slot (pci_bus_generic_read_...)."""
    return (vendor | device << 16) in (0xffffffff, 0, 0x0000ffff, 0xffff0000)


class Func:
    def __init__(self, name):
        self.name = name
        self.attrs = dict(DEFAULTS)
        self.link = None   # None, "epc" (controllers/<epc>/<name>) or
        self.fn = None     # "primary" (<name>/primary/ctl); function number
        self.hdr = None    # attrs when linked: what the host is shown

    def host_view(self):
        h = self.hdr
        cls = h["baseclass_code"] << 16 | h["subclass_code"] << 8 | \
            h["progif_code"]
        bound = ((h["vendorid"], h["deviceid"]) in HOST_DRIVER_IDS and
                 h["msi_interrupts"] > 0)
        return dict(h, cls=cls,
                    driver="pci-endpoint-test" if bound else "-")


class Model:
    def __init__(self):
        self.funcs = {}
        self.started = False
        self.published = set()  # the controller's func_mask
        self.host = {}          # fn -> Func.host_view(): on the host's bus
        self.dma = set()        # names of functions holding a DMA channel

    def linked(self):
        return [f for f in self.funcs.values() if f.link]

    def free_fn(self):
        used = {f.fn for f in self.linked()}
        for fn in range(MAX_FUNCS):
            if fn not in used:
                return fn
        return None

    def start_view(self):
        """What the host enumerates when the controller starts now."""
        offered = {f.fn: f.host_view() for f in self.linked()}
        host = {}
        if 0 in offered and not absent(offered[0]["vendorid"],
                                       offered[0]["deviceid"]):
            for fn, view in offered.items():
                if not absent(view["vendorid"], view["deviceid"]):
                    host[fn] = view
        return set(offered), host


class Op:
    """One shell-level operation on the endpoint and what it must give."""

    def __init__(self, desc, cmd, ok, errno=None, barrier=False):
        self.desc = desc
        self.cmd = cmd
        self.ok = ok            # exit status 0 expected
        self.errno = errno      # regex the output must hold on failure
        self.barrier = barrier  # the host reacts: wait before going on
        self.ep_lines = []      # regexes the EP console shows, in order
        self.rc_waits = []      # regexes the RC console shows, in order
        self.start_mask = None  # a start: the mask the EP must announce
        self.rc_check = False   # look at the host afterwards
        self.check = None       # fn(output) -> error text or None
        self.step = 0


def fmt_valid(rng, attr, v):
    """v written in one of the forms kstrtouint(s, 0) takes."""
    forms = [str(v), f"{v:#x}", f"0X{v:X}", f"+{v}"]
    if v:
        forms.append(f"0{v:o}")
    return rng.choice(forms)


def gen_valid(rng, attr):
    lo, hi = ATTRS[attr]
    if attr == "vendorid":
        return rng.choice(VENDORS)
    if attr == "deviceid":
        return rng.choice(DEVICES)
    if attr == "baseclass_code":
        return rng.choice(BASECLASSES)
    if attr == "msix_interrupts":
        return rng.choice((1, 2, 64, 2048, rng.randint(lo, hi)))
    return rng.randint(lo, hi)


def gen_invalid(rng, attr):
    """A value the attribute must refuse: (shell words, description)."""
    lo, hi = ATTRS[attr]
    choices = ["'abc'", "'-1'", f"'{hi + 1}'", f"'{hi + 1:#x}'",
               "'0x100000000'", "''", "' 5'", "'5 5'", "'0x'", "'1.5'",
               "LONG"]
    if lo:
        choices.append(f"'{lo - 1}'")
    return rng.choice(choices)


class Soak:
    def __init__(self, rng, steps, ep, rc, trace, timeout):
        self.rng = rng
        self.steps = steps
        self.ep = ep
        self.rc = rc
        self.trace = trace
        self.timeout = timeout
        self.m = Model()
        self.step = 0
        self.pending = []       # ops queued by an earlier one (create)
        self.linkups = 0        # host checks made while the link was up
        self.fn_tests = 0       # functions tested with pcitest
        self.idle_checks = 0    # host checks made while it was down
        self.outcomes = {}      # "ok" or the errno text: how many steps

    # ---- generation: each op updates the model as it must turn out ----

    def pick(self, exists=0.85):
        """A name: mostly one that exists, sometimes any."""
        names = list(self.m.funcs)
        if names and self.rng.random() < exists:
            return self.rng.choice(names)
        return self.rng.choice(NAMES)

    def gen(self):
        if self.pending:
            return self.pending.pop(0)
        m = self.m
        unlinked = len(m.funcs) - len(m.linked())
        # Weights follow the state, so that the walk keeps reaching
        # link-ups with several functions, and keeps leaving them.
        kinds = [("mkdir", 16 if len(m.funcs) < 4 else 7),
                 ("set", 20),
                 ("link", 16 if unlinked else 4),
                 ("unlink", 9 if m.linked() else 3),
                 ("start", 12 if m.linked() and not m.started else 3),
                 ("stop", 7 if m.started else 2),
                 ("rmdir", 5), ("show", 3), ("bad", 4), ("script", 10),
                 ("host", 3), ("fill", 1)]
        kind = self.rng.choices([k for k, _ in kinds],
                                [w for _, w in kinds])[0]
        return getattr(self, f"gen_{kind}")()

    def gen_fill(self):
        """Every name made and linked: the ninth link finds no number."""
        ops = []
        for name in NAMES:
            if name not in self.m.funcs:
                ops.append(self.gen_mkdir(name, config=1))
                ops += self.pending   # its attribute writes
                self.pending = []
        ops += [self.gen_link(name, "epc") for name in NAMES]
        self.pending = ops[1:] + [self.gen_host()]
        return ops[0]

    def gen_mkdir(self, name=None, config=0.7):
        name = name or self.pick(exists=0.1)
        if name in self.m.funcs:
            return Op(f"mkdir existing {name}", f"mkdir $G/{name}", False,
                      EEXIST)
        self.m.funcs[name] = Func(name)
        # Most new functions are made something the host driver takes.
        if self.rng.random() < config:
            for attr, v in (("vendorid", 0x104c), ("deviceid", 0xb500),
                            ("msi_interrupts", self.rng.randint(1, 32))):
                self.pending.append(self.set_op(name, attr, v))
        for _ in range(self.rng.randint(0, 3)):
            self.pending.append(self.gen_set(name))
        return Op(f"mkdir {name}", f"mkdir $G/{name}", True)

    def set_op(self, name, attr, v):
        f = self.m.funcs[name]
        f.attrs[attr] = v
        val = fmt_valid(self.rng, attr, v)
        return Op(f"set {name}/{attr} = {val}",
                  f"echo '{val}' > $G/{name}/{attr}", True)

    def gen_set(self, name=None):
        name = name or self.pick(exists=0.95)
        attr = self.rng.choice(list(ATTRS))
        if name not in self.m.funcs:
            return Op(f"set {attr} of missing {name}",
                      f"echo 1 > $G/{name}/{attr}", False, NODIR)
        if self.rng.random() < 0.75:
            return self.set_op(name, attr, gen_valid(self.rng, attr))
        bad = gen_invalid(self.rng, attr)
        if bad == "LONG":
            return Op(f"set {name}/{attr} = 5000 x '1'",
                      f"L 1 > $G/{name}/{attr}", False, EINVAL)
        return Op(f"set {name}/{attr} = {bad} (invalid)",
                  f"echo {bad} > $G/{name}/{attr}", False, EINVAL)

    def attach(self, f, how, op):
        """A link that the kernel accepts: f gets the lowest free number."""
        f.link = how
        f.fn = self.m.free_fn()
        f.hdr = dict(f.attrs)
        return op

    def link_outcome(self, f, how):
        """(ok, errno) for linking f through how ("epc"/"primary")."""
        if f is None:
            return False, ENOENT
        if f.link == how:
            return False, EEXIST   # the same symlink name exists
        if f.link:
            return False, EBUSY
        if self.m.free_fn() is None:
            return False, ENOSPC
        return True, None

    def gen_link(self, name=None, how=None):
        name = name or self.pick(exists=0.9)
        f = self.m.funcs.get(name)
        r = self.rng.random() if not how else 1
        if r < 0.1 and f and f.link:
            # The same function under a second name.
            return Op(f"link {name} again as {name}x",
                      f"ln -sn $G/{name} $C/{name}x", False, EBUSY)
        how = how or ("primary" if r < 0.3 else "epc")
        cmd = (f"ln -sn $C $G/{name}/primary/ctl" if how == "primary"
               else f"ln -sn $G/{name} $C/{name}")
        ok, errno = self.link_outcome(f, how)
        desc = f"link {name} ({how} side)"
        if not ok:
            return Op(desc, cmd, False, errno)
        return self.attach(f, how, Op(desc, cmd, True))

    def detach(self, f, op):
        """f is unlinked: what the endpoint and the host must show."""
        m = self.m
        fn = f.fn
        f.link = f.fn = f.hdr = None
        m.dma.discard(f.name)   # unbind releases its channel
        if m.started:
            op.ep_lines.append(r"unlinked while the link is started")
        if fn in m.published:
            m.published.discard(fn)
            op.ep_lines.append(rf"function {fn} withdrawn\n")
            if m.started:
                op.rc_waits.append(rf"endpoint withdrew function {fn}: "
                                   "removed")
                m.host.pop(fn, None)
                op.barrier = op.rc_check = True
        if m.started and not m.linked():
            # configfs stops a controller left without functions.
            m.started = False
            op.ep_lines.append(r"stopped \(generation \d+\)")
            op.rc_waits.append(rf"link down: removed {len(m.host)} "
                               "function")
            m.host = {}
            op.barrier = op.rc_check = True
        return op

    def gen_unlink(self):
        name = self.pick(exists=0.9)
        f = self.m.funcs.get(name)
        how = (f.link if f and f.link and self.rng.random() < 0.85
               else self.rng.choice(("epc", "primary")))
        cmd = (f"rm $G/{name}/primary/ctl" if how == "primary"
               else f"rm $C/{name}")
        desc = f"unlink {name} ({how} side)"
        if not f or f.link != how:
            return Op(desc, cmd, False, ENOENT)
        return self.detach(f, Op(desc, cmd, True))

    def start(self, op):
        m = self.m
        m.started = True
        offered, m.host = m.start_view()
        m.published = offered
        op.start_mask = sum(1 << fn for fn in offered)
        op.rc_waits.append(rf"endpoint started \(generation {{gen}}\): "
                           rf"{len(offered)} function")
        op.barrier = op.rc_check = True
        return op

    def stop(self, op):
        m = self.m
        m.started = False
        op.ep_lines.append(r"stopped \(generation \d+\)")
        op.rc_waits.append(rf"link down: removed {len(m.host)} function")
        m.host = {}
        op.barrier = op.rc_check = True
        return op

    def gen_start(self, script=False):
        word = self.rng.choice(TRUE_WORDS)
        cmd = "vlink-epf start" if script else f"echo {word} > $C/start"
        desc = "vlink-epf start" if script else f"start ({word!r})"
        if self.m.started:
            return Op(desc + ", already started", cmd, True)
        if not self.m.linked():
            return Op(desc + ", nothing linked", cmd, False,
                      "refused to start" if script else ENODEV)
        # A host stops scanning at an absent function 0.
        if not any(f.fn == 0 for f in self.m.linked()):
            return Op(desc + ", no function 0", cmd, False,
                      "refused to start" if script else EINVAL)
        return self.start(Op(desc, cmd, True))

    def gen_stop(self, script=False):
        word = self.rng.choice(FALSE_WORDS)
        cmd = "vlink-epf stop" if script else f"echo {word} > $C/start"
        desc = "vlink-epf stop" if script else f"stop ({word!r})"
        if not self.m.started:
            return Op(desc + ", already stopped", cmd, True)
        return self.stop(Op(desc, cmd, True))

    def gen_rmdir(self):
        name = self.pick(exists=0.9)
        f = self.m.funcs.get(name)
        op = Op(f"rmdir {name}", f"rmdir $G/{name}", True)
        if not f:
            op.ok, op.errno = False, ENOENT
        elif f.link == "epc":
            op.ok, op.errno = False, EBUSY
        elif f.link == "primary":
            op.ok, op.errno = False, ENOTEMPTY
        else:
            del self.m.funcs[name]
        return op

    def gen_show(self):
        if not self.m.funcs:
            return self.gen_mkdir()
        name = self.pick(exists=1)
        want = dict(self.m.funcs[name].attrs)

        def check(out):
            got = dict(re.findall(r"^(\w+):(\S+)$", out, re.M))
            for attr, v in want.items():
                text = str(v) if attr in DECIMAL else f"{v:#06x}"
                if got.get(attr) != text:
                    return f"{attr} reads {got.get(attr)!r}, model {text}"
            return None
        op = Op(f"read all attributes of {name}", f"D {name}", True)
        op.check = check
        return op

    def gen_bad(self):
        name = self.pick(exists=0.9)
        f = self.m.funcs.get(name)
        r = self.rng.randrange(7)
        if r == 0:
            return Op("mkdir under a driver that does not exist",
                      f"mkdir $F/nodrv/{name}", False, ENOENT)
        if r == 1:
            return Op("mkdir in functions/", f"mkdir $F/{name}", False,
                      EPERM)
        if r == 2:
            return Op("mkdir in the controller directory",
                      f"mkdir $C/d{name}", False, EPERM)
        if r == 3:
            word = self.rng.choice(BAD_BOOLS)
            return Op(f"start = {word!r} (not a boolean)",
                      f"echo '{word}' > $C/start", False, EINVAL)
        if r == 4:
            return Op("link the controller into itself",
                      "ln -sn $C $C/ctl", False, EINVAL)
        if r == 5 and f:
            return Op(f"rmdir {name}/primary", f"rmdir $G/{name}/primary",
                      False, EPERM)
        # A secondary link: pci-epf-test has a single interface.
        cmd = f"ln -sn $C $G/{name}/secondary/ctl"
        desc = f"link {name} through secondary/"
        if not f:
            return Op(desc, cmd, False, ENOENT)
        if self.m.free_fn() is None:
            return Op(desc, cmd, False, ENOSPC)
        op = Op(desc, cmd, False, EBUSY if f.link else EINVAL)
        op.ep_lines.append(r"bind to \S+ failed: " +
                           ("-16" if f.link else "-22"))
        return op

    def gen_script(self):
        r = self.rng.randrange(8)
        if r == 0:
            return self.script_create()
        if r == 1:
            name = self.pick(exists=0.9)
            f = self.m.funcs.get(name)
            cmd = f"vlink-epf bind {name}"
            if not f:
                return Op(cmd, cmd, False, f"no function '{name}'")
            if f.link == "epc":
                return Op(cmd, cmd, False, "already")
            ok, _ = self.link_outcome(f, "epc")
            if not ok:
                return Op(cmd, cmd, False, "the kernel refused to bind")
            return self.attach(f, "epc", Op(cmd, cmd, True))
        if r == 2:
            name = self.pick(exists=0.9)
            f = self.m.funcs.get(name)
            cmd = f"vlink-epf unbind {name}"
            if not f or f.link != "epc":
                return Op(cmd, cmd, False, "is not bound to")
            return self.detach(f, Op(cmd, cmd, True))
        if r == 3:
            name = self.pick(exists=0.9)
            f = self.m.funcs.get(name)
            cmd = f"vlink-epf destroy {name}"
            if not f:
                return Op(cmd, cmd, False, f"no function '{name}'")
            if f.link:
                return Op(cmd, cmd, False, "cannot destroy")
            del self.m.funcs[name]
            return Op(cmd, cmd, True)
        if r == 4:
            return self.gen_start(script=True)
        if r == 5:
            return self.gen_stop(script=True)
        return self.script_list()

    def script_create(self):
        name = self.pick(exists=0.15)
        opts = {"-v": gen_valid(self.rng, "vendorid"),
                "-D": gen_valid(self.rng, "deviceid"),
                "-m": self.rng.randint(1, 32),
                "-x": self.rng.choice((0, 0, 1, 64, 2048)),
                "-p": self.rng.randint(0, 4)}
        base = gen_valid(self.rng, "baseclass_code")
        cls = base << 16 | self.rng.randint(0, 0xffff)
        bad = None
        if self.rng.random() < 0.3:
            bad, val = self.rng.choice((("-m", 33), ("-m", 0), ("-x", 2049),
                                        ("-p", 5), ("-v", 0x10000),
                                        ("-D", 0x12345)))
            opts[bad] = val
        words = " ".join(f"{o} {v:#x}" if o in ("-v", "-D") else f"{o} {v}"
                         for o, v in opts.items())
        cmd = f"vlink-epf create {name} {words} -c {cls:#x}"
        if name in self.m.funcs:
            return Op(cmd, cmd, False, "exists already")
        if bad:
            # The script removes the half-made function again.
            return Op(cmd, cmd, False, "refused by the kernel")
        f = self.m.funcs[name] = Func(name)
        f.attrs.update(vendorid=opts["-v"], deviceid=opts["-D"],
                       baseclass_code=base, subclass_code=cls >> 8 & 0xff,
                       progif_code=cls & 0xff, interrupt_pin=opts["-p"],
                       msi_interrupts=opts["-m"])
        if opts["-x"]:
            f.attrs["msix_interrupts"] = opts["-x"]
        return Op(cmd, cmd, True)

    def script_list(self):
        m = self.m
        want = [f"controller {{epc}} start={int(m.started)}:" +
                "".join(f" {n}" for n in sorted(m.funcs)
                        if m.funcs[n].link == "epc")]
        want += [f"function pci_epf_test/{n} "
                 f"{m.funcs[n].attrs['vendorid']:#06x}:"
                 f"{m.funcs[n].attrs['deviceid']:#06x}"
                 for n in sorted(m.funcs)]

        def check(out):
            got = [ln.strip() for ln in out.splitlines()
                   if ln.startswith(("controller ", "function "))]
            exp = [w.replace("{epc}", self.epc) for w in want]
            return None if got == exp else f"list {got}, model {exp}"
        op = Op("vlink-epf list", "vlink-epf list", True)
        op.check = check
        return op

    def gen_host(self):
        op = Op("look at the host", "true", True, barrier=True)
        op.rc_check = True
        return op

    # ---- execution ----

    def log(self, text):
        self.trace.write(text + "\n")

    def run_batch(self, ops):
        ep, rc = self.ep, self.rc
        ep_mark, rc_mark = ep.mark(), rc.mark()
        cmd = ";".join(f"{op.cmd};k" for op in ops)
        status, out = ep.run(cmd, self.timeout)
        marks = list(re.finditer(r"@o(\d+)@", out))
        if len(marks) != len(ops):
            raise Mismatch("ep", f"steps {ops[0].step}..{ops[-1].step}: "
                           f"{len(marks)} statuses for {len(ops)} "
                           f"operations in {out[-600:]!r}")
        pos = 0
        for op, mk in zip(ops, marks):
            seg, pos = out[pos:mk.start()], mk.end()
            got = int(mk.group(1))
            self.log(f"{op.step:5d} {op.desc}: exit {got}"
                     + (f" [{seg.strip()[-160:]}]" if seg.strip() else ""))
            why = None
            if op.ok and got:
                why = f"exited {got}, the model expects success"
            elif not op.ok and not got:
                why = f"succeeded, the model expects {op.errno!r}"
            elif not op.ok and not re.search(op.errno, seg):
                why = f"exited {got} without {op.errno!r}"
            elif op.check:
                why = op.check(seg)
            key = "ok" if op.ok else op.errno.split("|")[0]
            self.outcomes[key] = self.outcomes.get(key, 0) + 1
            if why:
                raise Mismatch("ep", f"step {op.step} ({op.desc}: "
                               f"{op.cmd}): {why}; output {seg.strip()!r}")
        self.after(ops, ep_mark, rc_mark)

    def after(self, ops, ep_mark, rc_mark):
        """The kernel lines each operation must have caused, in order."""
        ep, rc = self.ep, self.rc
        ep_pos, rc_pos = ep_mark, rc_mark
        want_withdrawn = 0
        for op in ops:
            for rx in op.ep_lines:
                want_withdrawn += "withdrawn" in rx
                m = ep.expect(rx, self.timeout, f"step {op.step} "
                              f"({op.desc}): EP console /{rx}/",
                              since=ep_pos)
                ep_pos = m.end()
            waits = list(op.rc_waits)
            if op.start_mask is not None:
                m = ep.expect(r"started \(generation (\d+), functions "
                              r"(0x[0-9a-f]+)\)", self.timeout,
                              f"step {op.step}: the EP to start",
                              since=ep_mark)
                if int(m.group(2), 16) != op.start_mask:
                    raise Mismatch("ep", f"step {op.step} ({op.desc}): EP "
                                   f"offers functions {m.group(2)}, model "
                                   f"{op.start_mask:#x}")
                waits = [w.replace("{gen}", m.group(1)) for w in waits]
                ep.expect(r"pci_epc \S+: link up", self.timeout,
                          f"step {op.step}: the EP to see the link up",
                          since=m.end())
            for rx in waits:
                m = rc.expect(r"vlink-rc \S+: " + rx, self.timeout,
                              f"step {op.step} ({op.desc}): RC console "
                              f"/{rx}/", since=rc_pos)
                rc_pos = m.end()
        text = ep.output(ep_mark)
        got = len(re.findall(r"function \d+ withdrawn", text))
        if got != want_withdrawn or "did not confirm" in text:
            raise Mismatch("ep", f"steps {ops[0].step}..{ops[-1].step}: "
                           f"{got} withdrawals logged, model "
                           f"{want_withdrawn}: {text[-800:]!r}")
        if ops[-1].rc_check:
            self.host_check(ops[-1])

    def host_check(self, op):
        """The host's bus against the model; pcitest on bound functions."""
        m = self.m
        if not m.started:
            self.idle_checks += 1
            _, out = self.rc.run("vlink-pcishow", self.timeout)
            if "no PCI function in domain 0001" not in out:
                raise Mismatch("rc", f"after step {op.step} ({op.desc}): "
                               f"link down but the host shows {out!r}")
            return
        bound = sorted(fn for fn, v in m.host.items()
                       if v["driver"] != "-")
        owner = {f.fn: f.name for f in m.linked()}
        tests = {}
        cmd = [f"P {len(bound)}", "vlink-pcishow | grep ^0001"]
        cmd += [f"H {fn}" for fn in sorted(m.host)]
        for fn in bound:
            flag = self.rng.choice(("-r", "-w", "-c"))
            if self.rng.random() < 0.3:
                flag = "-d " + flag
            size = self.rng.choice(SIZES)
            ok = True
            if "-d" in flag and owner[fn] not in m.dma:
                ok = len(m.dma) < DMA_CHANNELS
                if ok:
                    m.dma.add(owner[fn])
            tests[fn] = (flag, size, ok)
            cmd.append(f"T {fn} '{flag}' {size}")
        _, out = self.rc.run("; ".join(cmd), self.timeout * 4)
        where = f"after step {op.step} ({op.desc})"
        self.linkups += 1
        self.fn_tests += len(bound)

        got = {int(fn): (int(v, 16), int(d, 16), int(c, 16), drv)
               for fn, v, d, c, drv in re.findall(
                   r"^0001:00:00\.(\d) ([0-9a-f]{4}):([0-9a-f]{4}) class "
                   r"0x([0-9a-f]{6}) driver (\S+)", out, re.M)}
        want = {fn: (v["vendorid"], v["deviceid"], v["cls"], v["driver"])
                for fn, v in m.host.items()}
        if got != want:
            raise Mismatch("rc", f"{where}: host shows "
                           f"{fmt_funcs(got)}, model {fmt_funcs(want)}")
        for fn, v in m.host.items():
            hdr = re.search(rf"@h{fn}\n((?:(?: [0-9a-f]{{2}}){{16}}\n){{4}})",
                            out)
            if not hdr:
                raise Mismatch("rc", f"{where}: no config header of "
                               f"function {fn} in {out[-500:]!r}")
            b = bytes.fromhex(hdr.group(1).replace("\n", ""))
            multi = fn == 0 and bool(m.published - {0})
            seen = dict(revid=b[8], subsys_vendor_id=b[0x2c] | b[0x2d] << 8,
                        subsys_id=b[0x2e] | b[0x2f] << 8,
                        interrupt_pin=b[0x3d], multi=bool(b[0x0e] & 0x80))
            exp = dict(revid=v["revid"],
                       subsys_vendor_id=v["subsys_vendor_id"],
                       subsys_id=v["subsys_id"],
                       interrupt_pin=v["interrupt_pin"], multi=multi)
            if seen != exp:
                raise Mismatch("rc", f"{where}: function {fn} header "
                               f"{seen}, model {exp}")
        for fn, (flag, size, ok) in tests.items():
            part = re.search(rf"@t{fn} (\S+)\n(.*?)(?=@t\d|\Z)", out, re.S)
            op_name = {"-r": "READ", "-w": "WRITE",
                       "-c": "COPY"}[flag.split()[-1]]
            result = "OKAY" if ok else "NOT OKAY"
            if not part or not re.search(r"BAR0:\s+OKAY", part.group(2)) \
               or not re.search(rf"{op_name} \(\s*{size} bytes\):\s+"
                                rf"{result}\s*$", part.group(2), re.M):
                raise Mismatch("rc", f"{where}: function {fn}: pcitest -b 0"
                               f" OKAY and {flag} -s {size} {result} "
                               f"expected (DMA channel holders "
                               f"{sorted(m.dma)}): "
                               f"{(part.group(0) if part else out)[-400:]!r}")

    def walk(self):
        """self.steps operations (and what the last one queued); raises
        Mismatch at the first one that differs from the model."""
        # Operations queued by an earlier one are already in the model:
        # they run even past the step count.
        while self.step < self.steps or self.pending:
            batch, length = [], 0
            while (self.step < self.steps or self.pending) and \
                    len(batch) < 10 and length < 500:
                op = self.gen()
                self.step += 1
                op.step = self.step
                batch.append(op)
                length += len(op.cmd) + 3
                if op.barrier:
                    break
            self.run_batch(batch)

    def teardown(self):
        """Stop, unlink and remove everything the walk left."""
        m = self.m
        ops = []
        if m.started:
            ops.append(self.stop(Op("teardown: stop", "echo 0 > $C/start",
                                    True)))
        for f in list(m.funcs.values()):
            if f.link:
                cmd = (f"rm $G/{f.name}/primary/ctl" if f.link == "primary"
                       else f"rm $C/{f.name}")
                ops.append(self.detach(f, Op(f"teardown: unlink {f.name}",
                                             cmd, True)))
        for name in list(m.funcs):
            del m.funcs[name]
            ops.append(Op(f"teardown: rmdir {name}", f"rmdir $G/{name}",
                          True))
        ops.append(self.gen_host())
        for op in ops:
            op.step = self.step
        try:
            for i in range(0, len(ops), 8):
                self.run_batch(ops[i:i + 8])
        except Mismatch as e:
            raise AssertionError(str(e)) from e
        out = shell_ok(self.ep, "ls $G; cat $C/start")
        assert out.split() == ["0"], f"left behind: {out!r}"


def fmt_funcs(d):
    return "{" + ", ".join(f"{fn}: {v:04x}:{dv:04x} class {c:06x} {drv}"
                           for fn, (v, dv, c, drv) in sorted(d.items())) + \
        "}" if d else "nothing"


EP_HELPERS = (
    "k() {{ echo \"@o$?@\"; }}; "
    "L() {{ head -c 5000 /dev/zero | tr '\\0' \"$1\"; }}; "
    "D() {{ (cd $G/$1 && grep . {attrs}); }}")
RC_HELPERS = (
    "P() { i=0; while [ $(ls -d /sys/bus/pci/devices/0001:00:00.*/misc "
    "2>/dev/null | wc -l) -lt $1 ] && [ $i -lt 100 ]; do sleep 0.1; "
    "i=$((i+1)); done; }; "
    "H() { echo \"@h$1\"; od -An -tx1 -N64 "
    "/sys/bus/pci/devices/0001:00:00.$1/config; }; "
    "T() { n=$(ls /sys/bus/pci/devices/0001:00:00.$1/misc 2>/dev/null); "
    "echo \"@t$1 ${n:-none}\"; [ -n \"$n\" ] && pcitest -D /dev/$n -b 0 && "
    "pcitest -D /dev/$n $2 -s $3; }")


def kmemleak_baseline(guest):
    """On a kmemleak kernel: what boot left, then forget it (clear), so
    that the scan at the end reports only what the run leaked."""
    status, _ = guest.run(f"[ -e {KMEMLEAK} ]")
    if status:
        return None
    out = shell_ok(guest, f"echo scan > {KMEMLEAK}; sleep 6; "
                   f"echo scan > {KMEMLEAK}; cat {KMEMLEAK}; "
                   f"echo clear > {KMEMLEAK}", 120)
    return len(re.findall(r"unreferenced object", out))


# make test walks the same way every time; make soak draws a seed.
DEFAULT_SEED = 2
# The debug kernel is about twenty times slower per step, most of it in
# the link-ups of the walk's second half, with more functions to probe:
# 160 steps walk 82 s there (12 link-ups, 60 functions tested), 300
# walked 220 s.  make soak KVARIANT=debug walks as far as STEPS says.
DEFAULT_STEPS = {"vlink": 1000, "debug": 160}


def run(results, build):
    seed = os.environ.get("VLINK_SOAK_SEED", str(DEFAULT_SEED))
    seed = random.SystemRandom().randrange(1, 1 << 31) \
        if seed == "random" else int(seed)
    variant = os.environ.get("VLINK_KVARIANT", "vlink")
    steps = int(os.environ.get("VLINK_SOAK_STEPS",
                               DEFAULT_STEPS.get(variant,
                                                 DEFAULT_STEPS["debug"])))
    print(f"soak: seed {seed}, {steps} steps (replay: VLINK_SOAK_SEED={seed} "
          f"VLINK_SOAK_STEPS={steps})", flush=True)
    with Rig(build, name="soak") as rig:
        try:
            scenario(results, rig, seed, steps)
        except Abort:
            pass
        check_consoles(results, rig, f"soak (seed {seed})")


def scenario(r, rig, seed, steps):
    debug = rig.kvariant != "vlink"
    timeout = 120 if debug else 30
    tag = f"soak (seed {seed})"
    rig.start_server()
    ep = rig.start_guest("ep")
    rc = rig.start_guest("rc")
    r.step(f"{tag}: both guests boot", lambda: (ep.wait_shell(240),
                                                rc.wait_shell(240)))
    epc = epc_name(ep)
    shell_ok(ep, f"C={CFS}/controllers/{epc}; F={CFS}/functions; "
             f"G={CFS}/functions/pci_epf_test")
    shell_ok(ep, EP_HELPERS.format(attrs=" ".join(ATTRS)))
    shell_ok(rc, RC_HELPERS)
    baseline = {g.role: kmemleak_baseline(g) for g in (ep, rc)}

    trace_path = os.path.join(rig.logdir, f"{rig.name}-seed{seed}.trace")
    t0 = time.monotonic()
    with open(trace_path, "w") as trace:
        soak = Soak(random.Random(seed), steps, ep, rc, trace, timeout)
        soak.epc = epc
        failure = None
        try:
            soak.walk()
        except (Mismatch, RigError) as e:
            failure = e
            trace.write(f"STOPPED: {e}\nmodel: started {soak.m.started}, "
                        f"published {sorted(soak.m.published)}, DMA "
                        f"{sorted(soak.m.dma)}\n")
            for f in soak.m.funcs.values():
                trace.write(f"  {f.name}: link {f.link} fn {f.fn} attrs "
                            f"{f.attrs} linked-with {f.hdr}\n")
        took = time.monotonic() - t0
        replay = (f"replay: VLINK_SOAK_SEED={seed} "
                  f"VLINK_SOAK_STEPS={soak.step}; trace {trace_path}")
        print(f"soak: {soak.step} steps in {took:.0f} s, {soak.linkups} "
              f"link-ups checked, {soak.fn_tests} functions tested, "
              f"{soak.idle_checks} checks of a stopped link; outcomes: "
              + ", ".join(f"{k} {v}" for k, v in
                          sorted(soak.outcomes.items(),
                                 key=lambda kv: -kv[1])), flush=True)
        side = getattr(failure, "side", "rig")
        r.record(f"{tag}: {steps} steps as the model expects",
                 failure is None,
                 f"{failure}; {replay}" if side != "rc" else
                 f"stopped at step {soak.step}: the host disagreed; {replay}")
        if soak.linkups or side == "rc":
            r.record(f"{tag}: RC agreed at every link-up ({soak.linkups} "
                     f"checks, {soak.fn_tests} functions tested with "
                     "pcitest)", side != "rc" and soak.linkups > 0,
                     f"{failure}; {replay}" if side == "rc" else
                     "no link-up was checked")
        if failure is None:
            r.step(f"{tag}: teardown leaves nothing on either side",
                   soak.teardown)
    checked = [g for g in (ep, rc) if baseline[g.role] is not None]
    for g in checked:
        print(f"soak: kmemleak on {g.role} after boot: "
              f"{baseline[g.role]} object(s), cleared", flush=True)
    r.no_leaks([(f"{tag}: {g.role}: no kmemleak leak", g) for g in checked])
