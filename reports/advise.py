#!/usr/bin/python3
"""advise.py — answers a workload's question from a results directory's facts.

    ./run.sh advise [RESULTS_DIR] --engine mariadb --writers 40 --row-bytes 250 --rate 5000 \
        --must 64-bit
    /usr/bin/python3 reports/advise.py reports/latest --engine none --writers 8 \
        --must clock-step-back [--json]

A workload is an engine (mariadb, postgresql, sqlite, none), a row size (payload bytes beside
the key), a number of writers (application servers or nodes), an insert rate (IDs/s in all) and
what the IDs must promise (PROMISES). The answer lists every candidate (a scheme's variant, or
a real system), ranked, each with the measured figures that decided its place and their
source; then the subjects the promises or the rate rule out, each with the measured reason.

How candidates are ranked (one rule, written once, in `_rank_key`):
- with an index engine, by the leaf fill the IDs leave in the primary key at the workload's row
  size and writers (higher first: fewer pages, fewer splits), then by splits per 1,000
  inserts, then by IDs/s; the engine's own measurement where it was made, else the InnoDB
  model, and the figure says which;
- with no engine, by IDs/s at the most threads measured, then p99 latency.

Nothing is interpolated: a workload between measured points uses the nearest measured point
and the answer says which ("40 writers asked: 8, the most measured"). A figure that was not
measured says "not measured" and names the command that measures it.

The page's picker (first_screen.py) embeds `answers(facts)`: every measured point's ranking
and every candidate's promises and capacity, so the page decides offline what this module's
`advise()` decides here, from the same table.

Exit status: 0 answered; 2 bad usage or a results directory that does not exist.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import units as u  # noqa: E402
from facts import (ENGINES, MEASURED_BY, MODEL, STEP_BACK, Fact, Facts,  # noqa: E402
                   Subject, load_facts)

PROMISES = {
    "k-sorted": "k-sorted (time order within a bound)",
    "unguessable": "unguessable (no time prefix, no counter)",
    "64-bit": "fits a 64-bit integer",
    "no-coordinator": "no coordinator (no database, no worker-id service)",
    "clock-step-back": "survives a clock step back without duplicates or a stall",
}
# "No stall" under a clock step back: the share of the run a node kept issuing.
NO_STALL_AVAILABILITY = 0.99
ENGINE_LABEL = {"mariadb": "MariaDB (InnoDB)", "postgresql": "PostgreSQL", "sqlite": "SQLite",
                "none": "no database"}

# Common workloads, preset in the page's picker.
PROFILES = [
    {"name": "MariaDB, many app servers, 250 B rows, 64-bit", "engine": "mariadb",
     "row_bytes": 250, "writers": 40, "rate": 5000, "musts": ["64-bit"]},
    {"name": "PostgreSQL, one writer, key-only, unguessable", "engine": "postgresql",
     "row_bytes": 0, "writers": 1, "rate": 1000, "musts": ["unguessable"]},
    {"name": "No database, 8 nodes, survives a clock step back", "engine": "none",
     "row_bytes": 0, "writers": 8, "rate": 100000, "musts": ["clock-step-back"]},
    {"name": "SQLite, embedded, one writer", "engine": "sqlite", "row_bytes": 100,
     "writers": 1, "rate": 1000, "musts": []},
]


@dataclass
class Workload:
    engine: str
    row_bytes: int = 0
    writers: int = 1
    rate: float = 0.0
    musts: list[str] = field(default_factory=list)


@dataclass
class Figure:
    label: str
    text: str
    source: str
    at_point: bool = True  # measured at the asked row size and writers
    value: float | None = None  # the measured number `text` shows; None when not measured


@dataclass
class Judgement:
    ok: bool | None  # None: not measured
    why: str
    source: str = ""


@dataclass
class Candidate:
    """One thing a person could deploy: a scheme's variant, or a real system."""

    id: str
    subject: str
    variant: str
    label: str
    kind: str
    promises: dict[str, Judgement] = field(default_factory=dict)
    capacity: dict[str, Figure] = field(default_factory=dict)  # by writers point, as text


