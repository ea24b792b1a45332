"""derived_ids_section.py — the report's worker-id section: derived_ids.json (derived_ids_run.py)
read tolerantly; where each derived worker id breaks, one collision-probability chart per
derivation, and what a claimed id costs over time (issue 15, items 4 and 6).

    {"schema": "idbench-derived-ids/1", "context", "widths": [{"bits", "layouts"}],
     "plans": [{"name", "summary"}], "derivations": [{"name", "summary", "source"}],
     "curves": [{"derivation", "plan", "bits", "capacity", "n_1pct": {"n", "basis"},
                 "n_50pct", "exact_line": [[n, p]],
                 "points": [{"n", "exact", "trials", "collided", "p", "ci", "agrees"}]}],
     "claims": {"rows": [...], "generation_bits": [...], ...}}

Nothing here raises on a malformed file: what cannot be read becomes a sentence and a dash.

Thread safety: pure functions of their inputs (the charts use matplotlib's global state).
"""
from __future__ import annotations

import json
import os
from typing import Any

import units as u
from document import BAD, GOOD, WARN, Section, Table
from inputs import number

FILE = "derived_ids.json"
SCHEMA = "idbench-derived-ids/1"
PRODUCER = "./run.sh derived-ids"
ETCD_PENDING = "to be measured (issue 15, etcd)"


def load(directory: str) -> tuple[dict | None, str | None]:
    """(the document, None), or (None, why it cannot be shown)."""
    path = os.path.join(directory, FILE)
    if not os.path.exists(path):
        return None, f"Not run: {FILE} is missing ({PRODUCER})."
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"{FILE} cannot be read ({type(e).__name__}): the section is not shown."
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA \
            or not isinstance(doc.get("curves"), list):
        return None, f"{FILE} is not an {SCHEMA} document with 'curves': the section is not shown."
    return doc, None


def _objects(xs: Any) -> list[dict]:
    return [x for x in xs if isinstance(x, dict)] if isinstance(xs, list) else []


def _layouts(doc: dict) -> dict[int, str]:
    return {x.get("bits"): ", ".join(map(str, x.get("layouts") or []))
            for x in _objects(doc.get("widths"))}


def _threshold_n(curve: dict, key: str) -> int | None:
    t = curve.get(key) if isinstance(curve.get(key), dict) else {}
    return t["n"] if isinstance(t.get("n"), int) and not isinstance(t["n"], bool) else None


def _crossing(curve: dict, key: str) -> Any:
    t = curve.get(key) if isinstance(curve.get(key), dict) else {}
    n = _threshold_n(curve, key)
    if curve.get("derivation") == "lease":
        return ("never: refuses past 2^w", GOOD)
    if n is not None:
        text = _count(n) + (" (simulated)" if t.get("basis") == "simulated" else "")
        return (text, BAD) if n <= 2 else text
    cap = curve.get("capacity")
    return (f"none ≤ {_count(cap)}" if number(cap) is not None else "–", GOOD)


def _agreement(curve: dict) -> Any:
    pts = _objects(curve.get("points"))
    checked = [p for p in pts if p.get("agrees") is not None]
    if not checked:
        return "no closed form" if pts else "–"
    inside = sum(1 for p in checked if p.get("agrees") is True)
    text = f"{inside}/{len(checked)}"
    return (text, GOOD) if inside == len(checked) else (text, WARN)


def breaks_table(doc: dict) -> Table:
    layouts = _layouts(doc)
    rows = []
    for cv in _objects(doc.get("curves")):
        bits = cv.get("bits")
        rows.append([str(cv.get("derivation", "–")), str(cv.get("plan") or "any"),
                     f"{bits} ({layouts.get(bits, '?')})", _crossing(cv, "n_1pct"),
                     _crossing(cv, "n_50pct"), _agreement(cv)])
    return Table(["derivation", "address plan", "node bits (layouts)", "P ≥ 1 % from N",
                  "P ≥ 50 % from N", "exact inside the simulation's 99.9 % interval"], rows,
                 align="lllrrr",
                 caption="N: live processes, spread round-robin over nodes of "
                         f"{(doc.get('context') or {}).get('pods_per_node', '?')} pods. "
                         "'none ≤ N': not reached while the plan has room (N is its room or "
                         "the largest fleet computed). The exact column counts the simulated "
                         "fleet sizes whose closed-form probability lies inside the interval.")


def _rate(x: Any) -> str:
    """null in the file is a limit never reached."""
    return "never" if x is None else u.si(number(x))


def _count(x: Any) -> str:
    return u.count(number(x))


def claims_table(doc: dict) -> Table | None:
    cl = doc.get("claims") if isinstance(doc.get("claims"), dict) else None
    if not cl:
        return None
    rows = []
    for r in _objects(cl.get("rows")):
        until = r.get("restarts_until_exhausted") or {}
        per_h = r.get("restarts_per_h_exhausting") or {}
        renew = r.get("renewals_per_s") or {}
        measured = r.get("etcd_writes_per_s_measured")
        rows.append([_count(r.get("n")), _rate(until.get("never")), _rate(per_h.get("never")),
                     _rate(until.get("clean")), _rate(per_h.get("clean")),
                     _rate(per_h.get("lease_ttl_10s")), _rate(renew.get("ttl_10s")),
                     u.si(number(measured)) if number(measured) is not None else ETCD_PENDING])
    share, horizon = number(cl.get("crash_share")), number(cl.get("horizon_h"))
    return Table(["fleet N", "never released: restarts to exhaust",
                  f"… per hour, within {horizon:g} h" if horizon else "… per hour",
                  "released at clean exit: restarts", "… per hour",
                  "lease TTL 10 s: restarts per hour", "renewals/s (TTL 10 s)",
                  "etcd writes/s measured here"], rows, align="rrrrrrrr",
                 caption=f"Twitter's {cl.get('space', 1024)} ids. Restarts are fleet-wide; "
                         f"{'?' if share is None else f'{share * 100:g}'} % of exits "
                         "skip the shutdown hook (crash, SIGKILL, OOM kill). The lease column "
                         "assumes every exit is a crash, each dead holder's id held one TTL: "
                         "the rate at which the dead fill the space at one moment, not over "
                         "time. Renewals: one keep-alive per TTL/3 per holder (etcd's Go client).")


