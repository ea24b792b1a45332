"""derived_ids_section.py — the report's section on worker ids derived from the environment:
derived_ids.json (derived_ids_run.py), as inputs.py loaded and checked it; where each derived
worker id breaks, one collision-probability chart per derivation (charts.collision_chart), and
what a claimed id costs over time.

    {"schema": "idbench-derived-ids/1", "context", "widths": [{"bits", "layouts"}],
     "plans": [{"name", "summary"}], "derivations": [{"name", "summary", "source"}],
     "curves": [{"derivation", "plan", "bits", "capacity", "n_1pct": {"n", "basis"},
                 "n_50pct", "exact_line": [[n, p]],
                 "points": [{"n", "exact", "trials", "collided", "p", "ci", "agrees"}]}],
     "claims": {"rows": [...], "generation_bits": [...], ...}}

Nothing here raises on a malformed field: what cannot be read becomes a sentence and a dash.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from typing import Any

import units as u
from document import BAD, GOOD, WARN, Section, Table
from inputs import DERIVED_IDS_FILE, DERIVED_IDS_SCHEMA, PRODUCER as PRODUCERS, number

FILE = DERIVED_IDS_FILE
SCHEMA = DERIVED_IDS_SCHEMA
PRODUCER = PRODUCERS[FILE]
# The etcd column until a run measures it (worker_ids.json's rates).
ETCD_PENDING = "not measured (./run.sh worker-ids)"


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


def _caption(doc: dict, derivation: str) -> str:
    d = next((x for x in _objects(doc.get("derivations")) if x.get("name") == derivation), {})
    ctx = doc.get("context") if isinstance(doc.get("context"), dict) else {}
    return (f"{d.get('summary', derivation)} ({d.get('source', '')}). Lines: the exact "
            "probability; dots: the simulated share of trials with a shared id, bars its "
            f"99.9 % interval ({ctx.get('trials', '?')} trials a point, fewer where one "
            f"trial is large; seed {ctx.get('seed', '?')}). Dotted: 1 % and 50 %.")


def reference_bits(doc: dict) -> int | None:
    """The node width the takeaways read: Twitter's (the width whose layouts name twitter),
    else the width the most layouts use; None when the document names no width."""
    widths = [w for w in _objects(doc.get("widths")) if isinstance(w.get("bits"), int)]
    for w in widths:
        if "twitter" in (w.get("layouts") or []):
            return w["bits"]
    return max(widths, key=lambda w: len(w.get("layouts") or []))["bits"] if widths else None


def first_break(doc: dict, derivation: str, bits: int | None = None) -> tuple[int | None,
                                                                            dict | None]:
    """The fewest live processes at which the derivation's P(shared id) reaches 1 %, over its
    address plans (at `bits` node bits, or any width), and that curve; (None, None) when no
    curve reaches it (the lease never does)."""
    found = [(_threshold_n(c, "n_1pct"), c) for c in _objects(doc.get("curves"))
             if c.get("derivation") == derivation and c.get("derivation") != "lease"
             and (bits is None or c.get("bits") == bits)]
    found = [(n, c) for n, c in found if n is not None]
    return min(found, key=lambda x: x[0]) if found else (None, None)


def derived_ids_takeaway(doc: dict) -> str:
    """At Twitter's node width: from how many live processes each derivation shares an id
    with P ≥ 1 %, fewest first, the lease last."""
    bits = reference_bits(doc)
    names = [str(d.get("name")) for d in _objects(doc.get("derivations"))]
    if not names:
        return f"Derived worker ids: {FILE} holds no derivation."
    groups: dict[int | None, list[str]] = {}
    for name in names:
        if name != "lease":
            groups.setdefault(first_break(doc, name, bits)[0], []).append(name)
    parts = [f"from N = {_count(n)} for {' and '.join(ns)}"
             for n, ns in sorted(((n, ns) for n, ns in groups.items() if n is not None))]
    if None in groups:
        parts.append(f"not while the plan has room for {' and '.join(groups[None])}")
    if "lease" in names:
        parts.append("never for the lease")
    layouts = next((w.get("layouts") for w in _objects(doc.get("widths"))
                    if w.get("bits") == bits), None)
    return (f"Derived worker ids at {bits} node bits"
            + (f" ({', '.join(map(str, layouts))})" if layouts else "")
            + ": two live processes share an id with P ≥ 1 % " + "; ".join(parts) + ".")


def figure_title(doc: dict, name: str) -> str:
    if name == "lease":
        return "lease: no two live processes share an id; a claim past 2^w is refused"
    bits = reference_bits(doc)
    n, c = first_break(doc, name, bits)
    if n is None:
        return f"{name}: P(shared id) stays under 1 % at {bits} bits while the plan has room"
    return (f"{name}: P(shared id) ≥ 1 % from {_count(n)} live processes at {bits} bits"
            + (f" (plan {c.get('plan')})" if c.get("plan") else ""))


def derived_ids_section(doc: dict | None, problem: str | None, figures, summary: dict) -> Section:
    """The section from derived_ids.json as inputs.py loaded it (`doc`), or the one sentence
    saying why there is none (`problem`)."""
    s = Section("derived-ids", f"Worker ids derived from the environment, against a lease ({FILE})")
    if doc is None:
        problem = problem or f"{FILE} is missing (written by {PRODUCER})"
        s.takeaway = problem.rstrip(".") + "."
        summary["derived_ids"] = {"present": False, "problem": problem}
        return s
    s.takeaway = derived_ids_takeaway(doc)
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
        figures.add(s, f"derived-ids-{name}", figure_title(doc, name), _caption(doc, name),
                    lambda c, name=name: c.collision_chart(doc, name),
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
