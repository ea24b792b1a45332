"""worker_ids_section.py — the main report's section on worker ids leased from etcd:
worker_ids.json (`idbench worker-ids --out`, ./run.sh worker-ids) as inputs.py loaded and
checked it, shown with worker_ids.py's own builders (the table of behaviours against faults,
one timeline per run, drawn by charts.worker_ids_timeline), so the report and the standalone
worker_ids.md cannot disagree. A missing or unreadable file is one sentence.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import units as u
import worker_ids as wi
from document import BAD, GOOD, Section, Table
from inputs import PRODUCER as PRODUCERS
from inputs import WORKER_IDS_FILE

FILE = WORKER_IDS_FILE
PRODUCER = PRODUCERS[FILE]


def _cell(run: dict):
    verdict, costs = wi.cell_parts(run)
    return ("; ".join([verdict] + costs), BAD if wi.failed(run) else GOOD)


def behaviours_table(runs: list) -> Table:
    return Table(["fault"] + wi.BEHAVIOURS, wi.table_rows(runs, _cell),
                 align="l" * (1 + len(wi.BEHAVIOURS)),
                  caption="The run's verdict and its duplicates first (the gate fails on any "
                         "duplicate), then what the behaviour cost: IDs a zombie issued after "
                         "losing its id, how long the deadline fence stopped, the node that "
                         "stopped longest, ids claimed (lease churn) and the worker-id space "
                         "used.")


def worker_ids_takeaway(runs: list) -> str:
    """Which behaviours issued duplicates under how many faults."""
    faults = list(dict.fromkeys(r["scenario"] for r in runs))
    dup = {b: sum(1 for r in runs if r["behaviour"] == b and r["duplicates"])
           for b in dict.fromkeys(r["behaviour"] for r in runs)}
    bad = [f"{b} under {n} of {len(faults)} fault{'s' if len(faults) != 1 else ''}"
           for b, n in dup.items() if n]
    clean = [b for b, n in dup.items() if not n]
    if not bad:
        return (f"Leased worker ids: no behaviour issued a duplicate under "
                f"{len(faults)} fault{'s' if len(faults) != 1 else ''}.")
    return ("Leased worker ids: duplicates from " + ", ".join(bad)
            + ("; " + " and ".join(clean) + " issued none" if clean else "") + ".")


def figure_title(run: dict) -> str:
    worst = max(run["nodes"], key=lambda n: n["unavailable_ms"]) if run["nodes"] else None
    return (f"{run['scenario']} · {run['behaviour']}: "
            + (f"{u.count(run['duplicates'])} duplicates" if run["duplicates"] else "no duplicate")
            + (f"; node {worst['node']} stopped {worst['unavailable_ms']:.0f} ms"
               if worst else ""))


def worker_ids_section(runs: list | None, problem: str | None, figures, summary: dict) -> Section:
    """The section from worker_ids.json's runs as inputs.py loaded them, or the one sentence
    saying why there are none (`problem`)."""
    s = Section("worker-ids", f"Worker ids leased from etcd: zombies and fences ({FILE})")
    why = problem or (None if runs else f"{FILE} is missing (written by {PRODUCER})")
    if why is None:
        try:
            table = behaviours_table(runs)
            takeaway = worker_ids_takeaway(runs)
            titles = [figure_title(r) for r in runs]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            why = f"{FILE} lacks a field the section needs ({type(e).__name__}: {e}): not shown"
    if why is not None:
        s.takeaway = why.rstrip(".") + "."
        summary["worker_ids"] = {"present": False, "problem": why}
        return s
    s.takeaway = takeaway
    s.p(wi.INTRO.replace("**", ""))
    s.table(table)
    for r, title in zip(runs, titles):
        figures.add(s, f"worker-ids-{r['scenario']}-{r['behaviour']}", title,
                    "Which node held which worker id when: one bar per worker id a node held "
                    "(its generation after g, for in-id). Grey: a fence stall or the injected "
                    "pause; hatched: the node issued no ID; red crosses: duplicates (a sample); "
                    "dotted lines: the faults.",
                    lambda c, r=r: c.worker_ids_timeline(r))
    summary["worker_ids"] = {
        "present": True,
        "runs": [{"scenario": r["scenario"], "behaviour": r["behaviour"],
                  "verdict": wi.verdict_word(r),
                  "duplicates": r["duplicates"], "workers_claimed": r["workers_claimed"]}
                 for r in runs]}
    return s