# ---------------------------------------------------------------------------------------------
# promises


def _best_step_back(facts: Facts, variant: str) -> tuple[Fact | None, Fact | None]:
    """The variant's ntp-step-back cell with no duplicates and the most availability (its
    availability fact and its duplicates fact), or the best of the rest."""
    cells: dict[str, dict[str, Fact]] = {}
    for f in facts.where(variant=variant, fault=STEP_BACK):
        if f.policy != "unsafe":  # a planted defect, not a policy anyone deploys
            cells.setdefault(f.source, {})[f.metric] = f
    ranked = sorted(cells.values(), key=lambda c: (
        (c.get("duplicates").value if c.get("duplicates") else 1) == 0,
        c["availability"].value if c.get("availability") else -1), reverse=True)
    if not ranked:
        return None, None
    return ranked[0].get("availability"), ranked[0].get("duplicates")


def _step_back(facts: Facts, s: Subject, variant: str) -> Judgement:
    avail, dups = _best_step_back(facts, variant)
    if avail is not None and dups is not None:
        share = u.percent(avail.value, 0)
        if dups.value == 0 and avail.value >= NO_STALL_AVAILABILITY:
            return Judgement(True, f"{avail.policy}: {share} issuing, 0 duplicates", avail.source)
        if dups.value:
            return Judgement(False, f"{u.count(dups.value)} duplicates ({dups.policy})",
                             dups.source)
        return Judgement(False, f"stalls: {share} issuing at best ({avail.policy})",
                         avail.source)
    # A server's own clock stepped back (real-chaos's clock-back), or a counter's step back:
    # its restore from an older copy.
    stepped = [f for f in facts.where(variant=variant, metric="duplicates")
               if f.fault and f.fault != STEP_BACK and ("restore" in f.fault
                                                        or "clock-back" in f.fault)]
    if stepped:
        worst = max(stepped, key=lambda f: f.value)
        what = "restored from a copy" if "restore" in worst.fault else "its clock stepped back"
        return Judgement(not worst.value, f"{what}: {u.count(worst.value)} duplicates",
                         worst.source)
    if s.time_based is False and s.family != "counter":
        return Judgement(True, "reads no clock", s.source)
    command = MEASURED_BY["chaos" if s.kind == "scheme" else "real_chaos"]
    return Judgement(None, "not measured", command)


def judge(facts: Facts, s: Subject, variant: str, promise: str) -> Judgement:
    """Whether a candidate keeps one promise, from its description or a fault's figures."""
    src = s.source
    if promise == "k-sorted":
        if s.ordering in ("k_sorted", "k_sorted_by_tick", "monotone_per_stream"):
            return Judgement(True, s.ordering.replace("_", " "), src)
        return Judgement(False, "unordered" if s.ordering == "none" else "order not described",
                         src)
    if promise == "unguessable":
        if s.time_based:
            return Judgement(False, "time prefix leaks its creation time", src)
        if s.family == "counter":
            return Judgement(False, "a counter: the next ID is guessable", src)
        if s.time_based is False and (s.family == "uuid" or s.kind == "system"):
            return Judgement(True, "random bits only", src)
        return Judgement(None, "randomness not described", src)
    if promise == "64-bit":
        if s.width_bits is None:
            return Judgement(None, "width not described", src)
        return Judgement(s.width_bits <= 64, f"{s.width_bits}-bit", src)
    if promise == "no-coordinator":
        if s.family == "counter":
            return Judgement(False, "a database hands out every ID", src)
        if s.node_ids not in ("", "none"):
            return Judgement(False, "needs a unique worker id per node", src)
        return Judgement(True, "no shared state", src)
    if promise == "clock-step-back":
        return _step_back(facts, s, variant)
    raise ValueError(promise)


# ---------------------------------------------------------------------------------------------
# points, capacity, figures


def nearest(points: list[int], want: int) -> int | None:
    """The measured point nearest `want` (the larger on a tie); None when nothing was."""
    if not points:
        return None
    return min(points, key=lambda p: (abs(p - want), -p))


