"""facts.py — a results directory normalised, once, into one table of facts.

Every view that answers a person (the first screen's picker and matrix, `advise`, the side by
side comparison of two runs) reads this table and nothing else, so they cannot disagree about
a figure, and every figure they print names where it came from.

A fact is one measured value about one subject, under stated conditions, with its source:

    Fact(subject="Snowflake", variant="cas", metric="leaf_fill", value=0.93,
         engine="innodb-model", row_bytes=250, writers=8,
         source="locality.json matrix[17]")

A subject is a row a person chooses between: a scheme measured in process through its
variants (Snowflake, UUIDv7, ...), or a real system measured as it runs (MariaDB's
AUTO_INCREMENT over its round trip, Python's uuid, an npm library). A scheme whose only
in-process variant stands in for a server (AUTO_INCREMENT's shared atomic: no round trip) is a
lower bound; when the run measured that scheme's real system, the system is the subject and the
stand-in is not, so a harness figure is never offered as the system's.

    facts = load_facts("reports/latest")
    facts.where(subject="Snowflake", metric="ids_per_s", threads=2)

Nothing here raises on a missing or malformed input: `missing` holds one sentence per input
that could not be read (inputs.py's sentences), and a figure that is absent is simply not a
fact; a view says "not measured" and names the command that measures it (MEASURED_BY).

Thread safety: pure functions of their inputs; the returned values are not shared.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

from inputs import Results, load_results, locality_generator, number, payload_of

# The command that measures each kind of figure, for "not measured" sentences.
MEASURED_BY = {
    "bench": "./run.sh bench",
    "locality": "./run.sh locality",
    "chaos": "./run.sh chaos",
    "real": "./run.sh bench (idbench real --system quick)",
    "real_chaos": "./run.sh real-chaos",
}

# The engine names a workload may give, and the engine each locality measurement stands for.
ENGINES = ("mariadb", "postgresql", "sqlite", "none")
MODEL = "innodb-model"  # the InnoDB model: MariaDB 10.11's page rules, checked against mariadbd
VALIDATION_ENGINES = {"innodb": "mariadb", "postgres": "postgresql", "sqlite": "sqlite"}

# The layout whose bench figures a subject shows when it ran (Twitter's 41/10/12 bits).
PREFERRED_LAYOUT = "twitter"
STEP_BACK = "ntp-step-back"


@dataclass(frozen=True)
class Fact:
    subject: str
    metric: str
    value: Any
    source: str
    variant: str = ""  # the registry variant or real system that produced it
    engine: str = ""  # MODEL, "mariadb", "postgresql", "sqlite"; "" where no index is involved
    row_bytes: int | None = None  # payload bytes beside the key
    writers: int | None = None  # concurrent writers into the index, or clients of a server
    threads: int | None = None  # threads in one process (the bench)
    durability: str = ""  # "flush=1" etc. for a server
    fault: str = ""  # the scenario a fault figure was measured under
    policy: str = ""  # the clock-regression policy a chaos figure ran with
    note: str = ""  # a short qualifier a view prints beside the value


@dataclass
class Subject:
    """What a subject is, from the variant description the results carry (or the real
    system's own description): the facts a promise is judged on."""

    name: str
    kind: str  # "scheme" | "system"
    scheme: str
    variants: list[str] = field(default_factory=list)  # in-process variants, registry order
    width_bits: int | None = None
    ordering: str = ""  # "k_sorted", "k_sorted_by_tick", "none"
    time_based: bool | None = None
    family: str = ""  # "snowflake", "uuid", "counter", "dce", ...
    node_ids: str = ""  # "none", "one", "per_thread"
    summary: str = ""
    source: str = ""  # where the description came from
    server: str = ""  # the database server a real system needs ("mariadb"), "" for a library
    stand_in: str = ""  # a real system's in-process stand-in variant (its lower bound)


@dataclass
class Facts:
    directory: str
    subjects: dict[str, Subject] = field(default_factory=dict)
    # Each variant's own description (a scheme's variants may differ: UUIDv1 is unordered,
    # UUIDv6 k-sorted), and each real system's: what a promise is judged on.
    described: dict[str, Subject] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # one sentence per unreadable input
    problems: list[str] = field(default_factory=list)  # partial inputs, failed cells
    inputs: dict[str, bool] = field(default_factory=dict)  # input name -> present
    step_back: str = ""  # what the chaos run's clock step back was, for "which point" notes

    def where(self, **conditions) -> list[Fact]:
        """The facts whose fields equal every given condition."""
        return [f for f in self.facts
                if all(getattr(f, k) == v for k, v in conditions.items())]

    def values(self, axis: str, **conditions) -> list:
        """The distinct values of one condition axis (row_bytes, writers, ...) among the facts
        matching `conditions`, sorted."""
        return sorted({getattr(f, axis) for f in self.where(**conditions)
                       if getattr(f, axis) is not None})

    def to_json(self) -> dict:
        return {"schema": "idbench-facts/1", "missing": self.missing, "problems": self.problems,
                "subjects": {k: asdict(s) for k, s in self.subjects.items()},
                "facts": [asdict(f) for f in self.facts]}


# ---------------------------------------------------------------------------------------------
# subjects


def _describe(name: str, kind: str, scheme: str, d: dict, source: str) -> Subject:
    return Subject(name=name, kind=kind, scheme=scheme,
                   width_bits=int(d["width_bits"]) if number(d.get("width_bits")) else None,
                   ordering=str(d.get("ordering") or ""),
                   time_based=d.get("time_based") if isinstance(d.get("time_based"), bool)
                   else None,
                   family=str(d.get("family") or ""), node_ids=str(d.get("node_ids") or ""),
                   summary=str(d.get("summary") or ""), source=source)


def _subjects(results: Results) -> tuple[dict[str, Subject], dict[str, str],
                                         dict[str, Subject]]:
    """Subjects in the order a person meets them (schemes in registry order, then real
    systems), the map variant-or-system -> subject, and each one's own description."""
    desc = results.description
    real = results.bench.real
    real_schemes = {str(s.get("scheme") or "").lower() for s in real.systems}
    subjects: dict[str, Subject] = {}
    owner: dict[str, str] = {}
    described: dict[str, Subject] = {}
    src = "bench.json context idbench_variants"
    for v in desc.variants:
        scheme = str(v.get("scheme") or "")
        described[v["name"]] = _describe(v["name"], "scheme", scheme or v["name"], v,
                                         f"{src} {v['name']}")
        lower_bound = v.get("in_process_lower_bound") is True
        if lower_bound and scheme.lower() in real_schemes:
            # Its real system is measured: that is the subject, not the stand-in. The
            # stand-in's facts stay in the table under the scheme's name (its keys' locality
            # stands in where the system's own IDs were not measured at a point), but it is
            # no subject a person is offered.
            owner[v["name"]] = scheme
            continue
        name = scheme or f"({v['name']})"
        s = subjects.get(name)
        if s is None:
            s = subjects[name] = _describe(name, "scheme", scheme or v["name"], v,
                                           f"{src} {v['name']}")
            if lower_bound:
                s.summary += " (in-process lower bound: no round trip)"
        s.variants.append(v["name"])
        owner[v["name"]] = name
    for sysd in real.systems:
        name = str(sysd.get("name") or "")
        if name:
            s = _system(results, name, sysd, "bench.json real_systems.systems " + name)
            subjects[name] = described[name] = s
            owner[name] = name
    return subjects, owner, described


def _system(results: Results, name: str, listed: dict, source: str) -> Subject:
    """A real system as a subject: what the run listed of it (`listed`: its scheme, stand-in
    and servers), and what `idbench list --json` says of its IDs (width, time, order); a field
    neither gives stays unknown."""
    own = _system_descriptions(results).get(name, {})
    merged = {**own, **{k: v for k, v in listed.items() if v not in (None, "")}}
    d = dict(results.description.get(str(merged.get("lower_bound_variant") or "")))
    d.update({k: merged[k] for k in ("width_bits", "ordering") if k in merged})
    if "id_time" in merged:
        d["time_based"] = merged["id_time"] != "none"
    d["summary"] = merged.get("summary") or name
    s = _describe(name, "system", str(merged.get("scheme") or ""), d, source)
    # "server_kind" names the server ("mariadb", "postgres", "redis"); records written before
    # there were several kinds count MariaDB servers in "mariadb_servers".
    legacy = "mariadb" if number(merged.get("mariadb_servers")) else ""
    s.server = str(merged.get("server_kind") or legacy)
    s.stand_in = str(merged.get("lower_bound_variant") or "")
    if s.server:
        s.family = "counter"  # the server hands out every ID
    if merged.get("id_time") == "layout":
        s.node_ids = "one"  # a layout's IDs carry a node field: one worker id each
    return s


def _system_descriptions(results: Results) -> dict[str, dict]:
    """Each real system as `idbench list --json` describes it (its IDs' width, time and
    order), from the description bench.json carries; {} when it carries none."""
    text = results.bench.context.get("idbench_variants")
    try:
        doc = json.loads(text) if isinstance(text, str) else {}
    except json.JSONDecodeError:
        return {}
    systems = doc.get("systems") if isinstance(doc, dict) else None
    return {str(x["name"]): x for x in systems or [] if isinstance(x, dict) and x.get("name")}


def _system_subject(facts: Facts, results: Results, owner: dict[str, str], name: str,
                    width: Any, source: str) -> str:
    """A real system seen only under faults (real_chaos.json) still gets a subject."""
    if name not in owner:
        s = _system(results, name, {"width_bits": int(width) if number(width) else None},
                    source)
        facts.subjects[name] = facts.described[name] = s
        owner[name] = name
    return owner[name]


# ---------------------------------------------------------------------------------------------
# bench.json: in-process speed


def _bench_facts(results: Results, owner: dict[str, str]) -> Iterable[Fact]:
    b = results.bench
    for variant in b.variants("generate"):
        if variant not in owner:
            continue
        layouts = [r.layout for r in b.runs.values()
                   if r.kind == "generate" and r.variant == variant]
        layout = PREFERRED_LAYOUT if PREFERRED_LAYOUT in layouts else (layouts or [None])[0]
        for threads in b.threads("generate"):
            r = b.find("generate", variant, layout, threads)
            if r is None or r.error:
                continue
            for metric, key in (("ids_per_s", "ids_per_s"), ("p99_ns", "p99_ns"),
                                ("p999_ns", "p999_ns"), ("cap_ratio", "cap_ratio")):
                v = r.median(key)
                if v is not None:
                    yield Fact(owner[variant], metric, v, f"bench.json {r.name}",
                               variant=variant, threads=threads,
                               note="in process" + ("" if r.layout_unused or not layout
                                                    else f", {layout} layout"))


# ---------------------------------------------------------------------------------------------
# locality.json: where an ID lands in a clustered index


def _index_facts(subject: str, variant: str, entry: dict, engine: str, row: int,
                 writers: Any, source: str, note: str) -> Iterable[Fact]:
    w = int(writers) if number(writers) is not None else None
    for metric, key in (("leaf_fill", "avg_leaf_fill"), ("splits_per_1k", "splits_per_1k"),
                        ("pool_miss_rate", "pool_miss_rate")):
        v = number(entry.get(key))
        if v is not None:
            yield Fact(subject, metric, v, source, variant=variant, engine=engine,
                       row_bytes=row, writers=w, note=note)


def _locality_facts(results: Results, owner: dict[str, str]) -> Iterable[Fact]:
    loc = results.locality
    for i, m in enumerate(loc.matrix):
        gen = locality_generator(m)
        if gen not in owner:
            continue
        stream = m.get("stream") if isinstance(m.get("stream"), dict) else {}
        yield from _index_facts(owner[gen], gen, m, MODEL, payload_of(m), stream.get("writers"),
                                f"locality.json matrix[{i}]",
                                "InnoDB model (MariaDB 10.11's page rules)")
    for i, row in enumerate(loc.validation_rows()):
        stream = row.get("stream")
        gen = stream.get("variant") if isinstance(stream, dict) else stream
        if not isinstance(gen, str) or gen not in owner:
            continue
        writers = stream.get("writers", 1) if isinstance(stream, dict) else 1
        for key, engine in VALIDATION_ENGINES.items():
            e = row.get(key)
            if isinstance(e, dict) and not e.get("error"):
                yield from _index_facts(owner[gen], gen, e, engine, payload_of(row), writers,
                                        f"locality.json validation[{i}].{key}",
                                        str(e.get("engine_version") or engine))


# ---------------------------------------------------------------------------------------------
# bench.json's real_systems: the systems as they run


def _durability(cell: dict) -> str:
    d = cell.get("durability") if isinstance(cell.get("durability"), dict) else {}
    flush = d.get("innodb_flush_log_at_trx_commit")
    return f"flush={flush}" if flush is not None else ""


def _real_facts(results: Results, owner: dict[str, str]) -> Iterable[Fact]:
    real = results.bench.real
    for i, c in enumerate(real.cells):
        system = str(c.get("system") or "")
        if system not in owner or number(c.get("request_size")) not in (1, None):
            continue  # one ID per round trip: what an insert path pays
        src = f"bench.json real_systems.cells[{i}]"
        clients = int(number(c.get("clients")) or 1)
        common = dict(variant=system, writers=clients, durability=_durability(c))
        if c.get("error"):
            yield Fact(owner[system], "error", str(c["error"]), src, **common)
            continue
        # The system's own figure (timed inside its adapter) when the adapter gave one: the
        # end-to-end figure also carries the harness's pipe hop, which no application pays.
        own = c.get("system_side") if isinstance(c.get("system_side"), dict) else None
        speed = own or c
        note = ("real, the system's own time (timed in its adapter), one round trip per ID"
                if own else "real, end to end through the harness, one round trip per ID")
        lat = speed.get("latency_ns") if isinstance(speed.get("latency_ns"), dict) else {}
        counters = (c.get("adapter_counters") if isinstance(c.get("adapter_counters"), dict)
                    else {})
        for metric, v in (("ids_per_s", number(speed.get("ids_per_s"))),
                          ("p99_ns", number(lat.get("p99"))),
                          ("deadlocks", number(counters.get("deadlocks"))),
                          ("failed_clients", number(c.get("failed_clients")))):
            if v is not None:
                yield Fact(owner[system], metric, v, src, note=note, **common)
    for i, e in enumerate(real.locality):
        system = str(e.get("system") or "")
        if system in owner and not e.get("error"):
            src = f"bench.json real_systems.locality[{i}]"
            note = "the system's real IDs in the InnoDB model"
            yield from _index_facts(owner[system], system, e, MODEL, payload_of(e),
                                    e.get("clients"), src, note)
            for j, r in enumerate(e.get("row_sizes") or []):
                if isinstance(r, dict):
                    yield from _index_facts(owner[system], system, r, MODEL, payload_of(r),
                                            e.get("clients"), f"{src}.row_sizes[{j}]", note)


# ---------------------------------------------------------------------------------------------
# chaos.json and real_chaos.json: faults


def _chaos_facts(results: Results, owner: dict[str, str]) -> Iterable[Fact]:
    for i, c in enumerate(results.chaos.cells):
        variant = str(c.get("variant") or "")
        if variant not in owner or c.get("skipped") or c.get("error") or c.get("persist"):
            continue
        src = f"chaos.json cells[{i}]"
        common = dict(variant=variant, fault=str(c.get("scenario") or ""),
                      policy=str(c.get("policy") or ""),
                      writers=int(number(c.get("nodes")) or 0) or None)
        for metric in ("ids", "duplicates", "availability", "max_stall_ms", "ksort_bound_ms"):
            v = number(c.get(metric))
            if v is not None:
                yield Fact(owner[variant], metric, v, src, **common)
        if isinstance(c.get("promise_kept"), bool):
            yield Fact(owner[variant], "promise_kept", c["promise_kept"], src,
                       note=str(c.get("verdict") or ""), **common)
        if isinstance(c.get("duplicates_expected"), bool):
            yield Fact(owner[variant], "duplicates_expected", c["duplicates_expected"], src,
                       **common)


def _real_fault_facts(results: Results, facts: Facts, owner: dict[str, str]) -> Iterable[Fact]:
    rf = results.real_faults
    for si, s in enumerate(getattr(rf, "scenarios", []) or []):
        for pi, p in enumerate(s.get("parts") or []):
            if not isinstance(p, dict) or not isinstance(p.get("system"), str):
                continue
            src = f"real_chaos.json scenarios[{si}].parts[{pi}]"
            subject = _system_subject(facts, results, owner, p["system"], p.get("width"), src)
            v = p.get("verdict") if isinstance(p.get("verdict"), dict) else {}
            fig = p.get("figures") if isinstance(p.get("figures"), dict) else {}
            common = dict(variant=p["system"], fault=str(s.get("scenario") or ""),
                          note=str(p.get("label") or ""))
            if isinstance(v.get("passed"), bool):
                yield Fact(subject, "passed", v["passed"], src, **common)
            if v.get("verdict"):
                yield Fact(subject, "verdict", str(v["verdict"]), src, **common)
            for metric in ("ids", "duplicates", "availability", "longest_gap_ms"):
                x = number(fig.get(metric))
                if x is not None:
                    yield Fact(subject, metric, x, src, **common)


def _step_back_text(results: Results) -> str:
    """What the chaos run's clock step back was, from a cell's own scenario summary."""
    for c in results.chaos.cells:
        if c.get("scenario") == STEP_BACK and isinstance(c.get("config"), dict):
            cfg = c["config"]
            text = str(cfg.get("scenario_summary") or "")
            scale = number(cfg.get("time_scale"))
            if scale is not None and scale != 1:
                text += f"; time scale {scale:g}, so each step was {scale:g} × that"
            return text
    return ""


# ---------------------------------------------------------------------------------------------


def facts_of(results: Results) -> Facts:
    """The table of facts of loaded results."""
    subjects, owner, described = _subjects(results)
    out = Facts(results.directory, subjects=subjects, described=described,
                missing=list(results.missing))
    out.problems = [p for p in results.problems() if p not in out.missing]
    out.inputs = {"bench": results.bench.present, "locality": results.locality.present,
                  "chaos": results.chaos.present, "real": results.bench.real.present,
                  "real_chaos": bool(getattr(results.real_faults, "present", False))}
    out.facts += _bench_facts(results, owner)
    out.facts += _locality_facts(results, owner)
    out.facts += _real_facts(results, owner)
    out.facts += _chaos_facts(results, owner)
    out.facts += _real_fault_facts(results, out, owner)
    out.step_back = _step_back_text(results)
    return out


def load_facts(directory: str) -> Facts:
    """Load a results directory and normalise it; never raises on bad inputs."""
    return facts_of(load_results(os.path.abspath(directory)))
