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

Thread safety: pure functions of their inputs (the chart uses matplotlib's global state).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import units as u
from document import BAD, GOOD, Section, Table
from inputs import number

FILE = "real_chaos.json"
PRODUCER = "./run.sh (idbench real-chaos --out reports/latest/real_chaos.json)"


@dataclass
class RealFaults:
    present: bool = False
    scenarios: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def parts(self) -> list[tuple[dict, dict]]:
        """(scenario, part) for every part that is a JSON object."""
        return [(s, p) for s in self.scenarios for p in s.get("parts") or []
                if isinstance(p, dict)]


def load_real_faults(doc: Any) -> RealFaults:
    rf = RealFaults(present=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        rf.problems.append(f"{FILE} has no 'scenarios' list: the real systems under faults are "
                           "not shown")
        return rf
    rf.scenarios = [s for s in doc["scenarios"] if isinstance(s, dict)]
    if not rf.scenarios:
        rf.problems.append(f"{FILE} holds no scenario: nothing ran")
    return rf


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


def timeline_chart(part: dict) -> str:
    """IDs issued per server per bucket, failed requests, and the fault's events."""
    import matplotlib.pyplot as plt  # the caller only draws when matplotlib is there
    from charts import NODE_COLOURS, _svg

    t = part["timeline"]
    xs = [x / 1000 for x in t["t_ms"]]
    bucket_s = number(t.get("bucket_ms")) or 100
    fig, ax = plt.subplots(figsize=(8, 2.6))
    for i, ids in enumerate(t.get("ids_per_server") or []):
        ax.step(xs, ids, where="post", color=NODE_COLOURS[i % len(NODE_COLOURS)],
                label=f"server {i}")
    if any(t.get("failures") or []):
        ax.step(xs, t["failures"], where="post", color="#d62728", label="failed requests")
    for e in part.get("events") or []:
        x = number(e.get("t_ms"))
        if x is not None:
            ax.axvline(x / 1000, color="#555", linestyle=":", linewidth=1)
    ax.set_xlabel("seconds since the start")
    ax.set_ylabel(f"IDs per {bucket_s:g} ms")
    ax.legend(loc="upper right", fontsize="small")
    verdict = part.get("verdict") if isinstance(part.get("verdict"), dict) else {}
    ax.set_title(f"{part.get('system', '?')}: {verdict.get('verdict', '?')}", fontsize="medium")
    return _svg(fig)


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


def real_faults_section(rf: RealFaults, figures, summary: dict) -> Section:
    s = Section("real-faults", f"Real systems under faults ({FILE})")
    if not rf.present:
        s.p(f"Not run: {FILE} is missing ({PRODUCER}).")
        return s
    s.p("Real servers started by idbench, faults applied to them (a ticket server restored from "
        "an earlier copy, one of two ticket servers killed, mariadbd killed under AUTO_INCREMENT "
        "load, mariadbd's own clock stepped back under libfaketime); every ID checked. A "
        "duplicate here is what the real system did.")
    s.table(real_faults_table(rf))
    for i, (sc, p) in enumerate(rf.parts()):
        t = p.get("timeline")
        ok = isinstance(t, dict) and isinstance(t.get("t_ms"), list) and t["t_ms"]
        figures.add(s, f"real-fault-{i}", f"{sc.get('scenario')}: {p.get('system')}",
                    _caption(sc, p), lambda _charts, p=p: timeline_chart(p),
                    None if ok else "no timeline recorded")
    summary["real_faults"] = [{"scenario": sc.get("scenario"), "system": p.get("system"),
                               "verdict": (p.get("verdict") or {}).get("verdict"),
                               "passed": (p.get("verdict") or {}).get("passed")}
                              for sc, p in rf.parts()]
    return s