def _one(facts: Facts, **conditions) -> Fact | None:
    found = facts.where(**conditions)
    return found[0] if found else None


def _capacity(facts: Facts, c: Candidate, writers: int) -> Figure:
    """What the candidate issues at `writers`: a real system's measured IDs/s at the nearest
    client count (the strictest durability measured), or an in-process variant's 1-thread IDs/s
    times the writers (each writer runs its own generator)."""
    if c.kind == "system":
        cells = [f for f in facts.where(variant=c.variant, metric="ids_per_s") if f.writers]
        if not cells:
            return Figure("IDs/s", "not measured", MEASURED_BY["real"])
        durable = sorted({f.durability for f in cells})[0]  # flush=1 sorts first
        at = nearest(sorted({f.writers for f in cells if f.durability == durable}), writers)
        f = next(x for x in cells if x.writers == at and x.durability == durable)
        return Figure(f"IDs/s, {at} client{'s' if at != 1 else ''}, {durable or 'real'}",
                      u.si(f.value), f.source, value=f.value)
    f = _one(facts, variant=c.variant, metric="ids_per_s", threads=1)
    if f is None:
        return Figure("IDs/s", "not measured", MEASURED_BY["bench"])
    return Figure(f"IDs/s, {writers} × 1 thread, in process", u.si(f.value * writers), f.source,
                  value=f.value * writers)


def candidates(facts: Facts, writer_points: list[int]) -> list[Candidate]:
    out = []
    for s in facts.subjects.values():
        for v in (s.variants or [s.name]):
            label = s.name if s.kind == "system" or len(s.variants) <= 1 and s.name != f"({v})" \
                else f"{s.name} ({v})" if not s.name.startswith("(") else v
            c = Candidate(id=v, subject=s.name, variant=v, label=label, kind=s.kind)
            own = facts.described.get(v, s)
            c.promises = {p: judge(facts, own, v, p) for p in PROMISES}
            c.capacity = {str(w): _capacity(facts, c, w) for w in writer_points}
            out.append(c)
    return out


def _index_fact(facts: Facts, c: Candidate, metric: str, engine: str, row: int,
                writers: int) -> Fact | None:
    """The index figure at the point: the engine's own measurement, else the InnoDB model at
    the same point; for a real system whose own IDs were not measured at the point, its
    in-process stand-in's keys there; else the nearest point measured."""
    s = facts.subjects.get(c.subject)
    stand_in = s.stand_in if s is not None else ""
    for variant in (c.variant, stand_in):
        for e in (engine, MODEL):
            f = variant and _one(facts, variant=variant, metric=metric, engine=e,
                                 row_bytes=row, writers=writers)
            if f:
                return f
    rows = facts.values("row_bytes", variant=c.variant, metric=metric, engine=MODEL)
    ws = facts.values("writers", variant=c.variant, metric=metric, engine=MODEL)
    r, w = nearest(rows, row), nearest(ws, writers)
    return None if r is None else _one(facts, variant=c.variant, metric=metric, engine=MODEL,
                                       row_bytes=r, writers=w)


def _where(f: Fact, c: Candidate, engine: str, row: int, writers: int) -> str:
    """The conditions of an index figure, said when they are not the asked ones."""
    said = [] if f.variant == c.variant else [f"stand-in {f.variant}'s keys"]
    if f.engine != engine and not (f.engine == MODEL and engine == "mariadb"):
        said.append("InnoDB model" if f.engine == MODEL else f.engine)
    if f.row_bytes != row:
        said.append("key-only" if f.row_bytes == 0 else f"{f.row_bytes} B rows")
    if f.writers != writers:
        said.append(f"{f.writers} writer{'s' if f.writers != 1 else ''}")
    return f" ({', '.join(said)})" if said else ""


