"""worker_ids_section.py — the main report's section on worker ids leased from etcd (issue 15):
worker_ids.json (`idbench worker-ids --out`, ./run.sh worker-ids), shown with worker_ids.py's
own builders (the table of behaviours against faults, one timeline per run), so the report and
the standalone worker_ids.md cannot disagree. A missing or unreadable file is one sentence.

Thread safety: pure functions of their inputs (the charts use matplotlib's global state).
"""
from __future__ import annotations

import os

import worker_ids as wi
from document import BAD, GOOD, Section, Table

FILE = "worker_ids.json"
PRODUCER = "./run.sh worker-ids"


def _cell(run: dict):
    verdict, costs = wi.cell_parts(run)
    return ("; ".join([verdict] + costs), BAD if run["duplicates"] else GOOD)


def behaviours_table(runs: list) -> Table:
    return Table(["fault"] + wi.BEHAVIOURS, wi.table_rows(runs, _cell),
                 align="l" * (1 + len(wi.BEHAVIOURS)),
                 caption="Duplicates first (the gate fails on any), then what the behaviour "
                         "cost: IDs a zombie issued after losing its id, how long the deadline "
                         "fence stopped, the node that stopped longest, ids claimed (lease "
                         "churn) and the worker-id space used.")


def _svg(run: dict) -> str:
    from charts import _svg as svg_of  # drawn only when matplotlib is there
    return svg_of(wi.timeline_figure(run))


def worker_ids_section(directory: str, figures, summary: dict) -> Section:
    s = Section("worker-ids", f"Worker ids leased from etcd: zombies and fences ({FILE})")
    path = os.path.join(directory, FILE)
    try:
        if not os.path.exists(path):
            raise wi.InputError(f"Not run: {FILE} is missing ({PRODUCER})")
        runs = wi.load(path)
        table = behaviours_table(runs)
    except (wi.InputError, KeyError, TypeError, ValueError, AttributeError) as e:
        why = (str(e) if isinstance(e, wi.InputError) else
               f"{FILE} lacks a field the section needs ({type(e).__name__}: {e}): not shown")
        s.p(why + ".")
        summary["worker_ids"] = {"present": False, "problem": why}
        return s
    s.p(wi.INTRO.replace("**", ""))
    s.table(table)
    for r in runs:
        figures.add(s, f"worker-ids-{r['scenario']}-{r['behaviour']}",
                    f"{r['scenario']} · {r['behaviour']}: which node held which worker id when",
                    "One bar per worker id a node held (its generation after g, for in-id). "
                    "Grey: a fence stall or the injected pause; hatched: the node issued no ID; "
                    "red crosses: duplicates (a sample); dotted lines: the faults.",
                    lambda _charts, r=r: _svg(r))
    summary["worker_ids"] = {
        "present": True,
        "runs": [{"scenario": r["scenario"], "behaviour": r["behaviour"],
                  "duplicates": r["duplicates"], "workers_claimed": r["workers_claimed"]}
                 for r in runs]}
    return s
