#!/usr/bin/python3
"""gate_campaign_table.py — the table of the gate's measured operating characteristics, from
the campaign.jsonl reports/gate_campaign.sh writes (it measures; this formats).

    reports/gate_campaign_table.py OUT_DIR/campaign.jsonl > OUT_DIR/campaign.md
"""
from __future__ import annotations

import json
import re
import statistics
import sys

KINDS = {"aa": "A/A: same revision both sides (full gate)",
         "planted-time": "planted ~10 % slowdown of one variant's 1-thread next() (full gate)",
         "planted-icount": "planted ~5 % more instructions per ID (instruction-count gate)"}


def change_of(rows: list[str], suffix: str) -> float | None:
    """The paired change (interleaved row) or the instruction change (icount row), as a
    fraction, of the row whose first cell ends with `suffix`."""
    for r in rows:
        cells = [c.strip() for c in r.strip("|").split("|")]
        if cells and cells[0].endswith(suffix):
            m = re.match(r"([+−-])(\d+(?:\.\d+)?) %", cells[3])  # the change column
            if m:
                return (-1 if m.group(1) in "−-" else 1) * float(m.group(2)) / 100
    return None


def main(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        runs = [json.loads(line) for line in f if line.strip()]
    if not runs:
        print("gate_campaign_table: no comparisons in " + path, file=sys.stderr)
        return 2
    variant = runs[0].get("variant", "?")
    out = [f"| comparisons | runs | gate failed | caught by instruction count | caught by "
           f"1-thread timing | median change of {variant} (timing · instructions) | load "
           "average (median, range) | a compiler running beside |",
           "|---|---|---|---|---|---|---|---|"]
    for kind, label in KINDS.items():
        rs = [r for r in runs if r["kind"] == kind]
        if not rs:
            continue
        failed = sum(1 for r in rs if r["status"] == 1)
        loads = [r["load_1m"] for r in rs]
        timing = [c for r in rs if (c := change_of(r["rows"], "/threads:1")) is not None]
        instr = [c for r in rs if (c := change_of(r["rows"], variant)) is not None]
        fmt = lambda xs: f"{statistics.median(xs):+.1%}" if xs else "–"  # noqa: E731
        out.append(f"| {label} | {len(rs)} | {failed} ({failed / len(rs):.0%}) | "
                   f"{sum(r['caught_by_icount'] for r in rs)} | "
                   f"{sum(r['caught_by_timing'] for r in rs)} | {fmt(timing)} · {fmt(instr)} | "
                   f"{statistics.median(loads):.1f} ({min(loads):.1f}–{max(loads):.1f}) | "
                   f"{sum(1 for r in rs if r['compilers'] > 0)} of {len(rs)} |")
    other = [f for r in runs if r["kind"] == "aa" for f in r["failures"]]
    if other:
        out += ["", "A/A failures: " + "; ".join(other[:6])]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else 2)
