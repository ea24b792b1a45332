#!/usr/bin/python3
"""first_screen.py — the report's first screen: a workload's question answered without scrolling.

    from first_screen import first_screen_html
    html = first_screen_html("reports/latest")   # render.py puts it right after the title

At 1,366 × 768 the first screen holds, side by side under the title:

  * the workload picker: engine, row size, writers, insert rate and the promises the IDs must
    keep, preset to common profiles (advise.PROFILES);
  * the ranked answer for the picked workload: rank, candidate, its 3–5 figures (each figure's
    label and source in its title), and the subjects ruled out with their reason;
  * the matrix: one row per subject (scheme or real system), one short value per cell (at most
    12 characters), coloured against the other rows, each cell's source in its title and every
    row's evidence in the folded block below it (#fs-evidence).

The picker runs in the page, offline: picker.js (inlined, <script id="idbench-picker">) over
advise.answers(facts) (embedded, <script type="application/json" id="idbench-answers">), doing
what advise.advise() does; the ranking itself is computed here, in Python, once per measured
point. Everything comes from the facts table (facts.py), so the page, `./run.sh advise` and
side_by_side.py agree figure for figure.

Colours: a numeric column (IDs/s, p99, leaf fill) marks the best third of the rows that have a
figure green and the worst third red, by mid-rank (ties share a place; all equal: no colour);
a promise column marks a kept promise green, a broken one red, a partial one amber.

first_screen_html never raises: a failure is one sentence in the page, not a missing report.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import html
import json
import os
import re
import sys
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import advise  # noqa: E402
import units as u  # noqa: E402
from facts import MEASURED_BY, Facts, load_facts  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PICKER_JS = os.path.join(HERE, "picker.js")
ANSWERS_ID = "idbench-answers"
MAX_CELL = 12  # characters in one matrix cell

GOOD, BAD, WARN = "fs-good", "fs-bad", "fs-warn"

# Short names of the promises, for the picker's check boxes (the full ones are their titles).
PROMISE_SHORT = {"k-sorted": "k-sorted", "unguessable": "unguessable", "64-bit": "64-bit",
                 "no-coordinator": "no coordinator", "clock-step-back": "clock step back"}


# ---------------------------------------------------------------------------------------------
# the matrix


@dataclass
class Cell:
    text: str  # at most MAX_CELL characters
    score: float | None = None  # larger is better; None: not compared
    detail: str = ""  # the full figure or reason, for the title and the evidence
    source: str = ""
    cls: str = ""  # GOOD, BAD, WARN or ""
    variant: str = ""  # the candidate the value is from, when the subject has several


@dataclass
class Column:
    key: str
    header: str
    title: str
    numeric: bool  # coloured by thirds; else by each cell's own verdict
    group: str = ""  # a header spanning adjacent columns with the same group


@dataclass
class MatrixRow:
    subject: str
    kind: str  # "scheme" | "system"
    summary: str
    cells: dict[str, Cell] = field(default_factory=dict)


def _fit(text: str) -> str:
    return text if len(text) <= MAX_CELL else text[:MAX_CELL - 1] + "…"


def _promise_cell(c: advise.Candidate, promise: str, yes: str, no: str) -> Cell:
    j = c.promises[promise]
    if j.ok is None:
        return Cell("?", None, j.why, j.source)
    return Cell(yes if j.ok else no, 1.0 if j.ok else 0.0, j.why, j.source,
                GOOD if j.ok else BAD)


def _bits(facts: Facts, c: advise.Candidate) -> Cell:
    j = c.promises["64-bit"]
    if j.ok is None:
        return Cell("?", None, j.why, j.source)
    width = j.why.split("-")[0]
    return Cell(width, 1.0 if j.ok else 0.0, f"{j.why} ({'fits' if j.ok else 'does not fit'} "
                "a 64-bit integer)", j.source, GOOD if j.ok else BAD)


def _sorted(facts: Facts, c: advise.Candidate) -> Cell:
    s = facts.described.get(c.variant) or facts.subjects.get(c.subject)
    j = c.promises["k-sorted"]
    ordering = s.ordering if s else ""
    if ordering in ("k_sorted", "monotone_per_stream"):
        return Cell("yes", 2.0, "k-sorted (time order within a bound)" if ordering == "k_sorted"
                    else "monotone: one counter hands out every ID in order", j.source, GOOD)
    if ordering == "k_sorted_by_tick":
        return Cell("per tick", 1.0, "k-sorted by clock tick only: IDs within one tick are "
                    "unordered", j.source, WARN)
    if ordering == "none":
        return Cell("no", 0.0, "unordered", j.source, BAD)
    return Cell("?", None, j.why, j.source)


def _coordinator(facts: Facts, c: advise.Candidate) -> Cell:
    s = facts.described.get(c.variant) or facts.subjects.get(c.subject)
    j = c.promises["no-coordinator"]
    if s is None:
        return Cell("?", None, j.why, j.source)
    if s.family == "counter":
        return Cell("database", 0.0, j.why, j.source, BAD)
    if s.node_ids not in ("", "none"):
        return Cell("worker id", 1.0, j.why + " (a lease or a configured id)", j.source, WARN)
    return Cell("none", 2.0, j.why, j.source, GOOD)


def _capacity(facts: Facts, c: advise.Candidate) -> Cell:
    f = c.capacity.get("1")
    value = f.value if f else None
    if f is None or value is None:
        return Cell("–", None, "not measured",
                    MEASURED_BY["bench" if c.kind == "scheme" else "real"])
    return Cell(_fit(f.text), value, f"{f.label}: {f.text}", f.source)


def _p99(facts: Facts, c: advise.Candidate, writers: int) -> Cell:
    """What advise.figures shows as p99: at the most threads in process, or a real system's at
    the client count nearest the most writers measured."""
    threads = facts.values("threads", variant=c.variant, metric="p99_ns")
    found = (facts.where(variant=c.variant, metric="p99_ns", threads=threads[-1]) if threads
             else facts.where(variant=c.variant, metric="p99_ns",
                              writers=advise.nearest(facts.values(
                                  "writers", variant=c.variant, metric="p99_ns"), writers)))
    if not found:
        return Cell("–", None, "not measured",
                    MEASURED_BY["bench" if c.kind == "scheme" else "real"])
    f = found[0]
    at = (f"{f.threads} thread{'s' if f.threads != 1 else ''}, in process" if f.threads
          else f"{f.writers} client{'s' if f.writers != 1 else ''}, real")
    return Cell(_fit(u.duration_ns(f.value)), -f.value,
                f"p99 per ID ({at}): {u.duration_ns(f.value)}", f.source)


def _fill(facts: Facts, c: advise.Candidate, row: int, writers: int) -> Cell:
    f = advise._index_fact(facts, c, "leaf_fill", "mariadb", row, writers)
    if f is None:
        return Cell("–", None, "not measured", MEASURED_BY["locality"])
    text = u.percent(f.value, 0)
    where = advise._where(f, c, "mariadb", row, writers)
    at_point = (f.row_bytes, f.writers) == (row, writers)
    return Cell(_fit(text if at_point else "≈" + text), f.value if at_point else None,
                f"leaf fill{where}: {text}" + ("" if at_point else
                                              " (measured at another point: not compared)"),
                f.source)


_DUPS = re.compile(r"([\d\u2009,]+) duplicates")
_STALL = re.compile(r"(\d+ %) issuing")


def _step_back(facts: Facts, c: advise.Candidate) -> Cell:
    """advise's clock-step-back judgement, in a word or two."""
    j = c.promises["clock-step-back"]
    if j.ok is None:
        return Cell("–", None, j.why, j.source)
    if j.ok:
        return Cell("no clock" if j.why == "reads no clock" else "ok", 3.0, j.why, j.source, GOOD)
    dups, stall = _DUPS.search(j.why), _STALL.search(j.why)
    if dups:
        n = int(re.sub(r"\D", "", dups.group(1)) or 0)
        return Cell(_fit(f"{u.count(n)} dups"), -float(n), j.why, j.source, BAD)
    if stall:
        return Cell(_fit(f"stalls {stall.group(1)}"), 1.0, j.why, j.source, WARN)
    return Cell("no", 0.0, j.why, j.source, BAD)


