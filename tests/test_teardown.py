# SPDX-License-Identifier: GPL-2.0
"""Nothing is left behind: `make run`'s runner interrupted with Ctrl-C
(SIGINT), terminated (SIGTERM) or killed outright (SIGKILL) while both
guests run takes its QEMUs and its server with it, and its guests' RAM
files: removed by the runner itself, or, killed, by the next rig's sweep.
"""

import os
import queue
import signal
import subprocess
import sys
import threading
import time

from vlinkrig import RigError, ram_files, sweep_ram_files, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "qemu", "vlink-run.py")
# How many of the runner's last lines a failure shows.
TAIL = 20
# How long both guests of the runner may take to reach userspace.
BOOT_TIMEOUT = 120


def read_lines(stream, lines):
    """Every line of stream into lines, then None at its end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def iter_queue(lines):
    """What lines holds now, up to its end marker."""
    while True:
        try:
            line = lines.get_nowait()
        except queue.Empty:
            return
        if line is None:
            return
        yield line


def our_processes(rundir):
    """PIDs whose command line names this run's directory."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            continue
        if rundir in cmdline:
            pids.append(int(pid))
    return pids


def interrupted_run(build, sig):
    name = f"teardown-{sig.name.lower()}"
    rundir = os.path.join(build, "run", name)
    runner = subprocess.Popen(
        [sys.executable, RUNNER, "--build", build, "--name", name],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = queue.Queue()
    reader = threading.Thread(target=read_lines, args=(runner.stdout, lines),
                              daemon=True)
    reader.start()
    try:
        # Both guests booted: the runner echoes their consoles.
        seen = set()
        tail = []
        end = time.monotonic() + BOOT_TIMEOUT
        while seen != {"ep", "rc"}:
            try:
                line = lines.get(timeout=max(0, end - time.monotonic()))
            except queue.Empty:
                line = ""
            if not line:
                why = "it ended" if line is None else \
                    f"{BOOT_TIMEOUT} s passed"
                raise RigError("the runner's guests did not both boot: "
                               "waited for their 'userspace up' lines; "
                               f"{why}; its last lines:\n" +
                               "".join(tail))
            tail = (tail + [line])[-TAIL:]
            for role in ("ep", "rc"):
                if line.startswith(f"[{name}-{role}] vlink-init:"):
                    seen.add(role)
        assert len(our_processes(rundir + "/")) >= 3, \
            "expected a server and two QEMUs running"
        runner.send_signal(sig)
        # Still read what it prints: it must end because of the signal,
        # not because its stdout went away or its run came to an end.
        runner.wait(timeout=30)
        reader.join(timeout=30)
        out = "".join(iter_queue(lines))
        expected = -signal.SIGKILL if sig == signal.SIGKILL else 130
        assert runner.returncode == expected and \
            "vlink summary" not in out, \
            f"the runner ended with status {runner.returncode}, not " \
            f"{expected}, and {'a' if 'vlink summary' in out else 'no'} " \
            "summary: the signal did not stop it"
        wait_until(lambda: not our_processes(rundir + "/"), 15,
                   f"no process of the run left after {sig.name}")
        if sig == signal.SIGKILL:
            sweep_ram_files()
        assert not ram_files(rundir), \
            f"RAM files left after {sig.name}: {ram_files(rundir)}"
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
        for pid in our_processes(rundir + "/"):
            os.kill(pid, signal.SIGKILL)


def run(results, build):
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        try:
            interrupted_run(build, sig)
            results.record(f"teardown: {sig.name} to make run leaves no "
                           "QEMU, server or RAM file", True)
        except (RigError, AssertionError, subprocess.TimeoutExpired) as e:
            results.record(f"teardown: {sig.name} to make run leaves no "
                           "QEMU, server or RAM file", False, str(e))
