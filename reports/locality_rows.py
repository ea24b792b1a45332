"""locality_rows.py — leaf fill against row size: which generators' verdicts flip with the row.

Pure functions over a loaded Locality (inputs.py); the tables (content.py) and the chart
(charts.py) both use them, so the crossovers marked in the chart are the ones the text names.

  lines = fill_lines(loc, writers=8)   # {"mutex = cas": {0: 0.96, 100: 0.52, ...}, ...}
  crossings(lines)                     # [Crossing(a, b, lo, hi, x, fill), ...]
"""
from __future__ import annotations

from dataclasses import dataclass

from inputs import Locality, locality_generator, number, payload_of

# Fills closer than this (a tenth of a percentage point) are the same line: variants that
# issue the same IDs (mutex, CAS, thread-local) fill pages identically.
SAME = 0.001
# A crossover or flip is reported when the two lines differ by at least this much (two
# percentage points) on both sides: smaller swaps are within the spread of random streams.
CLEAR = 0.02


def writer_counts(loc: Locality) -> list[int]:
    """The writer counts the matrix measured, ascending."""
    ws = {number((m.get("stream") or {}).get("writers")) for m in loc.matrix}
    return sorted(int(w) for w in ws if w is not None)


def fill_lines(loc: Locality, writers: int) -> dict[str, dict[int, float]]:
    """Leaf fill per row size for each generator at `writers` writers (the baselines, which
    have one writer, join every writer count), generators with the same line merged into one
    label "a = b"."""
    raw: dict[str, dict[int, float]] = {}
    for m in loc.matrix:
        s = m.get("stream") or {}
        w = number(s.get("writers"))
        fill = number(m.get("avg_leaf_fill"))
        baseline = not s.get("variant")
        if fill is None or (w != writers and not baseline):
            continue
        raw.setdefault(locality_generator(m), {})[payload_of(m)] = fill
    merged: dict[str, dict[int, float]] = {}
    for name, line in raw.items():
        for label, other in list(merged.items()):
            if other.keys() == line.keys() and all(abs(other[k] - line[k]) < SAME for k in line):
                merged[f"{label} = {name}"] = merged.pop(label)
                break
        else:
            merged[name] = line
    return merged


@dataclass
class Crossing:
    above_first: str  # the line with the higher fill at the smaller row size
    below_first: str
    lo: int           # the row sizes between which the lines cross
    hi: int
    x: float          # where, by linear interpolation (bytes)
    fill: float
    fills_lo: tuple[float, float]  # (above_first, below_first) at lo
    fills_hi: tuple[float, float]  # at hi


def crossings(lines: dict[str, dict[int, float]]) -> list[Crossing]:
    """Every pair of lines whose order swaps between two neighbouring row sizes (by at least
    CLEAR on both sides), in order of row size."""
    out = []
    names = list(lines)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            xs = sorted(set(lines[a]) & set(lines[b]))
            for lo, hi in zip(xs, xs[1:]):
                d_lo = lines[a][lo] - lines[b][lo]
                d_hi = lines[a][hi] - lines[b][hi]
                if abs(d_lo) < CLEAR or abs(d_hi) < CLEAR or (d_lo > 0) == (d_hi > 0):
                    continue
                top, bot = (a, b) if d_lo > 0 else (b, a)
                t = abs(d_lo) / (abs(d_lo) + abs(d_hi))
                x = lo + t * (hi - lo)
                fill = lines[a][lo] + t * (lines[a][hi] - lines[a][lo])
                out.append(Crossing(top, bot, lo, hi, x, fill,
                                    (lines[top][lo], lines[bot][lo]),
                                    (lines[top][hi], lines[bot][hi])))
    return sorted(out, key=lambda c: (c.x, c.above_first, c.below_first))


def flips(lines: dict[str, dict[int, float]], frm: int, to: int) -> list[Crossing]:
    """Pairs of lines whose order at row size `frm` (key-only) is reversed at `to`."""
    out = []
    names = [n for n in lines if frm in lines[n] and to in lines[n]]
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            d_frm, d_to = lines[a][frm] - lines[b][frm], lines[a][to] - lines[b][to]
            if abs(d_frm) < CLEAR or abs(d_to) < CLEAR or (d_frm > 0) == (d_to > 0):
                continue
            top, bot = (a, b) if d_frm > 0 else (b, a)
            out.append(Crossing(top, bot, frm, to, float("nan"), float("nan"),
                                (lines[top][frm], lines[bot][frm]),
                                (lines[top][to], lines[bot][to])))
    return out