def figures(facts: Facts, c: Candidate, engine: str, row: int, writers: int) -> list[Figure]:
    """The 3–5 figures that decide the candidate's place at one point."""
    out = []
    if engine != "none":
        for metric, label, fmt in (("leaf_fill", "leaf fill", lambda v: u.percent(v, 0)),
                                   ("splits_per_1k", "splits / 1k inserts",
                                    lambda v: u.fixed(v, 1))):
            f = _index_fact(facts, c, metric, engine, row, writers)
            out.append(Figure(label + (_where(f, c, engine, row, writers) if f else ""),
                              fmt(f.value) if f else "not measured",
                              f.source if f else MEASURED_BY["locality"],
                              at_point=bool(f) and (f.row_bytes, f.writers) == (row, writers),
                              value=f.value if f else None))
    out.append(c.capacity.get(str(writers)) or _capacity(facts, c, writers))
    threads = facts.values("threads", variant=c.variant, metric="p99_ns")
    p99 = (_one(facts, variant=c.variant, metric="p99_ns", threads=nearest(threads, writers))
           if threads else
           _one(facts, variant=c.variant, metric="p99_ns",
                writers=nearest(facts.values("writers", variant=c.variant, metric="p99_ns"),
                                writers)))
    out.append(Figure("p99 per ID" + (f", {p99.threads} thread{'s' if p99.threads != 1 else ''}"
                                      if p99 and p99.threads else ""),
                      u.duration_ns(p99.value) if p99 else "not measured",
                      p99.source if p99 else MEASURED_BY["bench" if c.kind == "scheme"
                                                         else "real"],
                      value=p99.value if p99 else None))
    step = c.promises.get("clock-step-back")
    if step is not None and step.source:
        out.append(Figure("clock step back", step.why, step.source))
    return out[:5]


def _rank_key(figs: list[Figure], engine: str):
    """Smaller sorts first. Missing figures sort last."""
    def val(i):
        return figs[i].value if i < len(figs) else None

    if engine != "none":
        # A fill measured at another row size or writer count (its label says so) ranks
        # after every fill measured at the asked point: they are not comparable.
        fill, splits, cap = val(0), val(1), val(2)
        return (fill is None, not figs[0].at_point, -(fill or 0),
                splits if splits is not None else float("inf"), -(cap or 0))
    cap, p99 = val(0), val(1)
    return (cap is None, -(cap or 0), p99 if p99 is not None else float("inf"))


# ---------------------------------------------------------------------------------------------
# the answers the page embeds, and one workload's answer


def points(facts: Facts, engine: str) -> tuple[list[int], list[int]]:
    """The row sizes and writer counts measured for an engine (the model's for MariaDB and
    where the engine measured fewer)."""
    if engine == "none":
        ws = facts.values("writers", metric="ids_per_s") or [1]
        return [0], sorted(set(ws) | {1})
    engines = (engine, MODEL)
    rows = sorted({r for e in engines for r in facts.values("row_bytes", metric="leaf_fill",
                                                             engine=e)})
    ws = sorted({w for e in engines for w in facts.values("writers", metric="leaf_fill",
                                                           engine=e)})
    return rows or [0], ws or [1]


def ranking(facts: Facts, cands: list[Candidate], engine: str, row: int,
            writers: int) -> list[tuple[Candidate, list[Figure]]]:
    ranked = [(c, figures(facts, c, engine, row, writers)) for c in cands]
    ranked.sort(key=lambda cf: _rank_key(cf[1], engine))
    return ranked


