# SPDX-License-Identifier: GPL-2.0
"""The patch series (scripts/mkpatches.sh) checked the way a maintainer
would: each patch applies with `git am` on pristine 6.1, the tree builds
with our config after each one (32-bit ARM), and checkpatch --strict, run
from inside the patched tree, finds no error and no warning.  After each
patch but the last, kbuild compiles drivers/pci/ and drivers/misc/, where
the series' code and its host-side judge live, and the object of every C
file the patch touches elsewhere (arch/arm/mm/ioremap.o), so a patch that
breaks the compile shows where it does.  Linking vmlinux after every
patch took most of the stage's time and found nothing the compile of
those directories does not.  After the last patch the tree must be the
one `make kernel ARCH=arm` builds, byte for byte outside what no build reads
(Documentation/, MAINTAINERS), with the same .config: then that zImage,
which every guest test boots, is the series' zImage, and it is built (or
found up to date) by make kernel itself.  Building it a second time here
rebuilt most of the kernel on every run (the reset rewrites
arch/arm/include/asm/io.h): 3 minutes warm, 8 on a fresh machine.  Should
the trees differ, the series tree builds its own zImage as before.

The tree ($KCACHE/series-tree, a `git clone --shared` of the pristine base
repository) and its objects ($KCACHE/obj-arm-series) are kept between
runs: each run resets the tree to the pristine commit, which rewrites only
the files the series touches, so the builds after the first run are
incremental.  A lock keeps two runs from sharing them at once.

One result per patch for each of applies / builds / checkpatch clean, plus
the series being generated, its binding and its documentation.  CHECKs
(--strict) are printed, not failed.
"""

import fcntl
import filecmp
import glob
import io
import os
import re
import shutil
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
KCACHE = os.environ.get("KCACHE", os.path.expanduser("~/.cache/vlink"))
TREE = os.path.join(KCACHE, "series-tree")
OBJ = os.path.join(KCACHE, "obj-arm-series")
BASE = os.path.join(KCACHE, "series-base")
# What `make kernel ARCH=arm` builds: its tree and objects.
MAIN_TREE = os.path.join(KCACHE, "tree-6.1")
MAIN_OBJ = os.path.join(KCACHE, "obj-arm-vlink")
FRAGMENTS = [os.path.join(REPO, "kernel", f) for f in ("arm.config",
                                                      "vlink.config")]
JOBS = str(min(2, int(os.environ.get("JOBS", "2") or 2)))
KMAKE = ["make", "-s", "-C", TREE, f"O={OBJ}", "ARCH=arm",
         "CROSS_COMPILE=" + os.environ.get("CROSS_COMPILE",
                                           "arm-linux-gnueabihf-")]
# Paths of the series' own code: a compiler warning there fails a build.
OURS = re.compile(r"(drivers/pci/endpoint/|drivers/pci/controller/vlink/|"
                  r"include/linux/pci-ep|include/uapi/linux/vlink\.h)")
# What the build cannot see: a patch touching only these is not built.
NOT_BUILT = re.compile(r"^(Documentation/|MAINTAINERS$)")
BUILD_TIMEOUT = 3600
# checkpatch checks each SPDX identifier with the tree's spdxcheck.py, run
# by the first python3 on PATH.  One without ply and git (a pyenv's, say)
# fails on stderr, and checkpatch takes that for a valid license: the
# system's python3, which scripts/deps.sh gives both, comes first.
SYSTEM_PYTHON_FIRST = dict(os.environ,
                           PATH="/usr/bin:" + os.environ.get("PATH", ""))


def sh(cmd, cwd=None, timeout=600, env=None):
    """Run cmd; return (returncode, stdout+stderr)."""
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout,
                       env=env, errors="replace")
    return p.returncode, p.stdout


def git(*args, timeout=600):
    return sh(["git", "-C", TREE] + list(args), timeout=timeout)


def tail(text, n=15):
    return "\n".join(text.strip().splitlines()[-n:])


