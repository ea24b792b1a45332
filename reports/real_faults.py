"""real_faults.py — the real systems under faults in the report: `idbench real-chaos --out`
(real/faults.hpp) read tolerantly, one table row per system and scenario, one timeline per
fault.

    {"context", "scenarios": [{"scenario", "description",
                               "verdict": {"verdict", "passed", "evidence", "findings"},
                               "parts": [{"system", "settings", "verdict", "figures",
                                          "events": [{"t_ms", "what"}],
                                          "timeline": {"bucket_ms", "t_ms", "ids_per_server",
                                                       "failures", ...}}]}]}

A verdict is shown as measured: DUPLICATES from a restored ticket server is the finding, not a
defect of the report. Nothing here raises on a malformed file: what cannot be read becomes a
problem sentence and a dash.

Thread safety: pure functions of their inputs (charts.real_fault_timeline draws).
"""
from __future__ import annotations

from typing import Any

import units as u
from document import BAD, GOOD, Section, Table
from inputs import PRODUCER as PRODUCER_OF
from inputs import (REAL_FAULTS_FILE, RealFaults, clock_injector_line,  # noqa: F401
                    load_real_faults, number)

FILE = REAL_FAULTS_FILE  # re-exported: gate_real.py and compare.py read the name here
PRODUCER = PRODUCER_OF[FILE]


def _verdict_cell(part: dict) -> Any:
    v = part.get("verdict") if isinstance(part.get("verdict"), dict) else {}
    text = str(v.get("verdict", "–"))
    if v.get("passed") is True:
        return (text, GOOD)
    return (text, BAD) if v.get("passed") is False else text


def _evidence(part: dict) -> str:
    v = part.get("verdict") if isinstance(part.get("verdict"), dict) else {}
    return str(v.get("evidence") or "–")


def real_faults_table(rf: RealFaults) -> Table:
    rows = []
    for s, p in rf.parts():
        f = p.get("figures") if isinstance(p.get("figures"), dict) else {}
        avail = number(f.get("availability"))
        rows.append([str(s.get("scenario", "–")), str(p.get("system", "–")), _verdict_cell(p),
                     u.count(number(f.get("ids"))), u.count(number(f.get("duplicates"))),
                     u.percent(avail, 2), u.duration_ms(number(f.get("longest_gap_ms"))),
                     _evidence(p)])
    return Table(["scenario", "system", "verdict", "IDs", "duplicates", "availability",
                  "longest gap", "evidence"], rows, align="lllrrrrl",
                 caption="Each row is one real system through one fault, as measured; the "
                         "server settings are in each timeline's caption.")


def systems_of_scheme(real, scheme: str, variants: tuple[str, ...]) -> set[str]:
    """The real systems of a decision-table row, as the bench recorded their descriptions: same
    scheme (in any case), or the real counterpart of one of the row's variants."""
    described = [x for x in (real.systems or []) + (real.cells or []) if isinstance(x, dict)]
    return {str(x.get("name") or x.get("system")) for x in described
            if (x.get("name") or x.get("system"))
            and (str(x.get("scheme", "")).lower() == scheme.lower()
                 or x.get("lower_bound_variant") in variants)}


def scheme_fault_text(rf: RealFaults | None, systems: set[str]) -> tuple[str, bool] | None:
    """"real systems: ticket-restore DUPLICATES (mariadb-ticket-pair-myisam); ..." and whether
    any part failed; None when no fault ran on these systems."""
    if rf is None or not rf.present:
        return None
    parts = [(sc, p) for sc, p in rf.parts() if p.get("system") in systems]
    if not parts:
        return None
    texts, failed = [], False
    for sc, p in parts:
        v = p.get("verdict") if isinstance(p.get("verdict"), dict) else {}
        failed |= v.get("passed") is False
        texts.append(f"{sc.get('scenario')} {v.get('verdict', '?')} ({p.get('system')})")
    return "real systems under faults: " + "; ".join(texts), failed


def _caption(scenario: dict, part: dict) -> str:
    events = "; ".join(f"{number(e.get('t_ms')) / 1000:.2f} s {e.get('what')}"
                       for e in part.get("events") or []
                       if isinstance(e, dict) and number(e.get("t_ms")) is not None)
    return (f"{scenario.get('description', '')}. Dotted lines: {events or 'no events'}. "
            f"Settings: {part.get('settings') or 'not recorded'}.")


def _failed(p: dict) -> bool:
    v = p.get("verdict") if isinstance(p.get("verdict"), dict) else {}
    return v.get("passed") is False


def real_faults_takeaway(rf: RealFaults) -> str:
    parts = rf.parts()
    if not parts:
        return "Real systems under faults: nothing ran."
    failed = [(sc, p) for sc, p in parts if _failed(p)]
    if not failed:
        return (f"Real systems under faults: every one of {len(parts)} runs kept its IDs "
                "unique.")
    by: dict[str, list[str]] = {}
    for sc, p in failed:
        v = p.get("verdict") if isinstance(p.get("verdict"), dict) else {}
        by.setdefault(f"{sc.get('scenario')} {v.get('verdict', '?')}", []).append(
            str(p.get("system")))
    return (f"Real systems under faults: {len(failed)} of {len(parts)} runs failed: "
            + "; ".join(f"{k} ({', '.join(v)})" for k, v in by.items()) + ".")


def figure_title(scenario: dict, part: dict) -> str:
    """One system through one fault: its verdict and figures."""
    v = part.get("verdict") if isinstance(part.get("verdict"), dict) else {}
    f = part.get("figures") if isinstance(part.get("figures"), dict) else {}
    dups = number(f.get("duplicates"))
    return (f"{scenario.get('scenario')} · {part.get('system')}: {v.get('verdict', '?')} — "
            f"{u.count(dups)} duplicate{'s' if dups != 1 else ''} in "
            f"{u.count(number(f.get('ids')))} IDs, availability "
            f"{u.percent(number(f.get('availability')), 1)}")


def real_faults_section(rf: RealFaults, figures, summary: dict,
                        problem: str | None = None) -> Section:
    """The section from real_chaos.json as inputs.py loaded it; `problem` is the one sentence
    saying why it could not be read (absent, or not JSON)."""
    s = Section("real-faults", f"Real systems under faults ({FILE})")
    if problem or not rf.present:
        s.takeaway = (problem or f"{FILE} is missing (written by {PRODUCER})").rstrip(".") + "."
        return s
    s.takeaway = real_faults_takeaway(rf)
    s.p(clock_injector_line(rf.config, FILE))
    s.p("Real servers started by idbench, faults applied to them (a ticket server restored from "
        "an earlier copy, one of two ticket servers killed, mariadbd killed under AUTO_INCREMENT "
        "load, mariadbd's own wall clock stepped back); every ID checked. A duplicate here is "
        "what the real system did.")
    s.table(real_faults_table(rf))
    for i, (sc, p) in enumerate(rf.parts()):
        t = p.get("timeline")
        ok = isinstance(t, dict) and isinstance(t.get("t_ms"), list) and t["t_ms"]
        figures.add(s, f"real-fault-{i}", figure_title(sc, p), _caption(sc, p),
                    lambda c, p=p: c.real_fault_timeline(p),
                    None if ok else "no timeline recorded")
    summary["real_faults"] = [{"scenario": sc.get("scenario"), "system": p.get("system"),
                               "verdict": (p.get("verdict") or {}).get("verdict"),
                               "passed": (p.get("verdict") or {}).get("passed")}
                              for sc, p in rf.parts()]
    return s
