# SPDX-License-Identifier: GPL-2.0
"""Nothing is left behind: `make run`'s runner interrupted with Ctrl-C
(SIGINT), terminated (SIGTERM) or killed outright (SIGKILL) while both
guests run takes its QEMUs and its server with it, and its guests' RAM
files: removed by the runner itself, or, killed, by the next rig's sweep.
"""

import os
import signal
import subprocess
import sys
import time

from vlinkrig import RigError, ram_files, sweep_ram_files, wait_until

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "qemu", "vlink-run.py")


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
    try:
        # Both guests booted: the runner echoes their consoles.
        seen = set()
        end = time.monotonic() + 120
        while seen != {"ep", "rc"}:
            line = runner.stdout.readline()
            if not line or time.monotonic() > end:
                raise RigError("the runner's guests did not both boot: "
                               "waited for their 'userspace up' lines")
            for role in ("ep", "rc"):
                if line.startswith(f"[{name}-{role}] vlink-init:"):
                    seen.add(role)
        assert len(our_processes(rundir + "/")) >= 3, \
            "expected a server and two QEMUs running"
        runner.send_signal(sig)
        # Still read what it prints: it must end because of the signal,
        # not because its stdout went away or its run came to an end.
        out, _ = runner.communicate(timeout=30)
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
