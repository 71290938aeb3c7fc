# SPDX-License-Identifier: GPL-2.0
"""The vlink rig: QEMU guests joined by links, a link server for each.

Used by `make run` (qemu/vlink-run.py) and by the tests.  Every process the
rig starts is killed when the rig stops, when the Python process exits, and
(through PR_SET_PDEATHSIG) even when the Python process itself is killed.

Each guest's console is a unix socket QEMU serves and waits on, so not a
byte of it is lost; a reader thread copies it to build/logs/<name>.log and
keeps it in memory for expect().
"""

import ctypes
import glob
import hashlib
import os
import re
import signal
import socket
import subprocess
import threading
import time

PR_SET_PDEATHSIG = 1
RAM_MB = 256
ROLES = ("ep", "rc")
# What the rig builds: each guest's role and device tree
# (build/<arch>/dtb/<tree>.dtb), and the links, each an (endpoint guest,
# root-complex guest) pair.  A guest's links take its PCI slots in the
# order given here, as its tree describes them: the k-th link device in
# slot 1 + 2k, the window onto that link's peer's RAM in slot 2 + 2k.
# "far": a guest that also has a window onto another guest's RAM, in the
# slot after its links' (the trees' vlink,far-ram): ep-2rc-far's root
# complexes show a bridged BAR's far parts through it (pci-epf-ntb).
TOPOLOGIES = {
    "pair": {"guests": {"ep": ("ep", "ep"), "rc": ("rc", "rc")},
             "links": (("ep", "rc"),)},
    "rc-2ep": {"guests": {"ep0": ("ep", "ep"), "ep1": ("ep", "ep"),
                          "rc": ("rc", "rc-2ep")},
               "links": (("ep0", "rc"), ("ep1", "rc"))},
    "ep-2rc": {"guests": {"ep": ("ep", "ep-2rc"), "rc0": ("rc", "rc"),
                          "rc1": ("rc", "rc")},
               "links": (("ep", "rc0"), ("ep", "rc1"))},
    "ep-2rc-far": {"guests": {"ep": ("ep", "ep-2rc"), "rc0": ("rc", "rc.far"),
                              "rc1": ("rc", "rc.far")},
                   "links": (("ep", "rc0"), ("ep", "rc1")),
                   "far": {"rc0": "rc1", "rc1": "rc0"}},
}
# The guests' architectures: QEMU, CPU and the image kbuild makes.  The
# machine options must match scripts/mkdtbs.sh.  Each architecture's guest
# files are in build/<arch>/.
ARCHES = {
    "arm": {"qemu": "qemu-system-arm", "cpu": "cortex-a15",
            "image": "zImage", "uboot": "/usr/lib/u-boot/qemu_arm"},
    "arm64": {"qemu": "qemu-system-aarch64", "cpu": "cortex-a57",
              "image": "Image", "uboot": "/usr/lib/u-boot/qemu_arm64"},
}
# How a guest boots: QEMU loads the kernel, initramfs and tree (-kernel),
# or Debian's U-Boot boots the FIT on the guest's boot disk
# (scripts/mkfit.sh), with the normal kernel and the command line the
# disk's boot.scr gives.
BOOTS = ("kernel", "uboot")
# ACPI off: started with firmware (U-Boot), arm64's virt board would trade
# its PL061 GPIO for an ACPI event device, and the trees describe one board
# for both boot paths.
MACHINE = "virt,highmem=off,acpi=off"
# How much of the console a command that timed out shows.
CONSOLE_TAIL = 25
# Where the guests' RAM files go: shared memory, not a disk filesystem.
# The first touch of a page of a sparse file on ext4 allocates its block
# (tens of microseconds) and the host then writes it back: that halved the
# link's CPU transfer rates in make bench (the EP touching the host's
# buffers) and wrote 512 MiB per rig to disk.
# Each is named after the rig's process and run directory (rigs of two
# build trees may run at once); a rig removes its own when it stops, and
# those of rigs killed before they could are swept by the next one.
RAM_DIR = os.environ.get("VLINK_RAM_DIR", "/dev/shm")