def prepare_tree(base):
    """The series tree, at the pristine commit, clean."""
    marker = os.path.join(TREE, ".git", "vlink-base")
    try:
        with open(marker) as f:
            same = f.read().strip() == base
    except OSError:
        same = False
    if not same:
        # New, or cloned from the base of another tarball: start afresh.
        shutil.rmtree(TREE, ignore_errors=True)
        rc, out = sh(["git", "clone", "-q", "--shared", "--no-checkout",
                      BASE, TREE])
        if rc:
            raise RuntimeError(f"git clone: {tail(out)}")
        with open(marker, "w") as f:
            f.write(base + "\n")
    # A run killed in the middle of a git command leaves its lock behind;
    # ours is the only one working here (see run()).
    lock = os.path.join(TREE, ".git", "index.lock")
    if os.path.exists(lock):
        os.unlink(lock)
    for key in ("user.name", "user.email"):
        _, val = sh(["git", "-C", REPO, "config", key])
        git("config", key, val.strip() or "vlink")
    git("am", "--abort")
    rc, out = git("checkout", "-q", "-f", "-B", "series", base, timeout=1800)
    if rc:
        raise RuntimeError(f"git checkout: {tail(out)}")
    rc, out = git("clean", "-q", "-f", "-d", "-x")
    if rc:
        raise RuntimeError(f"git clean: {tail(out)}")


def configure():
    """OBJ/.config = allnoconfig + our fragments, as kernel-config.sh
    makes it, for the tree as it is now."""
    os.makedirs(OBJ, exist_ok=True)
    rc, out = sh(KMAKE + ["allnoconfig"])
    if rc == 0:
        rc, out = sh([os.path.join(TREE, "scripts/kconfig/merge_config.sh"),
                      "-m", "-O", OBJ, os.path.join(OBJ, ".config"),
                      *FRAGMENTS], cwd=TREE)
    if rc == 0:
        rc, out = sh(KMAKE + ["olddefconfig"])
    return rc, out


def fragment_misses():
    """Options of the fragments that did not stick (the series' last patch
    must make all of them stick, like our normal build)."""
    with open(os.path.join(OBJ, ".config")) as f:
        have = set(f.read().splitlines())
    missing = []
    for fragment in FRAGMENTS:
        with open(fragment) as f:
            for line in f:
                line = line.strip()
                if line.startswith("CONFIG_") and line not in have:
                    missing.append(line)
    return missing


# After a patch that is not the last: the directories the series builds in.
PARTIAL_TARGETS = ["drivers/pci/", "drivers/misc/"]


def objects_elsewhere(touched):
    """The objects of C files the patch touches outside PARTIAL_TARGETS:
    kbuild compiles a single object the config builds."""
    return [p[:-2] + ".o" for p in touched
            if p.endswith(".c") and not p.startswith(tuple(PARTIAL_TARGETS))]


def build(touched, first, last):
    """Compile the series' directories, and after the last patch see to
    its zImage; return (ok, reason)."""
    # A patch that touches no Kconfig file leaves .config as it was: the
    # series' own options appear only with the patches that declare them.
    kconfig = any(os.path.basename(p).startswith("Kconfig") for p in touched)
    if kconfig or first:
        rc, out = configure()
        if rc:
            return False, "config: " + tail(out)
    objs = objects_elsewhere(touched)
    if objs:
        print(f"  (compiles {', '.join(objs)} too)")
    rc, out = sh(KMAKE + [f"-j{JOBS}"] + PARTIAL_TARGETS + objs,
                 timeout=BUILD_TIMEOUT)
    warnings = [ln for ln in out.splitlines()
                if re.search(r"\bwarning:", ln)]
    ours = [ln for ln in warnings if OURS.search(ln)]
    for ln in warnings:
        if ln not in ours:
            print(f"  (not ours) {ln}")
    if rc:
        return False, tail(out)
    if ours:
        return False, "compiler warnings: " + "; ".join(ours[:5])
    if last:
        missing = fragment_misses()
        if missing:
            return False, ("after the last patch these options of "
                           "the fragments did not stick: "
                           + ", ".join(missing))
        return build_zimage()
    return True, ""


