#!/usr/bin/python3
"""render.py — writes report.html, report.md and summary.json from a results directory.

    /usr/bin/python3 reports/render.py reports/latest            # what reports/render.sh runs
    /usr/bin/python3 reports/render.py RESULTS_DIR --out OUT_DIR

Reads bench.json, locality.json and chaos.json, and real_chaos.json, derived_ids.json and
worker_ids.json when a run wrote them (any of them may be missing or partial: the report says
so, once per input, and shows the rest), builds one Report (content.py) and writes it three ways:

    report.html   one self-contained file: CSS inline, charts inline as SVG, no link to
                  anything outside it, so it opens offline and survives being mailed; its one
                  script is the first screen's picker, over the JSON embedded beside it.
                  The title and one meta line, then the first screen (first_screen.py, when
                  it is there), then one part per section: its heading, its takeaway (one
                  sentence), and its tables, charts and notes folded in <details>;
    report.md     the same sections and tables as Markdown, unfolded, for CI summaries (no
                  images);
    summary.json  the figures behind the tables, for scripts.

Each file is written to a temp file in the output directory, flushed to disk and renamed over
the old one: a reader sees the old report or the new one, never half of one.

Exit status: 0 written (also when inputs are missing: that is a partial report, not an error);
2 bad usage or the output cannot be written.

Run it with Debian's /usr/bin/python3: matplotlib and scipy are Debian packages, which another
python3 first on PATH may not see. Without matplotlib the report is written without charts and
says why.
"""
from __future__ import annotations

import argparse
import html
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import content  # noqa: E402
from document import BAD, NOTE_REF, Report, Section, Table  # noqa: E402
from inputs import load_results  # noqa: E402


def write_atomically(path: str, text: str) -> None:
    """Temp file in the same directory, fsync, chmod 0644, rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the report is for everyone
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


# ---------------------------------------------------------------------------------------------
# HTML

# The first screen (a workload picker, a ranked answer, a compact matrix) comes from
# first_screen.py when it is there: to_html inserts it right under the title and the meta line,
# and everything this module writes follows it.
try:
    from first_screen import first_screen_html  # noqa: E402
except ImportError:
    first_screen_html = None
except Exception as _e:  # noqa: BLE001 — a first_screen.py that fails to import is a sentence
    def first_screen_html(_results_dir, _e=_e):
        raise _e

FIRST_SCREEN_START = "<!-- first screen -->"
FIRST_SCREEN_END = "<!-- /first screen -->"

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
       color: #1a1a1a; margin: 0 auto; max-width: 1180px; padding: 16px 24px 64px; }
h1 { font-size: 24px; margin: 6px 0 2px; }
h2 { font-size: 17px; margin: 0 0 2px; }
h3 { font-size: 14px; margin: 18px 0 4px; }
.meta { color: #555; margin: 0 0 10px; font-size: 13px; }
section.part { border-top: 1px solid #ddd; padding: 10px 0 8px; }
p.takeaway { margin: 2px 0 4px; font-size: 14.5px; }
details > summary { cursor: pointer; color: #1a55a0; font-size: 13px; }
details[open] > summary { margin-bottom: 6px; }
details.notes > summary { color: #444; }
ol.notes { font-size: 12.5px; color: #333; margin: 4px 0 8px; padding-left: 28px; }
table { border-collapse: collapse; margin: 10px 0 4px; font-size: 12.5px; width: 100%; }
th, td { border: 1px solid #ddd; padding: 3px 6px; vertical-align: top; }
th { background: #f0f0f0; text-align: left; position: sticky; top: 0; }
td.r { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
td.good { background: #e6f4ea !important; }
td.bad { background: #fde7e9 !important; color: #a50e0e; font-weight: 600; }
td.warn { background: #fff4e0 !important; }
td sup { color: #1a55a0; font-weight: normal; }
table.compact td:not(:last-child) { white-space: nowrap; }
.caption { color: #444; font-size: 12.5px; margin: 2px 0 14px; }
figure { margin: 10px 0 22px; }
figure .chart svg { max-width: 100%; height: auto; display: block; }
figcaption { color: #333; font-size: 12.5px; max-width: 980px; }
.missing { background: #fff4e0; border-left: 4px solid #e0a000; padding: 6px 10px; }
ul.problems li { color: #7a4b00; }
"""


