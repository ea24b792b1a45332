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

from dataclasses import dataclass
from typing import Any

import units as u
from document import BAD, GOOD, Section, Table
from inputs import PRODUCER as PRODUCER_OF
from inputs import (REAL_FAULTS_FILE, RealFaults, clock_injector_line,  # noqa: F401
                    load_real_faults, number)

FILE = REAL_FAULTS_FILE  # re-exported: gate_real.py and compare.py read the name here
PRODUCER = PRODUCER_OF[FILE]
MAX_FAULT_WORDS = 8  # a decision-table cell's words for its real systems' faults


def _verdict(part: dict) -> dict:
    return part.get("verdict") if isinstance(part.get("verdict"), dict) else {}


def _verdict_cell(part: dict) -> Any:
    v = _verdict(part)
    text = str(v.get("verdict", "–"))
    if v.get("passed") is True:
        return (text, GOOD)
    return (text, BAD) if v.get("passed") is False else text


def _evidence(part: dict) -> str:
    v = _verdict(part)
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


@dataclass(frozen=True)
class SchemeFaults:
    """What a decision-table row's real systems did under real-chaos's faults."""

    short: str  # one verdict per fault: "postgres-kill9: DUPLICATES with synchronous_commit=off"
    brief: str  # the fewest words, when the cell has no room: "faults: DUPLICATES"
    full: str  # every part: its fault, verdict, system and settings
    failed: bool  # a part's verdict failed
    clock: bool  # a part was a fault on the server's clock (`is_clock_fault`)


def is_clock_fault(part: dict) -> bool:
    """Whether a part's fault was on the server's clock: those parts probe the server's own
    clock against true time (`probes`: uuid-clock-back, postgres-clock-back, ...); a kill -9 or
    a restore takes none."""
    return bool(part.get("probes"))


def _settings_apart(failed: list[dict], kept: list[dict]) -> str:
    """The settings of the failed parts that no kept part of the same system had, from their
    labels ("synchronous_commit=off" beside a kept "synchronous_commit=on"); "" when a failed
    system has no kept part (the fault failed whatever its settings)."""
    words: list[str] = []
    for p in failed:
        others = [k for k in kept if k.get("system") == p.get("system")]
        if not others:
            return ""
        seen = {w for k in others for w in str(k.get("label") or "").split(", ")}
        words += [w for w in str(p.get("label") or "").split(", ") if w and w not in seen]
    return ", ".join(dict.fromkeys(words))


FAILED, UNSURE, PASSED = "failed", "unsure", "passed"


def _fault_verdict(parts: list[dict]) -> tuple[str, str]:
    """One fault's verdict over a row's parts and whether it FAILED, is UNSURE or PASSED: a
    failed part's, with the settings it failed at; else one whose verdict is neither ("no
    evidence", "fault not applied"); else the passed one ("kept", "available")."""
    failed = [p for p in parts if _verdict(p).get("passed") is False]
    if failed:
        kept = [p for p in parts if _verdict(p).get("passed") is True]
        apart = _settings_apart(failed, kept)
        return (str(_verdict(failed[0]).get("verdict", "?")) + (f" with {apart}" if apart
                                                               else ""), FAILED)
    unsure = [p for p in parts if _verdict(p).get("passed") is not True]
    return str(_verdict((unsure or parts)[0]).get("verdict", "?")), UNSURE if unsure else PASSED


def scheme_faults(rf: RealFaults | None, systems: set[str]) -> SchemeFaults | None:
    """The real systems `systems` under faults, one verdict per fault in the order they ran;
    None when no fault ran on them."""
    if rf is None or not rf.present:
        return None
    by_fault: dict[str, list[dict]] = {}
    for sc, p in rf.parts():
        if p.get("system") in systems:
            by_fault.setdefault(str(sc.get("scenario")), []).append(p)
    if not by_fault:
        return None
    verdicts = {name: _fault_verdict(ps) for name, ps in by_fault.items()}
    short = " · ".join(f"{name}: {w}" for name, (w, _) in verdicts.items())
    passed = sum(1 for _, st in verdicts.values() if st == PASSED)
    more = [f"{passed} more passed"] if passed else []
    # Too long: the ones not passed, the others counted; then each without its settings (the
    # note has them).
    for cut in (lambda w: w, lambda w: w.split(" with ")[0]):
        if len(short.split()) > MAX_FAULT_WORDS:
            short = " · ".join([f"{n}: {cut(w)}" for n, (w, st) in verdicts.items()
                                if st != PASSED] + more)
    worst = next((w for st in (FAILED, UNSURE, PASSED) for w, x in verdicts.values() if x == st))
    full = "; ".join(f"{name} {_verdict(p).get('verdict', '?')} ({p.get('system')}"
                     + (f" {p['label']}" if p.get("label") else "") + ")"
                     for name, ps in by_fault.items() for p in ps)
    return SchemeFaults(short, "faults: " + worst.split(" with ")[0],
                        "real systems under faults: " + full,
                        any(st == FAILED for _, st in verdicts.values()),
                        any(is_clock_fault(p) for ps in by_fault.values() for p in ps))


def _caption(scenario: dict, part: dict) -> str:
    events = "; ".join(f"{number(e.get('t_ms')) / 1000:.2f} s {e.get('what')}"
                       for e in part.get("events") or []
                       if isinstance(e, dict) and number(e.get("t_ms")) is not None)
    return (f"{scenario.get('description', '')}. Dotted lines: {events or 'no events'}. "
            f"Settings: {part.get('settings') or 'not recorded'}.")


def _failed(p: dict) -> bool:
    v = _verdict(p)
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
        v = _verdict(p)
        by.setdefault(f"{sc.get('scenario')} {v.get('verdict', '?')}", []).append(
            str(p.get("system")))
    return (f"Real systems under faults: {len(failed)} of {len(parts)} runs failed: "
            + "; ".join(f"{k} ({', '.join(v)})" for k, v in by.items()) + ".")


def figure_title(scenario: dict, part: dict) -> str:
    """One system through one fault: its verdict and figures."""
    v = _verdict(part)
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