def build_zimage():
    """The series' zImage: make kernel's, if it is built from this very
    tree and .config; else built here.  Returns (ok, reason)."""
    rc, out = sh(["make", "-s", "-C", REPO, "kernel", "ARCH=arm",
                  "KVARIANT=vlink", f"KCACHE={KCACHE}"],
                 timeout=BUILD_TIMEOUT)
    if rc:
        return False, "make kernel: " + tail(out)
    differ = trees_differ(TREE, MAIN_TREE)
    if not filecmp.cmp(os.path.join(OBJ, ".config"),
                       os.path.join(MAIN_OBJ, ".config"), shallow=False):
        differ.append(".config")
    if not differ:
        print("  (the tree and .config are make kernel's: its zImage is "
              "the series')")
        return True, ""
    print("  (not make kernel's tree: " + ", ".join(differ[:5]) +
          "; building zImage here)")
    rc, out = sh(KMAKE + [f"-j{JOBS}", "zImage"], timeout=BUILD_TIMEOUT)
    return rc == 0, tail(out) if rc else ""


def trees_differ(a, b):
    """Paths, relative to the top, whose content differs between trees a
    and b, or that only one of them has, leaving out what no build
    reads and the trees' own bookkeeping."""
    rc, out = sh(["diff", "-rq", "--no-dereference", "-x", ".git",
                  "-x", ".vlink-glue", "-x", ".vlink-extracted", a, b],
                 timeout=BUILD_TIMEOUT)
    if rc > 1:
        return ["diff: " + tail(out, 3)]
    paths = []
    for ln in out.splitlines():
        m = re.match(r"Files (\S+) and \S+ differ$", ln)
        if m:
            path = m.group(1)
        else:
            m = re.match(r"Only in ([^:]+): (.+)$", ln)
            if not m:
                paths.append(ln)
                continue
            path = os.path.join(m.group(1), m.group(2))
        for top in (a, b):
            if path.startswith(top + "/"):
                path = path[len(top) + 1:]
        if not NOT_BUILT.match(path):
            paths.append(path)
    return paths


def checkpatch(patch):
    """(errors, warnings, checks, report) of checkpatch --strict, run from
    the top of the patched tree so that it checks against the tree."""
    rc, out = sh(["perl", os.path.join(TREE, "scripts/checkpatch.pl"),
                  "--strict", patch], cwd=TREE, env=SYSTEM_PYTHON_FIRST)
    for f in glob.glob(os.path.join(TREE, ".checkpatch-camelcase.*")):
        os.unlink(f)
    m = re.search(r"total: (\d+) errors, (\d+) warnings, (\d+) checks", out)
    if not m:
        return 1, 0, 0, tail(out)
    e, w, c = (int(x) for x in m.groups())
    return e, w, c, out


def findings(report, kinds=("ERROR", "WARNING", "CHECK")):
    """The findings of a checkpatch report, one line each, with the file."""
    lines, cur = [], None
    for ln in report.splitlines():
        m = re.match(r"(ERROR|WARNING|CHECK):(\S+:)? (.*)", ln)
        if m:
            cur = [m.group(1), m.group(3), ""]
            if m.group(1) in kinds:
                lines.append(cur)
        m = re.match(r"#\d+: FILE: (\S+?):?$", ln)
        if m and cur is not None and not cur[2]:
            cur[2] = m.group(1)
    return [f"{k}: {f or '(message)'}: {t}" for k, t, f in lines]