def answers(facts: Facts) -> dict:
    """Every engine's measured points, each point's ranking, every candidate's promises and
    capacity, and the engines its database server rules it out of ("engine_rules", the
    reasons _engine_reason gives): what the page's picker filters, offline (picker.js)."""
    all_writers = sorted({w for e in ENGINES for w in points(facts, e)[1]})
    cands = candidates(facts, all_writers)
    def engine_rules(c: Candidate) -> dict:
        # _engine_reason per engine, precomputed: the page rules a system out by lookup.
        return {e: {"why": r[0], "source": r[1]} for e in ENGINES
                if (r := _engine_reason(facts, c, e)) is not None}

    out = {"schema": "idbench-answers/1", "engines": list(ENGINES),
           "engine_labels": ENGINE_LABEL, "promises": PROMISES, "profiles": PROFILES,
           "step_back": facts.step_back, "missing": facts.missing, "points": {},
           "candidates": {c.id: {"subject": c.subject, "variant": c.variant, "label": c.label,
                                 "kind": c.kind,
                                 "server": getattr(facts.subjects.get(c.subject), "server", ""),
                                 "engine_rules": engine_rules(c),
                                 "promises": {p: asdict(j) for p, j in c.promises.items()},
                                 "capacity": {w: asdict(f) for w, f in c.capacity.items()}}
                          for c in cands},
           "rankings": {}}
    for e in ENGINES:
        rows, ws = points(facts, e)
        out["points"][e] = {"rows": rows, "writers": ws}
        for r in rows:
            for w in ws:
                out["rankings"][f"{e}|{r}|{w}"] = [
                    {"id": c.id, "figures": [asdict(f) for f in figs]}
                    for c, figs in ranking(facts, cands, e, r, w)]
    return out


@dataclass
class Answer:
    workload: Workload
    used: list[str]  # which measured point stood for the workload, and why
    ranked: list[tuple[Candidate, list[Figure]]]
    ruled_out: list[tuple[str, str, str]]  # (subject, reason, source)


def _rate_reason(c: Candidate, writers: int, rate: float) -> tuple[bool, str, str] | None:
    """(not measured?, reason, source) when a rate was asked and the candidate's measured IDs/s
    fall short of it or were not measured."""
    if not rate:
        return None
    cap = c.capacity.get(str(writers))
    value = cap.value if cap else None
    if value is None:
        return True, "IDs/s not measured (a rate was asked)", cap.source if cap else ""
    if value < rate:
        return False, f"{cap.text} IDs/s measured ({cap.label}) < {u.si(rate)}/s asked", \
            cap.source
    return None


def _engine_reason(facts: Facts, c: Candidate, engine: str) -> tuple[str, str] | None:
    """A real system that runs on a database server of another engine than the workload's."""
    s = facts.subjects.get(c.subject)
    if s is None or not s.server or s.server == engine:
        return None
    if engine == "none":
        return f"needs a {s.server} server (the workload has no database)", s.source
    return f"runs on {s.server}, not {ENGINE_LABEL[engine]} (not measured there)", s.source


def advise(facts: Facts, w: Workload) -> Answer:
    rows, ws = points(facts, w.engine)
    row, writers = nearest(rows, w.row_bytes), nearest(ws, w.writers)
    used = []
    if w.engine != "none" and row != w.row_bytes:
        used.append(f"{w.row_bytes} B rows asked: {row} B, the nearest measured row size")
    if writers != w.writers:
        why = ("the most measured" if writers == max(ws) and writers < w.writers
               else "the nearest measured")
        used.append(f"{w.writers} writers asked: {writers}, {why}")
    if "clock-step-back" in w.musts and facts.step_back:
        used.append(f"clock step back as measured: {facts.step_back}")
    cands = candidates(facts, sorted(set(ws)))
    placed, ruled, seen = [], {}, set()
    for c, figs in ranking(facts, cands, w.engine, row, writers):
        fails = sorted(((c.promises[p].ok is None, f"{p}: {c.promises[p].why}",
                         c.promises[p].source) for p in w.musts
                        if c.promises[p].ok is not True))
        slow = _rate_reason(c, writers, w.rate)
        wrong_engine = _engine_reason(facts, c, w.engine)
        if fails or slow or wrong_engine:
            # A measured reason before an unmeasured one; a broken promise before the rate
            # and the engine.
            others = ([slow] if slow else []) + ([(False, *wrong_engine)] if wrong_engine else [])
            reasons = sorted([(m, 0, r, src) for m, r, src in fails]
                             + [(m, 1, r, src) for m, r, src in others])
            unmeasured, _, reason, src = reasons[0]
            # A subject's reason is a measured one when any of its candidates has one.
            if c.subject not in ruled or ruled[c.subject][0] and not unmeasured:
                ruled[c.subject] = (unmeasured, c.label, reason, src)
            continue
        if c.subject not in seen:
            seen.add(c.subject)
            placed.append((c, figs))
    ruled_out = [v[1:] for k, v in ruled.items() if k not in seen]
    return Answer(w, used, placed, ruled_out)


