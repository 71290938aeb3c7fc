#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""md2rst.py [--links FORMAT] IN.md [OUT.rst]: the project's markdown notes
as kernel rst.

A minimal, faithful conversion of the markdown our docs/ use: ATX headings,
paragraphs, bullet and numbered lists, fenced code blocks, pipe tables,
inline code, emphasis and links.  The text itself is left as it is.
Headings follow Documentation/doc-guide/sphinx.rst: the document title
with '=' over and under, then '=', '-', '~' underlines.  A link to another
page, [text](page.md), becomes the path FORMAT.format("page") (which the
kernel's documentation build turns into a link), after the text unless the
text is the page's file name.
"""

import argparse
import re
import sys
import textwrap

LINKS = None


def link(m):
    text, target = m.group(1), m.group(2)
    page = re.match(r"([\w.-]+)\.md(#.*)?$", target)
    if page and LINKS:
        path = LINKS.format(page.group(1))
        return path if text in (target, page.group(1) + ".md") \
            else f"{text} ({path})"
    if re.match(r"[a-z]+://", target):
        return f"`{text} <{target}>`__"
    return text

UNDERLINE = {2: "=", 3: "-", 4: "~", 5: "^"}


def inline(text):
    """Inline markup: `code` -> ``code``, [text](url) -> `text <url>`__."""
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            out.append(re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", link, part))
            continue
        # rst wants inline markup set off by space or punctuation: an
        # escaped space glues it to a word ("``x``\ s").
        before = "\\ " if out and re.search(r"\w\Z", out[-1]) else ""
        after = "\\ " if i + 1 < len(parts) and \
            re.match(r"\w", parts[i + 1]) else ""
        out.append(before + "``" + part[1:-1] + "``" + after)
    return "".join(out)


def split_row(line):
    """Cells of a pipe-table row; a | inside a code span is not a border."""
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    cells, cur, code = [], "", False
    for ch in line:
        if ch == "`":
            code = not code
        if ch == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += ch
    cells.append(cur.strip())
    return cells


def table(rows):
    """A pipe table as a list-table (cells of any length wrap freely)."""
    header, body = rows[0], rows[2:]
    out = [".. list-table::", "   :header-rows: 1", ""]
    for row in [header] + body:
        for j, cell in enumerate(row):
            lead = "   * - " if j == 0 else "     - "
            text = inline(cell) or ".."
            lines = textwrap.wrap(text, 72, break_long_words=False,
                                  break_on_hyphens=False) or [""]
            out.append(lead + lines[0])
            out.extend("       " + ln for ln in lines[1:])
    out.append("")
    return out


def convert(md):
    lines = md.splitlines()
    out = [".. SPDX-License-Identifier: GPL-2.0", ""]
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"(#{1,5})\s+(.*)", line)
        if m:
            level, title = len(m.group(1)), inline(m.group(2).strip())
            if level == 1:
                bar = "=" * len(title)
                out += [bar, title, bar, ""]
            else:
                out += [title, UNDERLINE[level] * len(title), ""]
            i += 1
            continue
        if line.startswith("```"):
            i += 1
            block = []
            while i < len(lines) and not lines[i].startswith("```"):
                block.append(lines[i])
                i += 1
            i += 1
            if out and out[-1] == "":
                out.append("::")
            else:
                out[-1] += " ::"
            out.append("")
            # A tab, as the kernel's own rst does: code indented with tabs
            # stays free of "space before tab".
            out += ["\t" + b if b.strip() else "" for b in block]
            out.append("")
            continue
        if line.lstrip().startswith("|"):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(split_row(lines[i]))
                i += 1
            out += table(rows)
            continue
        if not line.strip():
            if out[-1] != "":
                out.append("")
            i += 1
            continue
        # A paragraph or a list item, with its continuation lines.
        para = [line.rstrip()]
        i += 1
        while i < len(lines) and lines[i].strip() and \
                not re.match(r"(#|```|\s*\||\s*[-*] |\s*\d+\. )", lines[i]):
            para.append(lines[i].rstrip())
            i += 1
        # Inline markup may run over a line break: convert it whole.
        out += inline("\n".join(para)).split("\n")
        continue
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def main():
    global LINKS
    ap = argparse.ArgumentParser()
    ap.add_argument("--links")
    ap.add_argument("md")
    ap.add_argument("rst", nargs="?")
    args = ap.parse_args()
    LINKS = args.links
    with open(args.md, encoding="utf-8") as f:
        rst = convert(f.read())
    if args.rst:
        with open(args.rst, "w", encoding="utf-8") as f:
            f.write(rst)
    else:
        sys.stdout.write(rst)


if __name__ == "__main__":
    main()