def check_binding(results):
    """The binding's examples and our dts/ overlays compile with dtc and
    satisfy the schema (dt-schema itself is not on Debian 12: this is the
    schema checked with jsonschema, types aside)."""
    name = "patches: dt binding validates its examples and dts/"
    try:
        import yaml
        import jsonschema
    except ImportError as e:
        results.record(name, False, f"{e}: install python3-yaml and "
                       "python3-jsonschema")
        return

    path = os.path.join(REPO, "docs", "bindings", "vlink,pcie.yaml")
    with open(path, encoding="utf-8") as f:
        schema = yaml.safe_load(f)
    problems = []
    try:
        jsonschema.Draft201909Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        problems.append(f"not a valid schema: {e.message}")

    def strip_refs(node):
        if isinstance(node, dict):
            return {k: strip_refs(v) for k, v in node.items() if k != "$ref"}
        if isinstance(node, list):
            return [strip_refs(v) for v in node]
        return node
    # What dt-schema does to a binding before it validates with it: a
    # string-array property's enum is about its items, phandle is implied.
    schema = strip_refs(schema)
    props = schema["properties"]
    compat = props["compatible"]
    if "enum" in compat or "const" in compat:
        props["compatible"] = {"type": "array", "minItems": 1,
                               "maxItems": 1, "items": compat}
    props.setdefault("phandle", True)
    validator = jsonschema.Draft201909Validator(schema)

    sources = []
    for i, ex in enumerate(schema.get("examples", [])):
        sources.append((f"example {i}", "/dts-v1/;\n/ {\n#address-cells = "
                        "<1>;\n#size-cells = <1>;\n" + ex + "\n};\n", False))
    for dtso in sorted(glob.glob(os.path.join(REPO, "dts", "*.dtso"))):
        with open(dtso, encoding="utf-8") as f:
            sources.append((os.path.basename(dtso), f.read(), True))
    for what, src, overlay in sources:
        cmd = ["dtc", "-q" if overlay else "-Wno-unique_unit_address",
               "-I", "dts", "-O", "dts", "-o", "-"]
        if overlay:
            cmd.insert(1, "-@")
        p = subprocess.run(cmd, input=src, text=True, capture_output=True)
        if p.returncode or (not overlay and p.stderr.strip()):
            problems.append(f"{what}: dtc: {tail(p.stderr, 3)}")
            continue
        for node, props in dt_nodes(p.stdout):
            if not any(c.startswith("vlink,") for c in
                       props.get("compatible", [])):
                continue
            for err in validator.iter_errors(props):
                problems.append(f"{what}: {node}: {err.message}")
    results.record(name, not problems, "; ".join(problems[:5]))


def dt_nodes(dts):
    """(node name, {property: value}) of every node of dtc's dts output;
    strings as lists, /bits/ 8 and single cells as numbers."""
    nodes, stack = [], []
    for ln in dts.splitlines():
        ln = ln.strip()
        m = re.match(r"(?:[\w-]+: )?([\w@,.+-]+|/) \{$", ln)
        if m:
            parent = stack[-1][1] if stack else {}
            stack.append((m.group(1), {"..cells": parent.get(
                "#address-cells", 2) + parent.get("#size-cells", 1)}))
            continue
        if ln == "};" and stack:
            node, props = stack.pop()
            cells = props.pop("..cells")
            if isinstance(props.get("reg"), (list, int)):
                reg = props["reg"] if isinstance(props["reg"], list) \
                    else [props["reg"]]
                props["reg"] = [reg[i:i + cells]
                                for i in range(0, len(reg), cells)]
            nodes.append((node, props))
            continue
        m = re.match(r"([\w,#.+-]+)(?: = (.*))?;$", ln)
        if m and stack:
            name, val = m.group(1), m.group(2)
            if val is None:
                value = True
            elif val.startswith('"'):
                value = re.findall(r'"([^"]*)"', val)
            elif val.startswith("["):
                nums = [int(c, 16) for c in val.strip("[]").split()]
                value = nums[0] if len(nums) == 1 else nums
            else:
                cells = re.findall(r"0x[0-9a-f]+|\d+", val.split(">")[0]
                                   .split("<")[-1])
                nums = [int(c, 0) for c in cells]
                value = nums[0] if len(nums) == 1 else nums
            stack[-1][1][name] = value
    return nodes