def _columns(facts: Facts, rows: list[int], writers: int) -> list[Column]:
    cols = [Column("bits", "bits", "ID width in bits; 64 fits a BIGINT column", False),
            Column("sorted", "sorted", "k-sorted: IDs sort by creation time within a bound",
                   False),
            Column("unguessable", "un\u00adguess\u00adable", advise.PROMISES["unguessable"], False),
            Column("coordinator", "coordi\u00adnator", "what must hand out or lease something: none, "
                   "a unique worker id per node, or a database for every ID", False),
            Column("rate", "IDs/s ×1", "IDs per second with one writer: one thread in process "
                   "for a scheme, one client with its round trip for a real system", True),
            Column("p99", "p99", "p99 latency per ID (a scheme at the most threads in "
                   "process, a real system at the most clients)", True)]
    for r in rows:
        cols.append(Column(f"fill:{r}", "key-only" if r == 0 else f"{r} B",
                           f"leaf fill of the primary key at {writers} writer"
                           f"{'s' if writers != 1 else ''}, "
                           + ("key-only rows" if r == 0 else f"{r} B rows")
                           + " (MariaDB InnoDB; the InnoDB model where the engine was not run)",
                           True, group=f"leaf fill, {writers} writer{'s' if writers != 1 else ''}"))
    cols.append(Column("step", "step back", advise.PROMISES["clock-step-back"], False))
    return cols


