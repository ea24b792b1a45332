"""floors.py — the harness's floors in the report: what one ID costs each variant's thread, and
how much of that is above the floors the bench measured in the same run.

idbench-bench (bench/register.hpp) times floors through the variants' own interface, clock and
loop: floor/no-clock (the harness's own cost per ID: loop, virtual call, Id), floor/clock-once
(that plus one wall-clock read), and floor/clock-once+mutex and floor/clock-once+cas (that plus
one uncontended std::mutex or compare-exchange, at 1 thread only: the floors under mutex and
cas). It writes on every
generate/ and reference/ entry its ns_per_id (threads × wall span ÷ IDs) and its cost above the
first two floors' medians (above_no_clock_ns, above_clock_once_ns). What is above the
clock-once floor is the design's own cost; what is between the floors is the clock.

Thread safety: plain functions; nothing is shared.
"""
from __future__ import annotations

import units as u
from document import Table
from inputs import Bench, BenchRun

FLOOR_NAMES = {"no-clock": "floor: no clock read", "clock-once": "floor: one clock read",
               "clock-once+mutex": "floor: one clock read + one std::mutex",
               "clock-once+cas": "floor: one clock read + one compare-exchange"}


def _above(x: float | None) -> str:
    return u.DASH if x is None else f"{'+' if x >= 0 else '−'}{abs(x):.0f}"


def _cell(r: BenchRun | None, floor: bool) -> str:
    if r is None or r.error:
        return u.DASH
    ns = r.median("ns_per_id")
    if floor or ns is None:
        return u.duration_ns(ns)
    return (f"{u.duration_ns(ns)} ({_above(r.median('above_no_clock_ns'))} / "
            f"{_above(r.median('above_clock_once_ns'))})")


def floor_table(b: Bench) -> Table | None:
    """The floors' ns per ID, then every generate/ variant's and every reference's, with their
    cost above each floor; None when the run measured no floor."""
    floors = b.variants("floor")
    threads = b.threads("generate") or b.threads("floor")
    if not floors or not threads:
        return None
    rows = [[FLOOR_NAMES.get(f, f"floor: {f}")] + [_cell(b.find("floor", f, None, t), True)
                                                   for t in threads] for f in floors]
    for kind, label in (("generate", "{v} · {layout}"),
                        ("reference", "reference: {v} · {layout}")):
        for layout in b.layouts(kind):
            for v in b.variants(kind):
                cells = [_cell(b.find(kind, v, layout, t), False) for t in threads]
                if any(c != u.DASH for c in cells):
                    rows.append([label.format(v=v, layout=layout)] + cells)
    return Table(["ns per ID: floor, or variant · layout"]
                 + [f"{t} thread{'s' if t > 1 else ''}" for t in threads], rows,
                 caption="CPU-thread time per ID (threads × wall span ÷ IDs; median over "
                         "repetitions), and in brackets the cost above the no-clock floor / "
                         "above the one-clock-read floor measured at the same thread count in "
                         "the same run. The floors go through the variants' interface, clock "
                         "and loop: the no-clock floor is the harness's own cost, and what is "
                         "above the clock-once floor is the design's. A negative figure is "
                         "noise. The reference is Twitter's original mutex, its clock read "
                         "under the lock: bench-only, not a registry variant.")