def _cell_html(cell, align: str, notes: bool = False) -> str:
    text, cls = (cell if isinstance(cell, tuple) else (cell, ""))
    classes = " ".join(c for c in (("r" if align == "r" else ""), cls) if c)
    attr = f' class="{classes}"' if classes else ""
    body = html.escape(str(text))
    if notes:  # "[3]" refers to note 3 under the table
        body = NOTE_REF.sub(r"<sup>[\1]</sup>", body)
    return f"<td{attr}>{body}</td>"


def _aligns(t: Table) -> str:
    return t.align or ("l" + "r" * (len(t.header) - 1))


def table_html(t: Table) -> str:
    al = _aligns(t)
    out = ['<table class="compact">' if t.compact else "<table>", "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in t.header)
           + "</tr></thead>", "<tbody>"]
    for row in t.rows:
        out.append("<tr>" + "".join(_cell_html(c, al[i] if i < len(al) else "l", bool(t.notes))
                                    for i, c in enumerate(row)) + "</tr>")
    out.append("</tbody></table>")
    if t.caption:
        out.append(f'<p class="caption">{html.escape(t.caption)}</p>')
    if t.notes or t.notes_intro:
        out.append(f'<details class="notes"><summary>Notes 1–{len(t.notes)} on the table'
                   "</summary>")
        if t.notes_intro:
            out.append(f'<p class="caption">{html.escape(t.notes_intro)}</p>')
        out.append('<ol class="notes">' + "".join(f"<li>{html.escape(n)}</li>" for n in t.notes)
                   + "</ol></details>")
    return "\n".join(out)


def _blocks_html(s: Section) -> list[str]:
    out = []
    for kind, x in s.blocks:
        if kind == "p":
            out.append(f"<p>{html.escape(x)}</p>")
        elif kind == "ul":
            cls = ' class="problems"' if s.id == "run" else ""
            out.append(f"<ul{cls}>" + "".join(f"<li>{html.escape(i)}</li>" for i in x)
                       + "</ul>")
        elif kind == "table":
            out.append(table_html(x))
        elif kind == "figure":
            out.append(f'<figure id="fig-{x.id}"><h3>{html.escape(x.title)}</h3>')
            if x.svg:
                out.append(f'<div class="chart">{x.svg}</div>')
            else:
                out.append(f'<p class="missing">Chart not drawn: {html.escape(x.error or "?")}'
                           "</p>")
            if x.caption:
                out.append(f"<figcaption>{html.escape(x.caption)}</figcaption>")
            out.append("</figure>")
    return out


def first_screen(r: Report) -> str:
    """The first screen's HTML, between two markers; empty when first_screen.py is not there.
    A first screen that fails is a sentence, never a lost report."""
    if first_screen_html is None:
        return ""
    try:
        body = first_screen_html(r.results_dir) or ""
    except Exception as e:  # noqa: BLE001 — the rest of the report still stands
        body = (f'<p class="missing">First screen not drawn: '
                f"{html.escape(type(e).__name__)}: {html.escape(str(e))}</p>")
    return f"{FIRST_SCREEN_START}\n{body}\n{FIRST_SCREEN_END}"


def to_html(r: Report) -> str:
    """The page: title, one meta line, the first screen, then one part per section (its
    heading, its takeaway, its details folded)."""
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(r.title)}</title>", f"<style>{CSS}</style></head><body>",
             f"<h1>{html.escape(r.title)}</h1>",
             f'<p class="meta">Rendered {html.escape(r.generated_utc)} '
             f"{html.escape(r.meta or 'from ' + r.directory)} — one file, readable offline.</p>"]
    # The first screen goes here, right under the title and the meta line.
    parts.append(first_screen(r))
    for s in r.sections:
        parts.append(f'<section class="part" id="{s.id}">')
        parts.append(f"<h2>{html.escape(s.title)}</h2>")
        if s.takeaway:
            parts.append(f'<p class="takeaway">{html.escape(s.takeaway)}</p>')
        if s.blocks:
            parts.append(f"<details><summary>Details: {html.escape(s.contents())}</summary>")
            parts += _blocks_html(s)
            parts.append("</details>")
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(p for p in parts if p)


# ---------------------------------------------------------------------------------------------
# Markdown


