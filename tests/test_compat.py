# SPDX-License-Identifier: GPL-2.0
"""API compatibility: the 6.1 tree's own endpoint function drivers,
pci-epf-test.c, pci-epf-ntb.c and pci-epf-vntb.c, taken unchanged from the
pristine tree, build against our framework's headers.

They are built as external modules (M=) in a scratch object directory,
$KCACHE/obj-arm-compat, configured like our kernel and only prepared
(modules_prepare), so nothing of it is shipped.  A compiler warning counts
as a failure: gcc 12 only warns about incompatible pointer types, which is
exactly what a changed signature gives.  Then modpost checks, against our
built kernel's $KCACHE/obj-arm-vlink/vmlinux.symvers, that every endpoint
framework symbol the drivers call is exported by our kernel (the NTB
core's symbols, not part of our config, are left aside).  A file whose
symbols could not be checked (no vmlinux.symvers, modpost failed, no
module came out) fails: a compile alone does not show the API works.

One result per file.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KCACHE = os.environ.get("KCACHE", os.path.expanduser("~/.cache/vlink"))
PRISTINE = os.path.join(KCACHE, "pristine-6.1")
TREE = os.path.join(KCACHE, "tree-6.1")
OBJ = os.path.join(KCACHE, "obj-arm-compat")
SYMVERS = os.path.join(KCACHE, "obj-arm-vlink", "vmlinux.symvers")
JOBS = str(min(2, int(os.environ.get("JOBS", "2") or 2)))
FILES = ("pci-epf-test.c", "pci-epf-ntb.c", "pci-epf-vntb.c")
# Symbols of the endpoint framework: these must resolve against our kernel.
FRAMEWORK_SYM = re.compile(r"^_*pci_(epc|epf|ep_cfs)_")


def sh(cmd, timeout=1800, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout, env=env, errors="replace")
    return p.returncode, p.stdout


def tail(text, n=12):
    return "\n".join(text.strip().splitlines()[-n:])


def kmake(*args):
    return sh(["make", "-s", "-C", TREE, f"O={OBJ}", "ARCH=arm",
               "CROSS_COMPILE=" + os.environ.get("CROSS_COMPILE",
                                                 "arm-linux-gnueabihf-"),
               f"-j{JOBS}"] + list(args))


def prepare():
    """Our tree, up to date, and the scratch object directory configured
    like our kernel and prepared for external modules."""
    env = dict(os.environ, KCACHE=KCACHE, ARCH="arm",
               CROSS_COMPILE=os.environ.get("CROSS_COMPILE",
                                            "arm-linux-gnueabihf-"))
    rc, out = sh([os.path.join(REPO, "scripts", "kernel-tree.sh")], env=env)
    if rc:
        return "kernel-tree.sh: " + tail(out)
    rc, out = sh([os.path.join(REPO, "scripts", "kernel-config.sh"), TREE,
                  OBJ, os.path.join(REPO, "kernel", "arm.config"),
                  os.path.join(REPO, "kernel", "vlink.config")], env=env)
    if rc:
        return "kernel-config.sh: " + tail(out)
    rc, out = kmake("modules_prepare")
    if rc:
        return "modules_prepare: " + tail(out)
    # modpost checks unresolved symbols against this, when we have it.
    target = os.path.join(OBJ, "Module.symvers")
    if os.path.exists(SYMVERS):
        shutil.copyfile(SYMVERS, target)
    elif os.path.exists(target):
        os.unlink(target)
    return None


def run(results, build):
    t0 = time.monotonic()
    problem = prepare()
    if problem:
        for f in FILES:
            results.record(f"compat: 6.1 {f} builds against our framework",
                           False, problem)
        return
    print(f"  scratch build prepared in {time.monotonic() - t0:.0f} s")
    mdir = tempfile.mkdtemp(prefix="vlink-compat.")
    try:
        check(results, mdir)
    finally:
        shutil.rmtree(mdir, ignore_errors=True)
    print(f"  compatibility checked in {time.monotonic() - t0:.0f} s")


def check(results, mdir):
    src = os.path.join(PRISTINE, "drivers/pci/endpoint/functions")
    for f in FILES:
        shutil.copy(os.path.join(src, f), mdir)
    with open(os.path.join(mdir, "Kbuild"), "w") as k:
        k.write("obj-m := " + " ".join(f[:-2] + ".o" for f in FILES) + "\n")

    compiled = {}
    for f in FILES:
        rc, out = kmake(f"M={mdir}", f[:-2] + ".o")
        warnings = [ln for ln in out.splitlines()
                    if re.search(r"\b(warning|error):", ln)]
        if rc or warnings:
            compiled[f] = "; ".join(warnings[:6]) or tail(out)
        else:
            compiled[f] = None

    # Link level: modpost, on the modules that compiled.
    unresolved = {f: [] for f in FILES}
    linked = os.path.exists(os.path.join(OBJ, "Module.symvers"))
    unlinked = None if linked else \
        f"no {SYMVERS} (build our kernel first): symbols not checked"
    good = [f for f in FILES if compiled[f] is None]
    if linked and good:
        with open(os.path.join(mdir, "Kbuild"), "w") as k:
            k.write("obj-m := " + " ".join(f[:-2] + ".o" for f in good) + "\n")
        rc, out = kmake(f"M={mdir}", "modules", "KBUILD_MODPOST_WARN=1")
        for m in re.finditer(r'"(\S+)" \[(\S+?)\.ko\] undefined', out):
            sym, mod = m.group(1), os.path.basename(m.group(2)) + ".c"
            if mod in unresolved and FRAMEWORK_SYM.match(sym):
                unresolved[mod].append(sym)
        if rc:
            unlinked = "modpost did not run: " + tail(out, 3)
    for f in FILES:
        why = compiled[f] or unlinked or ""
        if not why and not os.path.exists(os.path.join(mdir,
                                                       f[:-2] + ".ko")):
            why = f"modpost made no {f[:-2]}.ko: symbols not checked"
        if not why and unresolved[f]:
            why = "our kernel does not export " + ", ".join(unresolved[f])
        results.record(f"compat: 6.1 {f} builds against our framework",
                       not why, why)


if __name__ == "__main__":
    import sys
    sys.path.insert(0, HERE)
    from vlinktest import Results
    res = Results()
    run(res, os.path.join(REPO, "build"))
    print(f"{res.passed} passed, {res.failed} failed")
    sys.exit(1 if res.failed else 0)