def ram_path(rundir, pid, guest):
    """The RAM file of a guest of the rig of process pid on rundir."""
    key = hashlib.sha1(rundir.encode()).hexdigest()[:12]
    return os.path.join(RAM_DIR, f"vlink-{pid}-{key}-{guest}-ram")


def ram_files(rundir):
    """The RAM files there are of any rig on rundir."""
    return glob.glob(ram_path(rundir, "*", "*"))


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def sweep_ram_files():
    """Remove the RAM files whose rig's process is gone."""
    for path in glob.glob(os.path.join(RAM_DIR, "vlink-*-*-*-ram")):
        pid = os.path.basename(path).split("-")[1]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                os.unlink(path)
            except OSError:
                pass


def pcitest_sh_on(n, tests="pcitest.sh"):
    """A shell command that runs the stock pcitest.sh (or another command
    made of pcitest calls) on the root complex's n-th host device,
    /dev/pci-endpoint-test.n.

    pcitest.sh runs `pcitest` from PATH, which opens the first device: a
    wrapper first in PATH gives the stock tool its own -D option.
    """
    wrapper = (rf'#!/bin/sh\nexec /usr/bin/pcitest '
               rf'-D /dev/pci-endpoint-test.{n} "$@"\n')
    return (f"mkdir -p /tmp/dev{n} && printf '{wrapper}' > /tmp/dev{n}/pcitest"
            f" && chmod +x /tmp/dev{n}/pcitest && "
            f"(PATH=/tmp/dev{n}:$PATH; {tests})")


class RigError(Exception):
    """A wait that timed out or a process that misbehaved."""


# How each process the rig started ended: (name, None) when as the rig
# ended it, else (name, how): a QEMU that aborted or crashed, or would not
# stop.  The suite runner judges what each stage left here.
EXITS = []


