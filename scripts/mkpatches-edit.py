#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""mkpatches-edit.py COMMAND ARGS...: the edits scripts/mkpatches.sh makes
to files of the kernel tree for the patch series.  Each reads the file's
current text on stdin and writes the new text on stdout.

  kconfig-set SYMBOL FROM        replace the "config SYMBOL" entry with the
                                 one in file FROM
  kconfig-drop SYMBOL...         remove those entries
  maint-section TITLE FROM       add the MAINTAINERS section in file FROM
                                 where TITLE sorts
  maint-add TITLE LINE...        add "X:<tab>value" lines to a section, in
                                 the order checkpatch wants
  maint-drop TITLE LINE...       remove those lines from a section
  vendor-prefix PREFIX TEXT      add "^PREFIX,.*" to vendor-prefixes.yaml
  toctree-add NAME...            add entries to the first toctree of an
                                 index.rst, after its last plain entry
"""

import re
import sys

# Lines that end a Kconfig entry (and its help text).
KCONFIG_END = re.compile(
    r"^(config|menuconfig|menu|endmenu|source|if|endif|choice|endchoice|"
    r"comment)\b")
MAINT_ORDER = "MRLSWQBCPTFXNK"


def kconfig_entries(text):
    """[(symbol or None, lines)]: the file cut at each entry boundary."""
    chunks, cur, sym = [], [], None
    for line in text.splitlines(keepends=True):
        if KCONFIG_END.match(line):
            chunks.append((sym, cur))
            m = re.match(r"^(?:menu)?config\s+(\w+)", line)
            sym, cur = (m.group(1) if m else None), []
        cur.append(line)
    chunks.append((sym, cur))
    return chunks


def entry_body(lines):
    """An entry without the blank lines that trail it."""
    n = len(lines)
    while n and not lines[n - 1].strip():
        n -= 1
    return lines[:n], lines[n:]


def kconfig_set(text, sym, src):
    with open(src, encoding="utf-8") as f:
        new = [ln for s, ln in kconfig_entries(f.read()) if s == sym]
    if not new:
        sys.exit(f"kconfig-set: no config {sym} in {src}")
    new_body, _ = entry_body(new[0])
    out, found = [], False
    for s, lines in kconfig_entries(text):
        if s == sym:
            _, trail = entry_body(lines)
            lines, found = new_body + trail, True
        out += lines
    if not found:
        sys.exit(f"kconfig-set: no config {sym} to replace")
    return "".join(out)


def kconfig_drop(text, syms):
    out, left = [], set(syms)
    for s, lines in kconfig_entries(text):
        if s in left:
            left.discard(s)
            continue
        out += lines
    if left:
        sys.exit(f"kconfig-drop: no config {', '.join(sorted(left))}")
    return "".join(out)


def maint_sections(lines):
    """Indices of the section title lines of MAINTAINERS."""
    return [i for i in range(1, len(lines) - 1)
            if not lines[i - 1].strip() and lines[i].strip() and
            not re.match(r"[A-Z]:\t", lines[i]) and
            re.match(r"[A-Z]:\t", lines[i + 1])]


def maint_find(lines, title):
    for i in maint_sections(lines):
        if lines[i].rstrip("\n") == title:
            end = i + 1
            while end < len(lines) and lines[end].strip():
                end += 1
            return i, end
    sys.exit(f"MAINTAINERS: no section {title!r}")


def maint_section(text, title, src):
    lines = text.splitlines(keepends=True)
    with open(src, encoding="utf-8") as f:
        new = f.read().strip("\n") + "\n\n"
    for i in maint_sections(lines):
        if lines[i].rstrip("\n").upper() > title.upper():
            return "".join(lines[:i]) + new + "".join(lines[i:])
    sys.exit("MAINTAINERS: nowhere to put the section")


def maint_key(line):
    kind, _, value = line.partition(":")
    return MAINT_ORDER.index(kind), value.strip()


def maint_add(text, title, new):
    lines = text.splitlines(keepends=True)
    start, end = maint_find(lines, title)
    body = lines[start + 1:end] + [ln + "\n" for ln in new]
    # Keep the existing order of everything but F/X patterns, which
    # checkpatch wants sorted.
    body.sort(key=lambda ln: (MAINT_ORDER.index(ln[0]),
                              ln[3:] if ln[0] in "FX" else ""))
    return "".join(lines[:start + 1] + body + lines[end:])


def maint_drop(text, title, old):
    lines = text.splitlines(keepends=True)
    start, end = maint_find(lines, title)
    body = lines[start + 1:end]
    for ln in old:
        if ln + "\n" not in body:
            sys.exit(f"MAINTAINERS: {title!r} has no line {ln!r}")
        body.remove(ln + "\n")
    return "".join(lines[:start + 1] + body + lines[end:])


def vendor_prefix(text, prefix, desc):
    lines = text.splitlines(keepends=True)
    key = f'"^{prefix},.*":'
    for i, line in enumerate(lines):
        m = re.match(r'  "\^([-a-z0-9]+),\.\*":', line)
        if m and m.group(1) == prefix:
            sys.exit(f"vendor-prefixes: {prefix} is there already")
        if m and m.group(1) > prefix:
            new = f"  {key}\n    description: {desc}\n"
            return "".join(lines[:i]) + new + "".join(lines[i:])
    sys.exit("vendor-prefixes: nowhere to put the prefix")


def toctree_add(text, names):
    lines = text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines)
                 if ln.startswith(".. toctree::"))
    last = None
    for i in range(start + 1, len(lines)):
        ln = lines[i]
        if ln.strip() and not ln.startswith("   "):
            break
        if re.match(r"   [\w-]+$", ln.rstrip("\n")):
            last = i
    if last is None:
        sys.exit("toctree-add: no entries")
    new = [f"   {n}\n" for n in names]
    return "".join(lines[:last + 1] + new + lines[last + 1:])


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    text = sys.stdin.read()
    if cmd == "kconfig-set":
        text = kconfig_set(text, args[0], args[1])
    elif cmd == "kconfig-drop":
        text = kconfig_drop(text, args)
    elif cmd == "maint-section":
        text = maint_section(text, args[0], args[1])
    elif cmd == "maint-add":
        text = maint_add(text, args[0], args[1:])
    elif cmd == "maint-drop":
        text = maint_drop(text, args[0], args[1:])
    elif cmd == "vendor-prefix":
        text = vendor_prefix(text, args[0], args[1])
    elif cmd == "toctree-add":
        text = toctree_add(text, args)
    else:
        sys.exit(f"unknown command {cmd}")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