def _md_cell(cell) -> str:
    text, cls = (cell if isinstance(cell, tuple) else (cell, ""))
    text = str(text).replace("|", "\\|").replace("\n", " ")
    return f"**{text}**" if cls == BAD and text else text


def table_md(t: Table) -> str:
    al = _aligns(t)
    out = ["| " + " | ".join(h.replace("|", "\\|") or " " for h in t.header) + " |",
           "|" + "|".join(("--:" if (al[i] if i < len(al) else "l") == "r" else "---")
                          for i in range(len(t.header))) + "|"]
    for row in t.rows:
        cells = [_md_cell(c) for c in row] + [""] * (len(t.header) - len(row))
        out.append("| " + " | ".join(cells) + " |")
    if t.caption:
        out.append("")
        out.append(f"*{t.caption}*")
    if t.notes_intro:
        out += ["", t.notes_intro]
    if t.notes:
        out.append("")
        out += [f"{i}. {n}" for i, n in enumerate(t.notes, 1)]
    return "\n".join(out)


def to_markdown(r: Report) -> str:
    """The same sections, unfolded: heading, takeaway, then every table and note."""
    out = [f"# {r.title}", "",
           f"Rendered {r.generated_utc} {r.meta or 'from ' + r.directory}. Charts are in "
           "report.html; this file has the same sections and tables.", ""]
    for s in r.sections:
        out += [f"## {s.title}", ""]
        if s.takeaway:
            out += [s.takeaway, ""]
        for kind, x in s.blocks:
            if kind == "p":
                out += [x, ""]
            elif kind == "ul":
                out += [f"- {i}" for i in x] + [""]
            elif kind == "table":
                out += [table_md(x), ""]
            elif kind == "figure":
                out += [f"### {x.title}", ""]
                out += [("> Chart in report.html. " if x.svg else
                         f"> Chart not drawn: {x.error}. ") + (x.caption or ""), ""]
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------------------------------


def finite(x):
    """The summary with NaN and infinities as null: strict JSON readers reject them."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def render(results_dir: str, out_dir: str | None = None, charts: bool = True) -> Report:
    out_dir = out_dir or results_dir
    results = load_results(results_dir)
    charts_module, reason = None, "--no-charts"
    if charts:
        try:
            import charts as charts_module  # noqa: F811 — matplotlib is optional
        except ImportError as e:
            reason = (f"{e} (install python3-matplotlib and run with /usr/bin/python3, "
                      f"not {sys.executable})")
    report = content.build_report(results, charts_module, no_charts_reason=reason)
    os.makedirs(out_dir, exist_ok=True)
    write_atomically(os.path.join(out_dir, "report.html"), to_html(report))
    write_atomically(os.path.join(out_dir, "report.md"), to_markdown(report))
    write_atomically(os.path.join(out_dir, "summary.json"),
                     json.dumps(finite(report.summary), indent=1, ensure_ascii=False,
                                default=str, allow_nan=False) + "\n")
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Render report.html, report.md and summary.json.")
    ap.add_argument("results_dir", nargs="?", default=None,
                    help="directory with bench.json, locality.json, chaos.json "
                         "(default: reports/latest)")
    ap.add_argument("--out", help="where to write the report (default: the results directory)")
    ap.add_argument("--no-charts", action="store_true", help="tables only")
    args = ap.parse_args(argv)
    results_dir = args.results_dir or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "latest")
    if os.path.exists(results_dir) and not os.path.isdir(results_dir):
        print(f"render: {results_dir} is not a directory", file=sys.stderr)
        return 2
    try:
        report = render(results_dir, args.out, charts=not args.no_charts)
    except OSError as e:
        print(f"render: cannot write the report: {e}", file=sys.stderr)
        return 2
    out = args.out or results_dir
    missing = report.summary.get("missing") or []
    for m in missing:
        print(f"render: {m}", file=sys.stderr)
    not_drawn = {k: v for k, v in report.summary.get("charts", {}).items() if v != "drawn"}
    for k, v in not_drawn.items():
        print(f"render: chart {k}: {v}", file=sys.stderr)
    drawn = sum(1 for v in report.summary.get("charts", {}).values() if v == "drawn")
    print(f"render: wrote {os.path.join(out, 'report.html')}, report.md, summary.json "
          f"({drawn} charts" + (f"; partial: {len(missing)} gaps named in the report)"
                                if missing else ")"), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