def check_docs(results):
    """The documentation the series adds parses as rst without a warning."""
    try:
        import docutils.core
    except ImportError as e:
        results.record("patches: documentation is clean rst", False,
                       f"{e}: install python3-docutils")
        return

    problems = []
    for rst in sorted(glob.glob(os.path.join(
            TREE, "Documentation/PCI/endpoint/vlink-*.rst"))):
        with open(rst, encoding="utf-8") as f:
            src = f.read()
        err = io.StringIO()
        docutils.core.publish_doctree(src, settings_overrides={
            "report_level": 2, "halt_level": 5, "warning_stream": err})
        if err.getvalue().strip():
            problems.append(os.path.basename(rst) + ": " +
                            tail(err.getvalue(), 3))
    results.record("patches: documentation is clean rst", not problems,
                   "; ".join(problems))


def run(results, build_dir):
    t0 = time.monotonic()
    out = tempfile.mkdtemp(prefix="vlink-patches.")
    os.makedirs(KCACHE, exist_ok=True)
    lock = open(os.path.join(KCACHE, "series-tree.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        series(results, out)
    finally:
        lock.close()
        shutil.rmtree(out, ignore_errors=True)
    print(f"  patch series checked in {time.monotonic() - t0:.0f} s")


def series(results, out):
    rc, log = sh([os.path.join(REPO, "scripts", "mkpatches.sh"), out],
                 timeout=1800)
    patches = [p for p in sorted(glob.glob(os.path.join(out, "*.patch")))
               if not p.endswith("0000-cover-letter.patch")]
    if not results.record("patches: series generated",
                          rc == 0 and bool(patches), tail(log)):
        return
    check_binding(results)
    with open(os.path.join(out, "0000-cover-letter.patch")) as f:
        m = re.search(r"^base-commit: ([0-9a-f]{40})$", f.read(), re.M)
    base = m.group(1)
    try:
        prepare_tree(base)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        results.record("patches: pristine tree to apply them to", False,
                       str(e))
        return

    failed_at = None
    for i, patch in enumerate(patches):
        num = os.path.basename(patch)[:4]
        name = f"patches: {num} {subject(patch)}"
        if failed_at:
            for what in ("applies", "builds", "checkpatch clean"):
                results.record(f"{name}: {what}", False,
                               f"patch {failed_at} did not apply")
            continue
        t = time.monotonic()
        rc, log = git("am", "-q", "--whitespace=error-all", patch)
        if not results.record(f"{name}: applies", rc == 0, tail(log)):
            git("am", "--abort")
            failed_at = num
            for what in ("builds", "checkpatch clean"):
                results.record(f"{name}: {what}", False, "did not apply")
            continue
        _, files = git("diff", "--name-only", "HEAD~1", "HEAD")
        touched = files.split()
        last = i == len(patches) - 1
        if last or not all(NOT_BUILT.match(p) for p in touched):
            try:
                ok, why = build(touched, i == 0, last)
            except subprocess.TimeoutExpired as e:
                ok, why = False, f"timed out: {e}"
            results.record(f"{name}: builds", ok, why)
        else:
            results.record(f"{name}: builds", True)
            print("  (touches nothing the build reads)")
        e, w, c, report = checkpatch(patch)
        for ln in findings(report, ("CHECK",)):
            print(f"  checkpatch {ln}")
        results.record(f"{name}: checkpatch clean", e == 0 and w == 0,
                       f"{e} errors, {w} warnings: " +
                       "; ".join(findings(report, ("ERROR", "WARNING"))[:8]))
        print(f"  ({time.monotonic() - t:.0f} s; {c} checks)")
    if not failed_at:
        check_docs(results)


def subject(patch):
    with open(patch, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)", text, re.M)
    return re.sub(r"\s+", " ", m.group(1)) if m else "?"


if __name__ == "__main__":
    import sys
    sys.path.insert(0, HERE)
    from vlinktest import Results
    res = Results()
    run(res, os.path.join(REPO, "build"))
    print(f"{res.passed} passed, {res.failed} failed")
    sys.exit(1 if res.failed else 0)
