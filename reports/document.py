"""document.py — the report as a document: sections of paragraphs, lists, tables and figures.

content.py and decision.py fill it in; render.py writes it out as HTML and as Markdown, so the
two files cannot disagree.

Thread safety: plain values.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

@dataclass
class Table:
    header: list[str]
    rows: list[list[Any]]  # a cell is a str, or (str, css class) to mark it good/bad/warn
    align: str = ""  # one letter per column, "l" or "r"; default: first column left, rest right
    caption: str = ""
    compact: bool = False  # HTML: keep every cell but the last on one line


@dataclass
class Figure:
    id: str
    title: str
    caption: str  # how to read it: printed under the chart, and in Markdown instead of it
    draw: Callable[[], str] | None = None  # returns an SVG document
    svg: str | None = None
    error: str | None = None  # why it is not drawn


@dataclass
class Section:
    id: str
    title: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)  # ("p"|"ul"|"table"|"figure", x)

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(("ul", items))

    def table(self, t: Table) -> None:
        self.blocks.append(("table", t))

    def figure(self, f: Figure) -> None:
        self.blocks.append(("figure", f))


@dataclass
class Report:
    title: str
    generated_utc: str
    directory: str
    sections: list[Section]
    summary: dict

    def figures(self) -> list[Figure]:
        return [x for s in self.sections for kind, x in s.blocks if kind == "figure"]


GOOD, BAD, WARN = "good", "bad", "warn"  # a cell's css class: marked good/bad/warn