def _better(a: Cell, b: Cell) -> bool:
    return (a.score is not None) and (b.score is None or a.score > b.score)


def colour_by_thirds(cells: list[Cell]) -> None:
    """Green for the best third, red for the worst third, by mid-rank among the cells with a
    score; nothing when fewer than two differ."""
    scored = [c for c in cells if c.score is not None]
    n = len(scored)
    for c in cells:
        c.cls = ""
    if n < 2:
        return
    for c in scored:
        better = sum(1 for o in scored if o.score > c.score)
        ties = sum(1 for o in scored if o.score == c.score) - 1
        q = (better + ties / 2) / (n - 1)
        c.cls = GOOD if q < 1 / 3 else BAD if q > 2 / 3 else ""


def matrix(facts: Facts, answers_candidates: list[advise.Candidate] | None = None
           ) -> tuple[list[Column], list[MatrixRow]]:
    """One row per subject, one cell per column: each column's best value among the subject's
    candidates (a scheme's variants), with the variant it is from."""
    mrows, mws = advise.points(facts, "mariadb")
    writers = max(mws) if mws else 1
    rows = sorted({min(mrows), max(mrows)}) if mrows else [0]
    cols = _columns(facts, rows, writers)
    all_writers = sorted({w for e in advise.ENGINES for w in advise.points(facts, e)[1]} | {1})
    cands = answers_candidates or advise.candidates(facts, all_writers)
    by_subject: dict[str, list[advise.Candidate]] = {}
    for c in cands:
        by_subject.setdefault(c.subject, []).append(c)

    def cell(col: Column, c: advise.Candidate) -> Cell:
        k = col.key
        if k == "bits":
            return _bits(facts, c)
        if k == "sorted":
            return _sorted(facts, c)
        if k == "unguessable":
            return _promise_cell(c, "unguessable", "yes", "no")
        if k == "coordinator":
            return _coordinator(facts, c)
        if k == "rate":
            return _capacity(facts, c)
        if k == "p99":
            return _p99(facts, c, writers)
        if k.startswith("fill:"):
            return _fill(facts, c, int(k.split(":")[1]), writers)
        return _step_back(facts, c)

    out = []
    for name, s in facts.subjects.items():
        cs = by_subject.get(name) or []
        if not cs:
            continue
        row = MatrixRow(name, s.kind, s.summary)
        for col in cols:
            best, best_c = None, None
            for c in cs:
                x = cell(col, c)
                if best is None or _better(x, best):
                    best, best_c = x, c
            if len(cs) > 1:
                best.variant = best_c.variant
            row.cells[col.key] = best
        out.append(row)
    for col in cols:
        if col.numeric:
            colour_by_thirds([r.cells[col.key] for r in out])
    return cols, out


