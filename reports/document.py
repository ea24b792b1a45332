"""document.py — the report as a document: sections of paragraphs, lists, tables and figures.

content.py and decision.py fill it in; render.py writes it out as HTML and as Markdown, so the
two files cannot disagree.

A section opens with its takeaway, one sentence computed from the data; its blocks are the
details behind that sentence (HTML folds them, Markdown shows them). A table may carry numbered
notes: a cell holds a short value and "[n]", the explanation is note n under the table.

Thread safety: plain values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

NOTE_REF = re.compile(r"\[(\d{1,3})\]")  # "[3]": a reference to note 3 of the table


@dataclass
class Table:
    header: list[str]
    rows: list[list[Any]]  # a cell is a str, or (str, css class) to mark it good/bad/warn
    align: str = ""  # one letter per column, "l" or "r"; default: first column left, rest right
    caption: str = ""
    compact: bool = False  # HTML: keep every cell but the last on one line
    notes: list[str] = field(default_factory=list)  # note n is notes[n - 1]; cells say "[n]"
    notes_intro: str = ""  # what the columns mean, before the numbered notes


class Notes:
    """Numbered notes under a table: `ref(text)` gives "[n]", the same n for the same text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ref(self, text: str) -> str:
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"


def cell_text(cell: Any) -> str:
    return str(cell[0] if isinstance(cell, tuple) else cell)


def cell_notes(cell: Any, notes: list[str]) -> list[str]:
    """The notes a cell refers to, in the order it refers to them."""
    return [notes[int(n) - 1] for n in NOTE_REF.findall(cell_text(cell))
            if 0 < int(n) <= len(notes)]


def expanded(cell: Any, notes: list[str]) -> str:
    """The cell's text followed by the notes it refers to: what the cell says, in full."""
    return " ".join([cell_text(cell)] + cell_notes(cell, notes))


def expanded_cell(cell: Any, notes: list[str]) -> Any:
    """`expanded`, keeping the cell's mark: (text in full, css class) for a marked cell."""
    return (expanded(cell, notes), cell[1]) if isinstance(cell, tuple) else expanded(cell, notes)


@dataclass
class Figure:
    id: str
    title: str  # the chart's takeaway, computed from the data
    caption: str  # how to read it: printed under the chart, and in Markdown instead of it
    draw: Callable[[], str] | None = None  # returns an SVG document
    svg: str | None = None
    error: str | None = None  # why it is not drawn


@dataclass
class Section:
    id: str
    title: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)  # ("p"|"ul"|"table"|"figure", x)
    takeaway: str = ""  # the sentence the section opens with; its blocks are the details

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(("ul", items))

    def table(self, t: Table) -> None:
        self.blocks.append(("table", t))

    def figure(self, f: Figure) -> None:
        self.blocks.append(("figure", f))

    def contents(self) -> str:
        """What the details hold, for the line that unfolds them: "2 charts, 3 tables"."""
        counts = {}
        for kind, _ in self.blocks:
            word = {"figure": "chart", "table": "table"}.get(kind, "note")
            counts[word] = counts.get(word, 0) + 1
        return ", ".join(f"{n} {w}{'s' if n != 1 else ''}" for w, n in counts.items())


@dataclass
class Report:
    title: str
    generated_utc: str
    directory: str
    sections: list[Section]
    summary: dict
    meta: str = ""  # one line under the title: commit, machine, inputs

    @property
    def results_dir(self) -> str:
        """The results directory the report was built from (the first screen reads it)."""
        return self.directory

    def figures(self) -> list[Figure]:
        return [x for s in self.sections for kind, x in s.blocks if kind == "figure"]


GOOD, BAD, WARN = "good", "bad", "warn"  # a cell's css class: marked good/bad/warn