def generation_table(doc: dict) -> Table | None:
    cl = doc.get("claims") if isinstance(doc.get("claims"), dict) else {}
    rows = [[str(g.get("node_bits")), str(g.get("gen_bits")), _count(g.get("node_ids")),
             _count(g.get("claims_before_gen_repeats"))]
            for g in _objects(cl.get("generation_bits"))]
    if not rows:
        return None
    return Table(["node field bits", "generation bits", "node ids left",
                  "claims of one id before its generation repeats"], rows, align="rrrr",
                 caption="Each generation bit halves the node space; in exchange a zombie and "
                         "the new owner of its id differ in the ID unless the id was claimed a "
                         "multiple of 2^g times in between.")


def collision_chart(doc: dict, derivation: str) -> str:
    """P(collision) against N, one panel per address plan (one for the plan-free ones), one
    colour per node width: lines exact, dots simulated with their interval."""
    import matplotlib.pyplot as plt  # drawn only when matplotlib is there
    from charts import NODE_COLOURS, _svg

    curves = [c for c in _objects(doc.get("curves"))
              if c.get("derivation") == derivation and isinstance(c.get("bits"), int)]
    plans = list(dict.fromkeys(c.get("plan") for c in curves))
    fig, axes = plt.subplots(1, len(plans), figsize=(3.0 * len(plans) + 1.5, 2.8),
                             sharey=True, squeeze=False)
    bits_order = sorted({c["bits"] for c in curves})
    layouts = _layouts(doc)
    for ax, plan in zip(axes[0], plans):
        for cv in (c for c in curves if c.get("plan") == plan):
            colour = NODE_COLOURS[bits_order.index(cv["bits"]) % len(NODE_COLOURS)]
            line = [p for p in cv.get("exact_line") or [] if isinstance(p, list) and len(p) == 2]
            if line:
                ax.plot([p[0] for p in line], [p[1] for p in line], color=colour, linewidth=1.2,
                        label=f"{cv['bits']} bits ({layouts.get(cv['bits'], '')})")
            pts = [p for p in _objects(cv.get("points"))
                   if isinstance(p.get("ci"), list) and len(p["ci"]) == 2 and all(
                       number(x) is not None for x in (p.get("n"), p.get("p"), *p["ci"]))]
            ax.errorbar([p["n"] for p in pts], [p["p"] for p in pts],
                        yerr=[[max(0.0, p["p"] - p["ci"][0]) for p in pts],
                              [max(0.0, p["ci"][1] - p["p"]) for p in pts]],
                        fmt="o", markersize=2.5, color=colour, elinewidth=0.8,
                        label=None if line else f"{cv['bits']} bits (simulated)")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        for y in (0.01, 0.5):
            ax.axhline(y, color="#999", linestyle=":", linewidth=0.8)
        ax.set_title(plan or derivation, fontsize="medium")
        ax.set_xlabel("live processes N")
    axes[0][0].set_ylabel("P(two share an id)")
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="x-small")
    return _svg(fig)


def _caption(doc: dict, derivation: str) -> str:
    d = next((x for x in _objects(doc.get("derivations")) if x.get("name") == derivation), {})
    ctx = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    return (f"{d.get('summary', derivation)} ({d.get('source', '')}). Lines: the exact "
            "probability; dots: the simulated share of trials with a shared id, bars its "
            f"99.9 % interval ({ctx.get('trials', '?')} trials a point, fewer where one "
            f"trial is large; seed {ctx.get('seed', '?')}). Dotted: 1 % and 50 %.")


def derived_ids_section(directory: str, figures, summary: dict) -> Section:
    s = Section("derived-ids", f"Worker ids derived from the environment, against a lease ({FILE})")
    doc, problem = load(directory)
    if doc is None:
        s.p(problem)
        summary["derived_ids"] = {"present": False, "problem": problem}
        return s
    s.p("How fleets derive a Snowflake worker id without a coordinator, and the probability "
        "that two live processes then share one (a model, computed exactly and simulated, "
        "not a measurement): the low bits of the pod's IPv4 (Sonyflake's default), of its "
        "MAC (CAP), the process id (1 in every container), against the lowest free id "
        "claimed in etcd under a lease.")
    s.ul([f"{p.get('name')}: {p.get('summary')}" for p in _objects(doc.get("plans"))])
    s.table(breaks_table(doc))
    for d in _objects(doc.get("derivations")):
        name = str(d.get("name"))
        ok = any(c.get("derivation") == name and c.get("points")
                 for c in _objects(doc.get("curves")))
        figures.add(s, f"derived-ids-{name}", f"P(shared worker id): {name}", _caption(doc, name),
                    lambda _charts, name=name: collision_chart(doc, name),
                    None if ok else "no points computed")
    for t in (claims_table(doc), generation_table(doc)):
        if t is not None:
            s.table(t)
    summary["derived_ids"] = {
        "present": True,
        "breaks": [{"derivation": c.get("derivation"), "plan": c.get("plan"),
                    "bits": c.get("bits"), "n_1pct": _threshold_n(c, "n_1pct"),
                    "n_50pct": _threshold_n(c, "n_50pct")}
                   for c in _objects(doc.get("curves"))]}
    return s
