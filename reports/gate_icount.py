"""gate_icount.py — the regression gate's instruction-count rule: instructions per ID of each
variant's 1-thread next() (icount.json from bench/run_icount.py).

An instruction count under valgrind does not move between runs of the same binary (measured:
identical to the instruction on every rerun, README "Regression gate"), so its threshold is
tight: NEW regresses when a variant's instructions per ID grew by more than 1 %
(--icount-threshold, IDBENCH_GATE_ICOUNT). 1 % and not 0: a perf counter (the method used
where valgrind is missing) skids by a few instructions per thousand calls, and a compiler's
choice can move a count by an instruction or two without anyone being slower.

Each variant is shown beside its floor (a minimal design of its scheme, counted in the same
run: "floors" in icount.json) and its ratio to it, so a reader sees how much of a count is the
design and how much the harness's generality; a regression grows the ratio as well, since the
floor is untouched. The floors are idbench code too and are gated like the variants.

Counts from different methods (valgrind vs perf), clocks or layouts are not comparable: they
are shown, not gated, and a note says why.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FILE = "icount.json"
PRODUCER = "bench/run_icount.py BIN_DIR DIR/icount.json (./run.sh compare --revs runs it)"


@dataclass
class Icount:
    present: bool = False
    context: dict = field(default_factory=dict)
    per_id: dict[str, float] = field(default_factory=dict)  # variant → instructions per ID
    floor: dict[str, str] = field(default_factory=dict)  # variant → its floor's name
    floors: dict[str, float] = field(default_factory=dict)  # floor → instructions per ID
    problems: list[str] = field(default_factory=list)


def load_icount(doc: Any) -> Icount:
    ic = Icount(present=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("variants"), list):
        ic.problems.append(f"{FILE} has no 'variants' list")
        return ic
    ic.context = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    floors = doc.get("floors") if isinstance(doc.get("floors"), list) else []  # older files: none
    for kind, rows, into in (("floor", floors, ic.floors), ("variant", doc["variants"], ic.per_id)):
        for v in rows:
            per = v.get("instructions_per_id") if isinstance(v, dict) else None
            if isinstance(per, (int, float)) and not isinstance(per, bool) and per > 0:
                into[str(v.get("name"))] = float(per)
                if isinstance(v.get("floor"), str):
                    ic.floor[str(v.get("name"))] = v["floor"]
            else:
                ic.problems.append(f"{FILE}: a {kind} without instructions_per_id ({v!r:.60})")
    for name, floor in ic.floor.items():
        if floor not in ic.floors:
            ic.problems.append(f"{FILE}: {name}'s floor {floor} was not counted")
    return ic


def ratio(ic: Icount, name: str) -> float | None:
    """A variant's instructions per ID ÷ its floor's, or None when it has none."""
    floor = ic.floors.get(ic.floor.get(name, ""))
    return ic.per_id[name] / floor if floor and name in ic.per_id else None


def comparable(base: Icount, new: Icount) -> str | None:
    """None when the counts can be gated against each other, else the reason they cannot."""
    for key in ("method", "clock", "layout"):
        b, n = base.context.get(key), new.context.get(key)
        if b != n:
            return f"BASE counted with {key} {b!r}, NEW with {n!r}"
    return None


@dataclass
class IcountRow:
    variant: str
    base: float
    new: float
    change: float
    verdict: str  # "REGRESSION", "improved", "same", "not gated"
    floor: str | None = None  # the floor's name; floors themselves have none
    base_ratio: float | None = None  # base ÷ BASE's floor
    new_ratio: float | None = None  # new ÷ NEW's floor


def compare_icount(base: Icount, new: Icount, threshold: float) -> tuple[list[IcountRow], str | None]:
    """One row per floor and variant in both; the reason nothing is gated, if any."""
    why_not = comparable(base, new)
    rows = []
    for name, n in list(new.floors.items()) + list(new.per_id.items()):
        b = base.floors.get(name) if name in new.floors else base.per_id.get(name)
        if b is None:
            continue
        change = (n - b) / b
        if why_not:
            verdict = "not gated"
        elif change > threshold:
            verdict = "REGRESSION"
        elif change < -threshold:
            verdict = "improved"
        else:
            verdict = "same"
        rows.append(IcountRow(name, b, n, change, verdict, new.floor.get(name),
                              ratio(base, name), ratio(new, name)))
    return rows, why_not
