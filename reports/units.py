"""units.py — how numbers are written in the report and the gate: one place, so the HTML, the
Markdown and the gate's table agree digit for digit. Every function takes None (a figure the
results do not have) and returns an en dash for it.

Thread safety: pure functions.
"""
from __future__ import annotations

DASH = "–"


def si(x: float | None, unit: str = "") -> str:
    """3 significant digits with a k/M/G prefix: 4.1 M, 999 k, 12.3 G."""
    if x is None:
        return DASH
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor * 0.9995:
            return f"{float(f'{x / factor:.3g}'):g} {prefix}{unit}".rstrip()
    return f"{float(f'{x:.3g}'):g} {unit}".rstrip()


def duration_ns(x: float | None) -> str:
    """A latency given in ns, in the unit that keeps 3 digits: 41 ns, 1.2 µs, 4.05 ms."""
    if x is None:
        return DASH
    if x >= 1e9:
        return f"{x / 1e9:.3g} s"
    if x >= 1e6:
        return f"{x / 1e6:.3g} ms"
    if x >= 1e3:
        return f"{x / 1e3:.3g} µs"
    return f"{x:.0f} ns"


def duration_ms(x: float | None) -> str:
    if x is None:
        return DASH
    if x >= 999.5:  # 999.96 ms prints as 1 s, not "1000 ms"
        return f"{x / 1000:.3g} s"
    if x >= 10:
        return f"{x:.0f} ms"
    return f"{x:.2g} ms"


def percent(x: float | None, digits: int = 1) -> str:
    """A ratio as a percentage: 0.9375 → 93.8 %."""
    if x is None:
        return DASH
    v = 100 * x
    if v != 0 and abs(v) < 10 ** -digits:
        return f"{v:.1g} %"
    return f"{v:.{digits}f} %"


def ratio(x: float | None) -> str:
    if x is None:
        return DASH
    return f"{x:.3f}" if x >= 0.01 or x == 0 else f"{x:.2g}"


def count(x: float | None) -> str:
    """An integer count with thin thousands separators: 1 234 567."""
    if x is None:
        return DASH
    return f"{int(round(x)):,}".replace(",", "\u2009")


def fixed(x: float | None, digits: int = 2) -> str:
    return DASH if x is None else f"{x:.{digits}f}"


def change(x: float | None) -> str:
    """A relative change: +12.3 %, −30.0 %."""
    if x is None:
        return DASH
    return f"{100 * x:+.1f} %".replace("-", "−")