# ---------------------------------------------------------------------------------------------
# HTML

CSS = """
#idbench-first { font-size: 13px; margin: 4px 0 10px; box-sizing: border-box;
  /* wider than the report's text column where the window allows: the answer and the matrix
     side by side at 1,366 px, never wider than the window (no horizontal scroll) */
  width: min(1330px, calc(100vw - 36px));
  margin-left: calc((100% - min(1330px, calc(100vw - 36px))) / 2); }
#idbench-first table { width: auto; margin: 0; border-collapse: collapse; font-size: 12px; }
#idbench-first th, #idbench-first td { border: 0; border-bottom: 1px solid #e4e4e4;
  padding: 2px 5px; white-space: nowrap; background: none; position: static; }
#idbench-first th { font-weight: 600; color: #333; text-align: left; font-size: 11px;
  border-bottom: 1px solid #bbb; white-space: normal; line-height: 1.2; vertical-align: bottom; }
#idbench-first tr:nth-child(even) td { background: none; }
#idbench-first .fs-picker { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px;
  background: #f3f6fa; border: 1px solid #d5dde8; border-radius: 6px; padding: 6px 10px; }
#idbench-first .fs-picker label { white-space: nowrap; }
#idbench-first .fs-picker select, #idbench-first .fs-picker input { font: inherit;
  padding: 1px 3px; }
#idbench-first .fs-picker select[name=profile] { max-width: 380px; }
#idbench-first .fs-picker input[type=number] { width: 5em; }
#idbench-first .fs-picker input[name=rate] { width: 6.5em; }
#idbench-first .fs-picker .fs-musts { display: flex; gap: 12px; align-items: center; }
#idbench-first .fs-picker .fs-musts label { cursor: pointer; }
#idbench-first .fs-picker b { color: #234; }
#idbench-first .fs-invalid { outline: 2px solid #d93025; }
#idbench-first .fs-missing { color: #7a4b00; font-size: 12px; margin: 4px 0 0; }
#idbench-first .fs-grid { display: flex; flex-wrap: wrap; gap: 10px 22px; margin-top: 10px;
  align-items: flex-start; }
#idbench-first .fs-grid > .fs-left { flex: 1 1 520px; min-width: 0; }
#idbench-first .fs-grid > .fs-right { flex: 0 1 auto; min-width: 0; overflow-x: auto; }
#idbench-first h2.fs-h, #idbench-first .fs-ask { font-size: 15px; font-weight: 700;
  margin: 0 0 3px; padding: 0; border: 0; color: #1a1a1a; }
#idbench-first .fs-ask span { font-weight: 400; font-size: 13px; color: #333; }
#idbench-first .fs-used { color: #7a4b00; font-size: 11.5px; line-height: 1.3; }
#idbench-first .fs-ranking { margin-top: 4px; }
#idbench-first .fs-ranking td.fs-rank { font-weight: 700; text-align: right; color: #234; }
#idbench-first .fs-ranking tbody tr:first-child td { background: #eef7ee; }
#idbench-first .fs-ranking tbody tr:first-child td.fs-label { font-weight: 700; }
#idbench-first .fs-ranking td { font-variant-numeric: tabular-nums; }
#idbench-first .fs-clip { display: inline-block; max-width: 120px; overflow: hidden;
  text-overflow: ellipsis; vertical-align: bottom; }
#idbench-first .fs-label .fs-clip { max-width: 175px; }
#idbench-first .fs-tag { font-size: 9.5px; color: #555; border: 1px solid #bbb;
  border-radius: 3px; padding: 0 2px; margin-left: 4px; vertical-align: 1px; font-weight: 400; }
#idbench-first .fs-was { font-size: 10.5px; color: #8a4b00; margin-left: 6px; }
#idbench-first tr.fs-moved td { background: #fff8e6; }
#idbench-first tr.fs-hidden { display: none; }
#idbench-first .fs-more { font-size: 11px; margin-top: 3px; }
#idbench-first .fs-ruled { font-size: 11.5px; color: #444; margin-top: 6px; line-height: 1.4; }
#idbench-first .fs-ruled .fs-rlabel { font-weight: 600; color: #222; }
#idbench-first .fs-none { color: #a50e0e; font-weight: 600; }
#idbench-first td.fs-nm, #idbench-first .fs-nm { color: #999; }
#idbench-first td.fs-off { color: #666; font-style: italic; }
#idbench-first [title] { cursor: help; }
#idbench-first td.fs-good { background: #e3f3e6 !important; color: #0b5d1e; }
#idbench-first td.fs-bad { background: #fde4e6 !important; color: #a50e0e; }
#idbench-first td.fs-warn { background: #fff1d6 !important; color: #7a4b00; }
#idbench-first td.fs-diff { outline: 2px solid #7b3fe4; outline-offset: -2px; }
#idbench-first .fs-matrix td { text-align: right; font-variant-numeric: tabular-nums;
  padding-top: 1px; padding-bottom: 1px; }
#idbench-first .fs-matrix td:first-child { text-align: left; }
#idbench-first .fs-matrix td:first-child .fs-clip { max-width: 150px; }
#idbench-first .fs-matrix th { max-width: 64px; }
#idbench-first .fs-matrix th.fs-group { text-align: center; border-bottom: 1px solid #ddd;
  max-width: none; }
#idbench-first .fs-matrix tr.fs-kind td { color: #555; font-size: 11px; font-style: italic;
  border-bottom: 1px solid #ccc; padding-top: 4px; }
#idbench-first .fs-matrix a { color: inherit; text-decoration: none; border-bottom: 1px dotted
  #888; }
#idbench-first .fs-legend { font-size: 11px; color: #555; margin: 4px 0 0; max-width: 640px;
  line-height: 1.35; }
#idbench-first details { margin-top: 8px; font-size: 12px; }
#idbench-first details table td { white-space: normal; text-align: left; }
#idbench-first .fs-nojs { color: #555; }
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _slug(name: str) -> str:
    return "fs-ev-" + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "x")


def json_script(answers: dict, element_id: str) -> str:
    """The answers as an inert JSON block; `<` escaped so no text in it can close the script."""
    text = json.dumps(answers, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'<script type="application/json" id="{_e(element_id)}">{text}</script>'


def picker_script() -> str:
    with open(PICKER_JS, encoding="utf-8") as f:
        js = f.read()
    js = js.replace("</", "<\\/")  # nothing in it may close the script element
    return f'<script id="idbench-picker">\n{js}</script>'


def picker_html(answers: dict, json_id: str = ANSWERS_ID, more_rows: list[int] = ()) -> str:
    """The form; preset to the first profile, which the script then answers."""
    profiles = answers.get("profiles") or []
    p0 = profiles[0] if profiles else {"engine": "mariadb", "row_bytes": 0, "writers": 1,
                                       "rate": 0, "musts": []}
    opts = "".join(f'<option value="{i}"{" selected" if i == 0 else ""}>{_e(p["name"])}</option>'
                   for i, p in enumerate(profiles)) + '<option value="">custom</option>'
    engines = "".join(
        f'<option value="{_e(e)}"{" selected" if e == p0["engine"] else ""}>'
        f'{_e(answers["engine_labels"].get(e, e))}</option>' for e in answers["engines"])
    rows = sorted({r for pts in answers["points"].values() for r in pts["rows"]}
                  | set(more_rows) | {0, 100, 250, 1000})
    datalist = "".join(f'<option value="{r}">' for r in rows)
    musts = "".join(
        f'<label title="{_e(label)}"><input type="checkbox" name="must" value="{_e(p)}"'
        f'{" checked" if p in p0["musts"] else ""}> {_e(PROMISE_SHORT.get(p, p))}</label>'
        for p, label in answers["promises"].items())
    return (f'<form id="idbench-picker-form" class="fs-picker" data-idbench-picker '
            f'data-answers="{_e(json_id)}" autocomplete="off">'
            f'<b>Your workload</b>'
            f'<label>Profile <select name="profile">{opts}</select></label>'
            f'<label>Engine <select name="engine">{engines}</select></label>'
            f'<label title="payload bytes beside the key">Row <input name="row_bytes" '
            f'type="number" min="0" step="1" list="fs-rows" value="{p0["row_bytes"]}"> B</label>'
            f'<datalist id="fs-rows">{datalist}</datalist>'
            f'<label title="application servers or nodes writing at once">Writers '
            f'<input name="writers" type="number" min="1" step="1" value="{p0["writers"]}">'
            f'</label>'
            f'<label title="IDs per second, all writers together; 0: any">Rate <input '
            f'name="rate" type="number" min="0" step="any" value="{p0["rate"]:g}"> IDs/s</label>'
            f'<span class="fs-musts"><b>Must be</b>{musts}</span></form>')


def ranking_html(box_id: str = "idbench-ranking", json_id: str = ANSWERS_ID, name: str = "",
                 compare_with: str = "") -> str:
    attrs = f' data-name="{_e(name)}"' if name else ""
    attrs += f' data-compare-with="{_e(compare_with)}"' if compare_with else ""
    return (f'<div id="{_e(box_id)}" class="fs-answer" data-idbench-ranking '
            f'data-answers="{_e(json_id)}"{attrs}>'
            '<p class="fs-nojs">The ranking is drawn by the page\'s script (offline). Without '
            'it: <code>./run.sh advise --engine mariadb --writers 8 --row-bytes 250</code> '
            'prints the same answer.</p></div>')


def _cell_title(col: Column, c: Cell) -> str:
    who = f"{c.variant}: " if c.variant else ""
    return f"{col.header} — {who}{c.detail}\nsource: {c.source}"


def matrix_html(cols: list[Column], rows: list[MatrixRow],
                other: dict[str, MatrixRow] | None = None, names: tuple[str, str] = ("A", "B"),
                tags: dict[str, str] | None = None, links: bool = True,
                table_id: str = "idbench-matrix") -> str:
    """The matrix table: a header (grouped columns share a spanning header), then one row per
    subject, schemes first, then the real systems under a one-line divider.

    side_by_side.py passes `other` (the second run's rows by subject): a cell whose value
    differs there shows both values, marked (fs-diff), with both sources in its title; `tags`
    puts a word after a subject's name ("only in B")."""
    two = any(col.group for col in cols)
    span = ' rowspan="2"' if two else ""
    head1, head2 = [f"<th{span}>subject</th>"], []
    for i, col in enumerate(cols):
        th = f'<th title="{_e(col.title)}">{_e(col.header)}</th>'
        if not col.group:
            head1.append(th.replace("<th", f"<th{span}", 1))
            continue
        head2.append(th)
        if i == 0 or cols[i - 1].group != col.group:
            n = 1
            while i + n < len(cols) and cols[i + n].group == col.group:
                n += 1
            head1.append(f'<th colspan="{n}" class="fs-group">{_e(col.group)}</th>')
    out = [f'<table id="{_e(table_id)}" class="fs-matrix"><thead><tr>{"".join(head1)}</tr>'
           + (f'<tr>{"".join(head2)}</tr>' if head2 else "") + "</thead><tbody>"]
    kind = ""
    for r in rows:
        if r.kind != kind and (kind or r.kind == "system"):
            out.append(f'<tr class="fs-kind"><td colspan="{len(cols) + 1}">'
                       + ("real systems, measured as they run" if r.kind == "system"
                          else "schemes, measured in process") + "</td></tr>")
        kind = r.kind
        name = (f'<a class="fs-clip" href="#{_slug(r.subject)}">{_e(r.subject)}</a>' if links
                else f'<span class="fs-clip">{_e(r.subject)}</span>')
        tag = (tags or {}).get(r.subject)
        tag = f'<span class="fs-was">{_e(tag)}</span>' if tag else ""
        tds = [f'<td title="{_e(r.subject)}: {_e(r.summary)}">{name}{tag}</td>']
        o = (other or {}).get(r.subject)
        for col in cols:
            c = r.cells.get(col.key) or Cell("–", None, "not in this run's columns")
            oc = (o.cells.get(col.key) or Cell("–", None, "not in this run's columns")
                  ) if o is not None else None
            if oc is not None and oc.text != c.text:
                tds.append(f'<td class="{c.cls} fs-diff" title="{_e(names[0])}: '
                           f'{_e(_cell_title(col, c))}\n{_e(names[1])}: '
                           f'{_e(_cell_title(col, oc))}">{_e(c.text)} → {_e(oc.text)}</td>')
            else:
                cls = f' class="{c.cls}"' if c.cls else ""
                tds.append(f'<td{cls} title="{_e(_cell_title(col, c))}">{_e(c.text)}</td>')
        out.append(f'<tr data-subject="{_e(r.subject)}">{"".join(tds)}</tr>')
    out.append("</tbody></table>")
    return "".join(out)


def evidence_html(cols: list[Column], rows: list[MatrixRow]) -> str:
    out = ['<details id="fs-evidence"><summary>Evidence behind the matrix: every cell\'s '
           'figure and source</summary><table><thead><tr><th>subject</th><th>column</th>'
           '<th>value</th><th>from</th><th>source</th></tr></thead><tbody>']
    for r in rows:
        for i, col in enumerate(cols):
            c = r.cells[col.key]
            first = f' id="{_slug(r.subject)}"' if i == 0 else ""
            name = (f"<b>{_e(r.subject)}</b>" if i == 0 else "")
            out.append(f"<tr{first}><td>{name}</td><td>{_e(col.header)}"
                       f"{(' (' + _e(col.group) + ')') if col.group else ''}</td>"
                       f"<td>{_e(c.text)}</td><td>{_e((c.variant + ': ') if c.variant else '')}"
                       f"{_e(c.detail)}</td><td><code>{_e(c.source)}</code></td></tr>")
    out.append("</tbody></table></details>")
    return "".join(out)


LEGEND = ("Green: the best third of the rows (or a promise kept); red: the worst third (or a "
          "promise broken); amber: partly. ≈: measured at another point. –: not measured. "
          "Hover a cell for its source; a name links to its evidence.")


def _missing_html(facts: Facts) -> str:
    if not facts.missing:
        return ""
    return (f'<p class="fs-missing" title="{_e(chr(10).join(facts.missing))}">'
            f'{len(facts.missing)} input{"s" if len(facts.missing) != 1 else ""} missing: '
            f'{_e("; ".join(m.split(" (")[0] for m in facts.missing))}. The answer uses '
            "what was measured.</p>")


def first_screen_parts(facts: Facts) -> tuple[dict, list[Column], list[MatrixRow]]:
    answers = advise.answers(facts)
    cols, rows = matrix(facts)
    return answers, cols, rows


def fragment(facts: Facts) -> str:
    answers, cols, rows = first_screen_parts(facts)
    return (f"<style>{CSS}</style>"
            '<section id="idbench-first" aria-label="Which ID scheme for your workload">'
            + picker_html(answers) + _missing_html(facts)
            + '<div class="fs-grid"><div class="fs-left">' + ranking_html() + "</div>"
            + '<div class="fs-right"><h2 class="fs-h">Every subject at a glance</h2>'
            + matrix_html(cols, rows) + f'<p class="fs-legend">{_e(LEGEND)}</p></div></div>'
            + evidence_html(cols, rows) + json_script(answers, ANSWERS_ID) + picker_script()
            + "</section>")


def first_screen_html(results_dir: str) -> str:
    """The first screen of report.html for a results directory (never raises)."""
    try:
        return fragment(load_facts(results_dir))
    except Exception as e:  # noqa: BLE001 — the rest of the report must still be written
        return (f'<p class="missing" id="idbench-first">The first screen (workload picker, '
                f"ranking, matrix) was not drawn: {_e(type(e).__name__)}: {_e(e)}</p>")


if __name__ == "__main__":  # a quick look: the fragment alone, as a page
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "latest")
    sys.stdout.write("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>"
                     + first_screen_html(d) + "</body></html>\n")
