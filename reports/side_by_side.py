#!/usr/bin/python3
"""side_by_side.py — two results directories' first screens side by side, differences marked.

    ./run.sh report --compare DIR_A DIR_B [--out DIR]
    /usr/bin/python3 reports/side_by_side.py DIR_A DIR_B [--out DIR]   (default: the current dir)

Writes DIR/compare.html, one self-contained file (CSS and script inline, no network), with:

  * one workload picker (first_screen.py's, preset to advise.PROFILES) driving two ranked
    answers, A's and B's, next to each other for the same workload; a subject whose place
    differs in the other run is marked with its place there ("#3 in B", "not ranked in A");
  * one matrix, first_screen.py's, over the subjects of both runs: a cell whose value differs
    between A and B shows both ("95 % → 48 %", outlined), with both sources in its title; a
    subject only one run measured says so.

Each answer is computed from its own run: advise.answers() of DIR_A and of DIR_B, embedded as
two JSON blocks that picker.js reads; each picks its own nearest measured point.

This is a reading aid, not the gate: `./run.sh compare BASE NEW` (compare.py) judges
regressions; this shows what a person would choose differently.

Exit status: 0 written; 2 bad usage (one line on stderr): a missing or extra argument, a
directory that does not exist, an output that cannot be written.

Thread safety: pure functions, and one file written atomically.
"""
from __future__ import annotations

import argparse
import html
import os
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import first_screen as fs  # noqa: E402
from facts import Facts, load_facts  # noqa: E402
from render import write_atomically  # noqa: E402  (temp file, fsync, rename)

PAGE_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       color: #1a1a1a; margin: 0 auto; max-width: 1340px; padding: 12px 14px 48px; }
h1 { font-size: 22px; margin: 4px 0 2px; }
.meta { color: #555; margin: 0 0 8px; font-size: 13px; }
.meta code { background: #f3f3f3; padding: 0 3px; }
#idbench-first { width: auto; margin-left: 0; }
#idbench-first .fs-pair { display: flex; flex-wrap: wrap; gap: 10px 26px; margin-top: 10px;
  align-items: flex-start; }
#idbench-first .fs-pair > div { flex: 1 1 560px; min-width: 0; }
#idbench-first h2.fs-diffs { margin: 16px 0 4px; }
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit 2
        sys.stderr.write(f"side_by_side: {message}\n")
        raise SystemExit(2)


def merged_matrix(a: Facts, b: Facts, names: tuple[str, str] = ("A", "B")):
    """The columns of both runs (A's order, then B's others), A's rows then B's others, B's
    rows by subject for the differences, the "only in" tags and the number of differing
    cells."""
    cols_a, rows_a = fs.matrix(a)
    cols_b, rows_b = fs.matrix(b)
    keys = {c.key for c in cols_a}
    order = [c.key.split(":")[0] for c in cols_a]
    cols = sorted(cols_a + [c for c in cols_b if c.key not in keys],
                  key=lambda c: (order.index(c.key.split(":")[0]) if c.key.split(":")[0] in order
                                 else len(order), int(c.key.split(":")[1]) if ":" in c.key else 0))
    by_b = {r.subject: r for r in rows_b}
    by_a = {r.subject: r for r in rows_a}
    rows = rows_a + [r for r in rows_b if r.subject not in by_a]
    # Schemes first, then real systems, each in the order the runs give them.
    rows.sort(key=lambda r: r.kind == "system")
    other = {s: r for s, r in by_b.items() if s in by_a}
    tags = {s: f"only in {names[0]}" for s in by_a if s not in by_b}
    tags.update({s: f"only in {names[1]}" for s in by_b if s not in by_a})
    differ = sum(1 for s, rb in other.items() for c in cols
                 if (by_a[s].cells.get(c.key) or fs.Cell("–")).text
                 != (rb.cells.get(c.key) or fs.Cell("–")).text)
    return cols, rows, other, tags, differ


def compare_html(dir_a: str, dir_b: str, names: tuple[str, str] = ("A", "B")) -> str:
    a, b = load_facts(dir_a), load_facts(dir_b)
    ans_a, ans_b = fs.advise.answers(a), fs.advise.answers(b)
    cols, rows, other, tags, differ = merged_matrix(a, b, names)
    rows_b = sorted({r for pts in ans_b["points"].values() for r in pts["rows"]})
    e = html.escape
    missing = "".join(
        f'<p class="fs-missing">{e(n)}: {len(f.missing)} input'
        f'{"s" if len(f.missing) != 1 else ""} missing: '
        f'{e("; ".join(m.split(" (")[0] for m in f.missing))}</p>'
        for n, f in zip(names, (a, b)) if f.missing)
    body = (
        '<section id="idbench-first" aria-label="Two runs side by side">'
        + fs.picker_html(ans_a, "idbench-answers-a", more_rows=rows_b) + missing
        + '<div class="fs-pair"><div>'
        + fs.ranking_html("ranking-a", "idbench-answers-a", names[0], "ranking-b")
        + '</div><div>'
        + fs.ranking_html("ranking-b", "idbench-answers-b", names[1], "ranking-a")
        + "</div></div>"
        + f'<h2 class="fs-h fs-diffs">Every subject, {e(names[0])} → {e(names[1])}: '
        f'{differ} cell{"s" if differ != 1 else ""} differ</h2>'
        + fs.matrix_html(cols, rows, other=other, names=names, tags=tags, links=False)
        + f'<p class="fs-legend">Outlined: the value differs, shown as {e(names[0])} → '
        f'{e(names[1])} (colours are {e(names[0])}\'s). {e(fs.LEGEND.split(" Hover")[0])} '
        "Hover a cell for its sources. A ranked row marked amber has another place in the "
        "other run.</p>"
        + fs.json_script(ans_a, "idbench-answers-a") + fs.json_script(ans_b, "idbench-answers-b")
        + fs.picker_script() + "</section>")
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>idbench: {e(names[0])} and {e(names[1])} side by side</title>"
            f"<style>{fs.CSS}</style><style>{PAGE_CSS}</style></head><body>"
            f"<h1>idbench: two runs side by side</h1>"
            f'<p class="meta">{e(names[0])}: <code>{e(os.path.abspath(dir_a))}</code> · '
            f'{e(names[1])}: <code>{e(os.path.abspath(dir_b))}</code> · rendered {now} — one '
            "file, readable offline.</p>" + body + "</body></html>\n")


def main(argv=None) -> int:
    p = _Parser(prog="side_by_side",
                description="Two results directories' first screens side by side.")
    p.add_argument("dir_a", help="the first results directory (A)")
    p.add_argument("dir_b", help="the second results directory (B)")
    p.add_argument("--out", default=".", help="where to write compare.html (default: .)")
    a = p.parse_args(argv)
    for d in (a.dir_a, a.dir_b):
        if not os.path.isdir(d):
            sys.stderr.write(f"side_by_side: {d} is not a results directory\n")
            return 2
    try:
        os.makedirs(a.out, exist_ok=True)
        out = os.path.join(a.out, "compare.html")
        write_atomically(out, compare_html(a.dir_a, a.dir_b))
    except OSError as e:
        sys.stderr.write(f"side_by_side: cannot write {a.out}/compare.html: {e.strerror or e}\n")
        return 2
    sys.stderr.write(f"side_by_side: wrote {out}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