# ---------------------------------------------------------------------------------------------
# text


def workload_text(w: Workload) -> str:
    musts = ", ".join(w.musts) if w.musts else "no promise asked"
    row = "" if w.engine == "none" else (
        ", key-only rows" if w.row_bytes == 0 else f", {w.row_bytes} B rows")
    rate = f", {u.si(w.rate)} IDs/s" if w.rate else ""
    return (f"{ENGINE_LABEL.get(w.engine, w.engine)}, {w.writers} writer"
            f"{'s' if w.writers != 1 else ''}{row}{rate}; must: {musts}")


def to_text(facts: Facts, a: Answer) -> str:
    out = [f"Workload: {workload_text(a.workload)}", f"Results: {facts.directory}"]
    out += [f"Missing input: {m}" for m in facts.missing]
    out += [f"Point used: {x}" for x in a.used]
    out.append("")
    out.append("Ranked:" if a.ranked else "Ranked: nothing measured keeps every promise asked")
    for i, (c, figs) in enumerate(a.ranked, 1):
        out.append(f"{i:2}. {c.label}")
        for f in figs:
            out.append(f"      {f.label:<44} {f.text:<28} {f.source}")
    if a.ruled_out:
        out += ["", "Ruled out:"]
        out += [f"  - {label}: {reason}  [{src}]" for label, reason, src in a.ruled_out]
    return "\n".join(out) + "\n"


def to_json(facts: Facts, a: Answer) -> dict:
    return {"schema": "idbench-advise/1", "workload": asdict(a.workload),
            "results": facts.directory, "missing": facts.missing, "points_used": a.used,
            "ranked": [{"rank": i, "label": c.label, "subject": c.subject,
                        "variant": c.variant, "figures": [asdict(f) for f in figs]}
                       for i, (c, figs) in enumerate(a.ranked, 1)],
            "ruled_out": [{"label": l, "reason": r, "source": s} for l, r, s in a.ruled_out]}


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit 2
        sys.stderr.write(f"advise: {message}\n")
        raise SystemExit(2)


def _count(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return v


def _positive(text: str) -> int:
    v = _count(text)
    if v == 0:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return v


def _rate(text: str) -> float:
    v = float(text)
    if not v >= 0 or v == float("inf"):  # also refuses NaN
        raise argparse.ArgumentTypeError(f"must be a finite number ≥ 0, not {text}")
    return v


def _musts(text: str) -> list[str]:
    musts = [m.strip() for m in text.split(",") if m.strip()]
    bad = [m for m in musts if m not in PROMISES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown promise {bad[0]!r} (one of: "
                                         f"{', '.join(PROMISES)})")
    return musts


def main(argv=None) -> int:
    p = _Parser(prog="advise", description="Rank every measured ID scheme for a workload.")
    p.add_argument("results", nargs="?", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "latest"), help="results directory (default reports/latest)")
    p.add_argument("--engine", required=True, choices=ENGINES)
    p.add_argument("--row-bytes", type=_count, default=0, help="payload bytes beside the key")
    p.add_argument("--writers", type=_positive, default=1,
                   help="application servers or nodes writing at once")
    p.add_argument("--rate", type=_rate, default=0.0, help="IDs per second, all writers")
    p.add_argument("--must", type=_musts, default=[],
                   help="comma-separated promises: " + ", ".join(PROMISES))
    p.add_argument("--json", action="store_true", help="the answer as JSON")
    a = p.parse_args(argv)
    if not os.path.isdir(a.results):
        sys.stderr.write(f"advise: {a.results} is not a results directory "
                         "(./run.sh writes reports/latest)\n")
        return 2
    facts = load_facts(a.results)
    answer = advise(facts, Workload(a.engine, a.row_bytes, a.writers, a.rate, a.must))
    sys.stdout.write(json.dumps(to_json(facts, answer), indent=1) + "\n" if a.json
                     else to_text(facts, answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