def _end(proc, sig, name, timeout=10):
    """Send proc sig unless it already ended, wait for it, and note in
    EXITS whether it exited 0 or died of that signal."""
    if proc.poll() is None:
        proc.send_signal(sig)
    else:
        sig = 0
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        EXITS.append((name, f"still running {timeout} s after "
                      f"{signal.Signals(sig).name}"))
        return
    rc = proc.returncode
    if rc in (0, -sig):
        EXITS.append((name, None))
    elif rc < 0:
        EXITS.append((name, f"died of {signal.Signals(-rc).name}"))
    else:
        EXITS.append((name, f"exited with status {rc}"))


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def wait_until(predicate, timeout, what, interval=0.05):
    """Poll predicate() until true; RigError naming what after timeout s."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise RigError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def shell_ok(guest, cmd, timeout=60):
    """Run cmd on the guest's console; AssertionError unless it exits 0.
    Returns its output."""
    status, out = guest.run(cmd, timeout)
    assert status == 0, f"'{cmd}' exited {status}: {out.strip()[-300:]}"
    return out


def arches_suffix(arches):
    """What names a run of ep/rc architectures other than the default."""
    ep, rc = arches["ep"], arches["rc"]
    if ep == rc == "arm":
        return ""
    return f"-{ep}" if ep == rc else f"-{ep}-{rc}"


# The kernel writes each message to the serial console whole, but it may
# come between two pieces of a line the shell writes: the rig's markers
# are found with whole lines of messages inside them.
_INSERTED = r"(?:[^\n]*\n)*?"


def _marker(text):
    """A pattern for text the shell prints at the start of a line."""
    return "^" + _INSERTED.join(re.escape(c) for c in text)


# An exit status (at most three digits), whole once the "@" after it came.
_STATUS = r"(\d)" + _INSERTED + (r"(\d)?" + _INSERTED) * 2 + "@"


class Guest:
    """One QEMU guest, its console and its log."""

    def __init__(self, rig, guest, name, interactive=False, echo=False):
        self.rig = rig
        self.guest = guest
        self.role, self.tree = rig.topology["guests"][guest]
        self.tree = rig.trees.get(guest, self.tree)
        # (link index, its peer guest) for each of our links, in slot order.
        self.links = [(i, rc if guest == ep else ep)
                      for i, (ep, rc) in enumerate(rig.topology["links"])
                      if guest in (ep, rc)]
        self.arch = rig.arches[self.role]
        self.files = os.path.join(rig.build, self.arch)
        self.name = name
        self.interactive = interactive
        self.echo = echo
        self.buf = ""
        self.cond = threading.Condition()
        self.closed = False
        self.seq = 0
        self.sock = None
        self.log_path = os.path.join(rig.logdir, f"{name}.log")
        self.con_path = os.path.join(rig.rundir, f"{name}-console.sock")
        self.proc = None
        self.reaped = False
        self.reader = None

    def qemu_args(self):
        r = self.rig
        mem = f"{r.ram_mb}M"
        if self.interactive:
            console = ["-chardev", f"stdio,id=con,mux=on,signal=on,"
                       f"logfile={self.log_path}",
                       "-serial", "chardev:con", "-mon", "chardev=con"]
        else:
            console = ["-chardev", f"socket,id=con,path={self.con_path},"
                       "server=on,wait=on",
                       "-serial", "chardev:con", "-monitor", "none"]
        arch = ARCHES[self.arch]
        peers, links = [], []
        for k, (i, peer) in enumerate(self.links):
            peers += ["-object", f"memory-backend-file,id=peer{k},size={mem},"
                                 f"mem-path={r.ram_file(peer)},share=on"]
            links += ["-chardev", f"socket,id=link{k},"
                                  f"path={r.link_socket(i, self.role)}",
                      "-device", f"ivshmem-doorbell,chardev=link{k},"
                                 f"vectors=5,addr={1 + 2 * k}",
                      "-device", f"ivshmem-plain,memdev=peer{k},"
                                 f"addr={2 + 2 * k}"]
        far = r.topology.get("far", {}).get(self.guest)
        if far:
            peers += ["-object", f"memory-backend-file,id=far,size={mem},"
                                 f"mem-path={r.ram_file(far)},share=on"]
            links += ["-device", "ivshmem-plain,memdev=far,"
                                 f"addr={1 + 2 * len(self.links)}"]
        return [
            arch["qemu"],
            "-M", f"{MACHINE},memory-backend=ram",
            "-cpu", arch["cpu"], "-smp", "1", "-m", mem,
            "-object", f"memory-backend-file,id=ram,size={mem},"
                       f"mem-path={r.ram_file(self.guest)},share=on",
        ] + peers + self.boot_args(arch) + links + [
            "-nic", "none", "-display", "none", "-no-reboot",
        ] + console

    def boot_args(self, arch):
        r = self.rig
        if r.boot == "uboot":
            disk = os.path.join(self.files, "uboot", f"boot-{self.role}.img")
            return ["-bios", os.path.join(arch["uboot"], "u-boot.bin"),
                    "-drive", f"if=none,id=boot,format=raw,readonly=on,"
                              f"file={disk}",
                    "-device", "virtio-blk-device,drive=boot"]
        image = f"{arch['image']}-{r.kvariant}"
        # A variant with modules has its own (make modules KVARIANT=...).
        initrd = os.path.join(self.files, f"initramfs-{r.kvariant}.cpio.gz")
        if not os.path.exists(initrd):
            initrd = os.path.join(self.files, "initramfs.cpio.gz")
        return [
            "-kernel", os.path.join(self.files, image),
            "-initrd", initrd,
            "-dtb", os.path.join(self.files, "dtb", f"{self.tree}.dtb"),
            "-append", f"console=ttyAMA0 panic=-1 oops=panic "
                       f"vlink.role={self.role} {r.cmdline}".strip(),
        ]

    def start(self):
        if os.path.exists(self.con_path):
            os.unlink(self.con_path)
        qlog = open(os.path.join(self.rig.logdir, f"{self.name}-qemu.log"),
                    "wb")
        if self.interactive:
            self.proc = subprocess.Popen(self.qemu_args(),
                                         preexec_fn=_die_with_parent)
            return self
        self.proc = subprocess.Popen(self.qemu_args(), stdin=subprocess.DEVNULL,
                                     stdout=qlog, stderr=qlog,
                                     preexec_fn=_die_with_parent)
        qlog.close()
        self.sock = wait_until(self._console, 30,
                               f"{self.name}: QEMU to listen on its "
                               "console socket")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        return self

    def _console(self):
        """The console socket once QEMU listens on it, else None.  QEMU
        creates the file before it listens: a connect in between is
        refused."""
        if self.proc.poll() is not None:
            raise RigError(f"{self.name}: QEMU exited with status "
                           f"{self.proc.returncode}, see "
                           f"{self.name}-qemu.log")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self.con_path)
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            return None
        return sock

    def _read(self):
        line = ""
        with open(self.log_path, "wb") as log:
            while True:
                try:
                    data = self.sock.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    break
                log.write(data)
                log.flush()
                text = data.decode("utf-8", "replace").replace("\r", "")
                with self.cond:
                    self.buf += text
                    self.cond.notify_all()
                if self.echo:
                    line += text
                    *done, line = line.split("\n")
                    try:
                        for d in done:
                            if "@@" not in d:  # the rig's own markers
                                print(f"[{self.name}] {d}", flush=True)
                    except OSError:
                        # Whoever read our stdout is gone: the console
                        # still goes to its log and to the waiters.
                        self.echo = False
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def mark(self):
        """Position in the console output; expect() can search from it."""
        with self.cond:
            return len(self.buf)

    def expect(self, pattern, timeout, what, since=0):
        """Wait for a regex in the console output after position since.

        Returns the match; RigError (saying what was awaited) on timeout or
        when the console closes first.
        """
        rx = re.compile(pattern, re.M)
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                m = rx.search(self.buf, since)
                if m:
                    return m
                left = end - time.monotonic()
                if self.closed:
                    raise RigError(f"{self.name}: console closed while "
                                   f"waiting for {what}")
                if left <= 0:
                    raise RigError(f"{self.name}: timed out after "
                                   f"{timeout:g} s waiting for {what}")
                self.cond.wait(left)

    def output(self, since=0):
        with self.cond:
            return self.buf[since:]

    def tail(self, since, lines):
        """The last lines of the console output after since, indented."""
        out = self.output(since).rstrip("\n").split("\n")[-lines:]
        return "\n".join("    | " + x for x in out)

    def send(self, text):
        try:
            self.sock.sendall(text.encode())
        except OSError as e:
            # A guest that died (a kernel panic ends QEMU) is a failure of
            # the test that talks to it, not of the harness.
            raise RigError(f"{self.name}: console gone ({e.strerror}): "
                           "QEMU has exited") from None

    def run(self, cmd, timeout=60):
        """Run a shell command on the console; return (status, output).

        The output is what the command printed between two markers (kernel
        messages that came meanwhile included).  Both markers are built by
        the shell, so the echo of the typed line never matches them.
        """
        return self.run_wait(self.run_start(cmd), timeout)

    def run_start(self, cmd):
        """Type cmd on the console and return at once, so that commands on
        several guests run side by side; run_wait() collects each."""
        self.seq += 1
        tag = f"@@{self.name}-{self.seq}@"
        start = self.mark()
        # The end marker starts a line of its own, after a newline the
        # output loses again below.
        self.send(f'echo "{tag}""@ <"; {cmd}; '
                  f'printf "\\n%s@ >%d@\\n" "{tag}" $?\n')
        return cmd, tag, start

    def run_wait(self, started, timeout=60):
        """run()'s result for what run_start() returned: timeout counts
        from this call."""
        cmd, tag, start = started
        try:
            begin = self.expect(_marker(tag + "@ <") + _INSERTED + "$",
                                timeout, f"the command '{cmd}' to start",
                                since=start)
            end = self.expect(_marker(tag + "@ >") + _STATUS, timeout,
                              f"the command '{cmd}' to finish",
                              since=begin.end())
        except RigError as e:
            raise RigError(f"{e}; the console's last lines:\n" +
                           self.tail(start, CONSOLE_TAIL)) from None
        # From after the begin marker's newline to before the one printf
        # put ahead of the end marker.
        with self.cond:
            out = self.buf[begin.end() + 1:end.start() - 1]
        return int("".join(filter(None, end.groups()))), out

    def wait_shell(self, timeout=120):
        """Wait for init's shell, then make sure it answers."""
        self.expect(r"vlink-init: \w+ guest userspace up", timeout,
                    "the guest to reach userspace")
        status, _ = self.run("true", timeout=30)
        if status:
            raise RigError(f"{self.name}: shell does not work")

    def _end(self, sig):
        """End QEMU with sig and judge how it ended, once."""
        if self.proc and not self.reaped:
            self.reaped = True
            _end(self.proc, sig,
                 f"{self.name}: QEMU (see {self.name}-qemu.log)")

    def kill(self):
        """Kill QEMU at once, as a crashed host process would die."""
        self._end(signal.SIGKILL)
        if self.reader:
            self.reader.join(timeout=5)

    def stop(self):
        self._end(signal.SIGTERM)
        if self.sock:
            self.sock.close()
        if self.reader:
            self.reader.join(timeout=5)


class Rig:
    """The server and the guests of one test or run."""

    def __init__(self, build, name="vlink", ram_mb=RAM_MB, kvariant=None,
                 cmdline="", control=False, boot=None, server_dma=True,
                 topology="pair", trees=None):
        # The suite runs on each kernel variant it is told to (debug, ...)
        # and each pairing of architectures (VLINK_EP_ARCH, VLINK_RC_ARCH).
        kvariant = kvariant or os.environ.get("VLINK_KVARIANT", "vlink")
        self.boot = boot or os.environ.get("VLINK_BOOT", "kernel")
        if self.boot not in BOOTS:
            raise RigError(f"no boot path {self.boot}: {', '.join(BOOTS)}")
        if self.boot == "uboot" and (kvariant != "vlink" or cmdline or
                                     topology != "pair" or trees):
            raise RigError("the U-Boot boot disks hold the normal kernel, "
                           "the pair's trees and their own command line")
        if topology not in TOPOLOGIES:
            raise RigError(f"no topology {topology}: "
                           f"{', '.join(TOPOLOGIES)}")
        self.topology = TOPOLOGIES[topology]
        # A guest booted with another tree than its topology's, e.g.
        # {"ep": "ep.bar64"} (scripts/mkdtbs.sh).
        self.trees = trees or {}
        self.arches = {role: os.environ.get(f"VLINK_{role.upper()}_ARCH",
                                            "arm") for role in ROLES}
        for role, arch in self.arches.items():
            if arch not in ARCHES:
                raise RigError(f"{role}: no guests for architecture {arch}")
        self.build = os.path.abspath(build)
        self.name = name + arches_suffix(self.arches)
        if self.boot != "kernel":
            self.name += f"-{self.boot}"
        if kvariant != "vlink":
            self.name += f"-{kvariant}"
        self.kvariant = kvariant
        # The debug kernel, alone or merged with another variant's config.
        self.debug = "debug" in kvariant.split("+")
        self.ram_mb = ram_mb
        self.cmdline = cmdline
        # A control socket puts the server in the doorbells' path (fault
        # injection): only for the suites that ask for it.
        self.control = control
        # The server runs the endpoint's DMA engine unless told not to:
        # then the endpoint's channels copy on its own CPU.
        self.server_dma = server_dma
        self.logdir = os.path.join(self.build, "logs")
        self.rundir = os.path.join(self.build, "run", name)
        # The link server of each link, by the link's index.
        self.servers = {}
        self.guests = []
        os.makedirs(self.logdir, exist_ok=True)
        os.makedirs(self.rundir, exist_ok=True)
        sweep_ram_files()
        for guest in self.topology["guests"]:
            self._make_ram(guest)

    def ram_file(self, guest):
        return ram_path(self.rundir, os.getpid(), guest)

    def _link_prefix(self, link):
        """What names the files of a link: nothing when it is the only one,
        so a pair's names stay the same."""
        return "" if len(self.topology["links"]) == 1 else f"link{link}-"

    def link_socket(self, link, role):
        return os.path.join(self.rundir,
                            f"{self._link_prefix(link)}{role}.sock")

    def _make_ram(self, guest):
        # Created for the rig and kept while it lives: a restarted guest
        # must map the same file the peer still maps.
        with open(self.ram_file(guest), "wb") as f:
            f.truncate(self.ram_mb << 20)

    def control_socket(self):
        return os.path.join(self.rundir, "control.sock")

    def _server_name(self, link):
        return f"{self.name}-{self._link_prefix(link)}server"

    def start_server(self):
        """The link server of every link, each ready for its guests."""
        for link in range(len(self.topology["links"])):
            self._start_link_server(link)

    def _start_link_server(self, link):
        prefix = self._link_prefix(link)
        ep, rc = self.topology["links"][link]
        pidfile = os.path.join(self.rundir, f"{prefix}server.pid")
        if os.path.exists(pidfile):
            os.unlink(pidfile)
        name = self._server_name(link)
        log = open(os.path.join(self.logdir, f"{name}.log"), "wb")
        args = [os.path.join(self.build, "server", "vlink-server"),
                "--ep", self.link_socket(link, "ep"),
                "--rc", self.link_socket(link, "rc"),
                "--monitor",
                os.path.join(self.rundir, f"{prefix}monitor.sock"),
                "--pidfile", pidfile]
        # The server's DMA engine copies between the guests' RAM files,
        # as the endpoint asks in the DMA region of the link's place among
        # the endpoint guest's links (VLINK_DMA_REGION(k)).
        if self.server_dma:
            ep_links = [i for i, (e, _) in enumerate(self.topology["links"])
                        if e == ep]
            args += ["--ep-ram", self.ram_file(ep),
                     "--rc-ram", self.ram_file(rc),
                     "--ram-mb", str(self.ram_mb),
                     "--dma-region", str(ep_links.index(link))]
        if self.control:
            if prefix:
                raise RigError("fault injection is for a pair's one link")
            args += ["--control", self.control_socket()]
        server = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=_die_with_parent)
        log.close()
        self.servers[link] = server
        wait_until(lambda: os.path.exists(pidfile) or
                   server.poll() is not None, 10,
                   f"{name} to write its pidfile")
        if server.poll() is not None:
            raise RigError(f"{name} exited with status {server.returncode}")

    def kill_server(self, link=0):
        """Kill a link server at once, as a crashed process would die."""
        name = self._server_name(link)
        _end(self.servers.pop(link), signal.SIGKILL,
             f"{name} (see {name}.log)")

    def server_log(self, link=0):
        """What a link server has logged so far."""
        path = os.path.join(self.logdir, f"{self._server_name(link)}.log")
        with open(path, errors="replace") as f:
            return f.read()

    def server_command(self, cmd, timeout=5):
        """Send one command to the server's control socket; its answer line.

        The answer starts with "ok" or "error:"; the caller judges it.
        """
        if not self.control:
            raise RigError("server_command: this rig has no control socket "
                           "(Rig(..., control=True))")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            try:
                s.connect(self.control_socket())
                s.sendall(cmd.encode() + b"\n")
                reply = b""
                while not reply.endswith(b"\n"):
                    chunk = s.recv(4096)
                    if not chunk:
                        raise RigError(f"server closed the control socket "
                                       f"before answering '{cmd}'")
                    reply += chunk
            except socket.timeout:
                raise RigError(f"timed out after {timeout:g} s waiting for "
                               f"the server's answer to '{cmd}'") from None
        return reply.decode(errors="replace").strip()

    def start_guest(self, guest, name=None, **kw):
        """Start a guest of the topology (a pair's are named by their
        roles); its logs are <rig name>-<name, default the guest's>."""
        g = Guest(self, guest, f"{self.name}-{name or guest}", **kw)
        self.guests.append(g)
        return g.start()

    def start_pair(self):
        """The server, an endpoint and a root complex, both at a shell."""
        self.start_server()
        ep = self.start_guest("ep")
        rc = self.start_guest("rc")
        ep.wait_shell()
        rc.wait_shell()
        return ep, rc

    def stop(self):
        for g in self.guests:
            g.stop()
        for link, server in sorted(self.servers.items()):
            name = self._server_name(link)
            _end(server, signal.SIGTERM, f"{name} (see {name}.log)")
        self.servers = {}
        for guest in self.topology["guests"]:
            try:
                os.unlink(self.ram_file(guest))
            except FileNotFoundError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
