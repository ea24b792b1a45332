"""inputs.py — reads the result files of a run, tolerantly, into plain Python values.

A results directory (reports/latest/ by default) holds up to six files: three main ones

    bench.json     Google Benchmark JSON from build/bin/idbench-bench (bench/run_bench.sh), with
                   the real-system bench (`idbench real`) under the key "real_systems"
    locality.json  {"context", "complete", "matrix": [...], "validation": {...} | null}
                   (idbench locality --matrix)
    chaos.json     {"context", "config", "complete", "cells": [...], ...} (chaos/run_chaos.sh)

and three that only some runs write: real_chaos.json (the real systems under faults, idbench
real-chaos), derived_ids.json (worker ids derived from the environment, derived_ids_run.py) and
worker_ids.json (worker ids leased from etcd, idbench worker-ids). Every section of the report
gets its input from here; no section opens a file itself.

Each file carries the same run-context block (plumbing/run_context.hpp: commit, dirty, build
type, compiler, host, CPU, start time, load): locality.json and chaos.json as their "context"
object, bench.json as the JSON text of its context key "idbench_run_context" (Google Benchmark's
context holds strings). bench.json also carries the variant description that
`idbench list --json` prints, as the JSON text of its context key "idbench_variants": the report
reads what a variant is (its scheme, whether it reads a clock) from the run itself, so a report
rendered later from archived results does not depend on the binary at hand.

Nothing here raises on a missing file, a malformed file or a missing field: each loader
returns what it could read plus `problems`, sentences a report prints as they are ("chaos.json
is missing ..."). A reader never guesses a value that is not in the file; an absent figure is
None and the report shows a dash.

    results = load_results("reports/latest")
    results.bench.runs["generate/cas/twitter/threads:2"].median("ids_per_s")

Thread safety: plain functions and values; nothing is shared.
"""
from __future__ import annotations

import json
import math
import os
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

BENCH_FILE = "bench.json"
LOCALITY_FILE = "locality.json"
CHAOS_FILE = "chaos.json"

# Where each file comes from, for "missing" sentences.
PRODUCER = {
    BENCH_FILE: "./run.sh bench (bench/run_bench.sh)",
    LOCALITY_FILE: "./run.sh locality (idbench locality --matrix)",
    CHAOS_FILE: "./run.sh chaos (chaos/run_chaos.sh)",
}

# generate/<variant>/<layout>/threads:<T> and load/...; baselines are baseline/<name>[/threads:T].
_VARIANT_NAME = re.compile(r"^(generate|load)/([^/]+)/([^/]+)/threads:(\d+)$")
_BASELINE_NAME = re.compile(r"^baseline/([^/]+)(?:/threads:(\d+))?$")
# The harness's floors (floor/<name>/threads:<T>: what the bench's loop costs with no clock read
# and with one) and the bench-only references (reference/<name>/<layout>/threads:<T>: an
# original shape a variant improves on, e.g. Twitter's clock-under-lock mutex). Both go through
# the variants' interface; neither is a registry variant, so the decision table never sees them.
_FLOOR_NAME = re.compile(r"^floor/([^/]+)/threads:(\d+)$")
_REFERENCE_NAME = re.compile(r"^reference/([^/]+)/([^/]+)/threads:(\d+)$")
# Suffixes Google Benchmark appends for UseRealTime()/UseManualTime(); idbench's names carry
# none today, but a later ->UseRealTime() must not make every benchmark unrecognisable.
_TIME_SUFFIX = re.compile(r"/(real_time|manual_time|process_time)$")


def number(value: Any) -> float | None:
    """A finite float, or None for anything else (missing, null, text, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    v = float(value)
    return v if math.isfinite(v) else None


RUN_CONTEXT_KEY = "idbench_run_context"
VARIANTS_KEY = "idbench_variants"


def run_context_of(block: Any) -> dict | None:
    """The run-context block (plumbing/run_context.hpp), or None when `block` is not one."""
    if isinstance(block, str):
        try:
            block = json.loads(block)
        except json.JSONDecodeError:
            return None
    return block if isinstance(block, dict) and "idbench_version" in block else None


def read_json(path: str) -> tuple[Any, str | None]:
    """(document, None) or (None, why it could not be read)."""
    name = os.path.basename(path)
    if not os.path.exists(path):
        return None, f"{name} is missing (written by {PRODUCER.get(name, 'its producer')})"
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), None
    except PermissionError as e:
        return None, f"{name} cannot be read: {e.strerror}"
    except (OSError, UnicodeDecodeError) as e:
        return None, f"{name} cannot be read: {e}"
    except json.JSONDecodeError as e:
        return None, f"{name} is not valid JSON ({e.msg} at line {e.lineno}): half-written or corrupt"


def opened(doc: Any, result: Any, name: str, context: str | None = "context") -> dict | None:
    """The preamble every loader shares: `doc` when it is a JSON object, else None after
    noting in `result.problems` that `name` is not one. With `context` (the key of the
    run-context block; None: no block to read) the block is read into `result.run_context`,
    and its absence noted."""
    if not isinstance(doc, dict):
        result.problems.append(f"{name} is not a JSON object: nothing read")
        return None
    if context is not None:
        result.run_context = run_context_of(doc.get(context))
        if result.run_context is None:
            result.problems.append(f"{name} has no context block: machine, commit and date "
                                   "unknown")
    return doc


# ---------------------------------------------------------------------------------------------
# The variant description (`idbench list --json`)


@dataclass
class Description:
    """Every variant as `idbench list --json` describes it, in registry order (the order the
    charts give out colours in). Empty when the results carry no description."""

    variants: list[dict] = field(default_factory=list)

    def names(self) -> list[str]:
        return [v["name"] for v in self.variants]

    def get(self, name: str) -> dict:
        """The variant's description; {} for a variant the description does not name."""
        return next((v for v in self.variants if v["name"] == name), {})

    def schemes(self) -> dict[str, list[str]]:
        """Scheme name -> its variants, in registry order; variants without a scheme left out."""
        out: dict[str, list[str]] = {}
        for v in self.variants:
            if isinstance(v.get("scheme"), str) and v["scheme"]:
                out.setdefault(v["scheme"], []).append(v["name"])
        return out


def parse_description(doc: Any) -> Description | None:
    """`idbench list --json` output ({"variants": [...]}, or the bare list, or its JSON
    text), or None when `doc` is none of these."""
    if isinstance(doc, str):
        try:
            doc = json.loads(doc)
        except json.JSONDecodeError:
            return None
    if isinstance(doc, dict):
        doc = doc.get("variants")
    if not isinstance(doc, list):
        return None
    return Description([v for v in doc if isinstance(v, dict) and isinstance(v.get("name"), str)])


# ---------------------------------------------------------------------------------------------
# bench.json


@dataclass
class BenchRun:
    """One benchmark (one name), with every repetition Google Benchmark kept for it."""

    name: str
    kind: str  # "generate" | "load" | "baseline" | "floor" | "reference"
    variant: str
    layout: str | None
    threads: int
    label: str = ""
    reps: list[dict] = field(default_factory=list)  # run_type "iteration" entries
    aggregates: dict[str, dict] = field(default_factory=dict)  # aggregate_name → entry
    error: str | None = None

    def values(self, key: str) -> list[float]:
        """The counter or field `key` of every repetition that has it."""
        out = [number(r.get(key)) for r in self.reps]
        return [v for v in out if v is not None]

    def median(self, key: str) -> float | None:
        """Median over repetitions; Google Benchmark's median aggregate when only aggregates
        were kept (--benchmark_report_aggregates_only)."""
        vals = self.values(key)
        if vals:
            return statistics.median(vals)
        agg = self.aggregates.get("median")
        return number(agg.get(key)) if agg else None

    @property
    def repetitions(self) -> int:
        return len(self.reps)

    @property
    def layout_unused(self) -> bool:
        return "layout unused" in self.label


@dataclass
class Bench:
    present: bool = False
    context: dict = field(default_factory=dict)  # Google Benchmark's, with idbench_* keys
    run_context: dict | None = None
    description: Description | None = None
    runs: dict[str, BenchRun] = field(default_factory=dict)  # by name, in file order
    problems: list[str] = field(default_factory=list)
    unrecognised: list[str] = field(default_factory=list)
    real: "Real" = field(default_factory=lambda: Real())

    def find(self, kind: str, variant: str, layout: str | None, threads: int) -> BenchRun | None:
        for r in self.runs.values():
            if (r.kind, r.variant, r.threads) == (kind, variant, threads) and (
                layout is None or r.layout == layout
            ):
                return r
        return None

    def variants(self, kind: str = "generate") -> list[str]:
        seen: dict[str, None] = {}
        for r in self.runs.values():
            if r.kind == kind:
                seen.setdefault(r.variant)
        return list(seen)

    def layouts(self, kind: str = "generate") -> list[str]:
        seen: dict[str, None] = {}
        for r in self.runs.values():
            if r.kind == kind and r.layout:
                seen.setdefault(r.layout)
        return list(seen)

    def threads(self, kind: str = "generate") -> list[int]:
        return sorted({r.threads for r in self.runs.values() if r.kind == kind})

    def latency_layout(self, kind: str) -> str | None:
        """The layout the latency figures of `kind` show: the tight loop on wide (lock and
        cache-line contention, nothing caps), offered load on twitter (below the cap); None
        when `kind` did not run."""
        layouts = self.layouts(kind)
        want = "wide" if kind == "generate" else "twitter"
        return want if want in layouts else (layouts[0] if layouts else None)

    def max_repetitions(self) -> int:
        return max((r.repetitions for r in self.runs.values()), default=0)

    def layout_cap_per_s(self, layout: str) -> float | None:
        """The format cap of one node id, from the context block ("...; cap 4096000 IDs/s per
        node id"), else from a run's cap_per_s ÷ nodes."""
        text = self.context.get(f"idbench_layout_{layout}")
        if isinstance(text, str):
            m = re.search(r"cap ([0-9.e+]+) IDs/s per node", text)
            if m:
                return number(float(m.group(1)))
        for r in self.runs.values():
            if r.layout == layout and not r.layout_unused:
                cap, nodes = r.median("cap_per_s"), r.median("nodes")
                if cap and nodes:
                    return cap / nodes
        return None


def parse_bench_name(name: str, threads_field: Any) -> tuple[str, str, str | None, int] | None:
    """(kind, variant, layout, threads) from a benchmark name, or None. For a floor or a
    reference, `variant` is its name (no-clock, clock-under-lock-mutex)."""
    name = _TIME_SUFFIX.sub("", name)
    m = _VARIANT_NAME.match(name)
    if m:
        return m.group(1), m.group(2), m.group(3), int(m.group(4))
    m = _BASELINE_NAME.match(name)
    if m:
        t = int(m.group(2)) if m.group(2) else int(number(threads_field) or 1)
        return "baseline", m.group(1), None, t
    m = _FLOOR_NAME.match(name)
    if m:
        return "floor", m.group(1), None, int(m.group(2))
    m = _REFERENCE_NAME.match(name)
    if m:
        return "reference", m.group(1), m.group(2), int(m.group(3))
    return None


def load_bench(doc: Any) -> Bench:
    b = Bench(present=True)
    if opened(doc, b, "bench.json", context=None) is None:
        return b
    b.real = load_real(doc.get(REAL_KEY)) if REAL_KEY in doc else Real(problems=[REAL_ABSENT])
    b.problems += b.real.problems
    ctx = doc.get("context")
    if isinstance(ctx, dict):
        b.context = ctx
        b.run_context = run_context_of(ctx.get(RUN_CONTEXT_KEY))
        b.description = parse_description(ctx.get(VARIANTS_KEY))
    if b.run_context is None:
        b.problems.append("bench.json has no context block: machine, commit and date unknown")
    if b.description is None:
        b.problems.append("bench.json carries no variant description (context key "
                          f"{VARIANTS_KEY}): the decision table gives each variant a row of its "
                          "own")
    entries = doc.get("benchmarks")
    if not isinstance(entries, list):
        b.problems.append("bench.json has no 'benchmarks' list: nothing to show")
        return b
    for e in entries:
        if not isinstance(e, dict):
            continue
        run_name = e.get("run_name") or e.get("name")
        if not isinstance(run_name, str):
            continue
        run_name = _TIME_SUFFIX.sub("", run_name)
        parsed = parse_bench_name(run_name, e.get("threads"))
        if parsed is None:
            if run_name not in b.unrecognised:
                b.unrecognised.append(run_name)
            continue
        run = b.runs.get(run_name)
        if run is None:
            kind, variant, layout, threads = parsed
            run = b.runs[run_name] = BenchRun(run_name, kind, variant, layout, threads)
        if isinstance(e.get("label"), str):
            run.label = e["label"]
        if e.get("error_occurred"):
            run.error = str(e.get("error_message") or "error")
            continue
        if e.get("run_type") == "aggregate":
            if isinstance(e.get("aggregate_name"), str):
                run.aggregates[e["aggregate_name"]] = e
        else:
            run.reps.append(e)
    if not b.runs:
        b.problems.append("bench.json holds no generate/, load/, baseline/, floor/ or "
                          "reference/ benchmarks")
    return b


# ---------------------------------------------------------------------------------------------
# bench.json's "real_systems": the real-system bench (bench/real/run_json.hpp)

REAL_KEY = "real_systems"
REAL_ABSENT = ("bench.json carries no real_systems: the real systems (MariaDB AUTO_INCREMENT, "
               "the ticket pair) were not measured (./run.sh bench runs idbench real --system "
               "quick)")
# The fields every measured cell has; a cell without one of them is reported, not guessed.
REAL_CELL_FIELDS = ("system", "scheme", "clients", "request_size", "ids_per_s",
                    "ids_per_s_per_client", "latency_ns", "durability", "error")


@dataclass
class Real:
    """`idbench real`'s record: one cell per (system, durability, clients, request size)."""

    present: bool = False
    complete: bool | None = None
    run_context: dict | None = None
    config: dict = field(default_factory=dict)
    systems: list[dict] = field(default_factory=list)
    cells: list[dict] = field(default_factory=list)
    # The locality of the systems' real IDs (bench/real/real_locality.hpp): one entry per
    # (system, client count); empty when the run carried none.
    locality: list[dict] = field(default_factory=list)
    # The harness's own hop (the null adapter, no system), one cell per (clients, request size);
    # empty when the run measured none.
    harness_hop: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


REAL_LOCALITY_ABSENT = ("bench.json's real_systems has no 'locality' list: the locality of the "
                        "real systems' IDs was not measured (idbench real --locality-rows)")


def load_real_locality(doc: dict, r: Real) -> None:
    """The real run's locality passes into `r`; a missing or malformed list is a sentence."""
    entries = doc.get("locality")
    if entries is None:
        r.problems.append(REAL_LOCALITY_ABSENT)
        return
    if not isinstance(entries, list):
        r.problems.append("bench.json's real_systems 'locality' is not a list: ignored")
        return
    r.locality = [e for e in entries if isinstance(e, dict) and isinstance(e.get("system"), str)]
    if len(r.locality) < len(entries):
        r.problems.append(f"{len(entries) - len(r.locality)} real-system locality entries are "
                          "not objects naming a system: left out")
    failed = [e for e in r.locality if e.get("error")]
    if failed:
        r.problems.append(f"{len(failed)} real-system locality pass"
                          f"{'es' if len(failed) != 1 else ''} failed (their errors are in the "
                          "Real systems section)")


def load_real(doc: Any) -> Real:
    r = Real(present=True)
    if opened(doc, r, "bench.json's real_systems", context=None) is None:
        return r
    r.run_context = run_context_of(doc.get("context"))  # optional: bench.json has the run's
    r.complete = doc.get("complete") if isinstance(doc.get("complete"), bool) else None
    if isinstance(doc.get("config"), dict):
        r.config = doc["config"]
    r.systems = [s for s in doc.get("systems") or [] if isinstance(s, dict)]
    cells = doc.get("cells")
    if not isinstance(cells, list):
        r.problems.append("bench.json's real_systems has no 'cells' list: nothing to show")
        return r
    r.cells = [c for c in cells if isinstance(c, dict)]
    hop = doc.get("harness_hop")
    r.harness_hop = [h for h in hop if isinstance(h, dict)] if isinstance(hop, list) else []
    load_real_locality(doc, r)
    if r.complete is False:
        r.problems.append(f"the real-system bench is partial: {len(r.cells)} of "
                          f"{doc.get('planned', '?')} cells ran (complete: false)")
    failed = [c for c in r.cells if c.get("error")]
    if failed:
        r.problems.append(f"{len(failed)} real-system cell{'s' if len(failed) != 1 else ''} "
                          "failed (their errors are in the Real systems section)")
    lacking = sorted({k for c in r.cells for k in REAL_CELL_FIELDS if k not in c})
    if lacking:
        r.problems.append("some real-system cells lack " + ", ".join(lacking) + ": shown as '–'")
    return r


# ---------------------------------------------------------------------------------------------
# locality.json


@dataclass
class Locality:
    present: bool = False
    run_context: dict | None = None
    matrix: list[dict] = field(default_factory=list)
    validation: dict | None = None  # the --validate object, or None when not run
    problems: list[str] = field(default_factory=list)
    # The row size (payload bytes beside the key) the decision table describes; a matrix from
    # before row sizes were an axis measured key-only rows (0).
    decision_payload_bytes: int = 0

    def validation_rows(self) -> list[dict]:
        rows = (self.validation or {}).get("validation")
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []

    def row_sizes(self) -> list[int]:
        """The payload sizes the matrix measured, ascending."""
        return sorted({payload_of(m) for m in self.matrix})

    def at_row(self, payload: int | None = None) -> list[dict]:
        """The matrix entries at one row size (default: the decision table's)."""
        want = self.decision_payload_bytes if payload is None else payload
        return [m for m in self.matrix if payload_of(m) == want]


def payload_of(entry: dict) -> int:
    """A matrix entry's or validation row's payload bytes beside the key (absent: 0)."""
    p = number(entry.get("payload_bytes"))
    return int(p) if p is not None else 0


def locality_variants(loc: Locality) -> list[str]:
    """The registry variants whose streams the matrix measured, in matrix order."""
    out: dict[str, None] = {}
    for m in loc.matrix:
        s = m.get("stream") if isinstance(m.get("stream"), dict) else {}
        if s.get("variant"):
            out.setdefault(str(s["variant"]))
    return list(out)


def locality_generator(entry: dict) -> str:
    """The generator a matrix entry measured: the variant, or 'sequential'/'random' BIGINT,
    or the keys file's name."""
    s = entry.get("stream") if isinstance(entry.get("stream"), dict) else {}
    if s.get("variant"):
        return str(s["variant"])
    if s.get("synthetic") and s.get("synthetic") != "none":
        return f"{s['synthetic']} bigint"
    if s.get("keys_file"):
        return os.path.basename(str(s["keys_file"]))
    return str(s.get("description") or "?")


def load_locality(doc: Any) -> Locality:
    loc = Locality(present=True)
    if opened(doc, loc, "locality.json") is None:
        return loc
    if doc.get("complete") is False:
        loc.problems.append("locality.json is a partial matrix (complete: false): the streams "
                            "after the last one written are missing")
    matrix = doc.get("matrix")
    if isinstance(matrix, list):
        loc.matrix = [m for m in matrix if isinstance(m, dict)]
        lacking = sorted({k for m in loc.matrix for k in ("avg_leaf_fill", "splits_per_1k",
                                                          "pool_miss_rate", "stream")
                          if k not in m})
        if lacking:
            loc.problems.append("some locality.json matrix entries lack " + ", ".join(lacking))
    else:
        loc.problems.append("locality.json has no 'matrix' list: the model's figures are missing")
    decision = number(doc.get("decision_payload_bytes"))
    sizes = {payload_of(m) for m in loc.matrix}
    loc.decision_payload_bytes = (int(decision) if decision is not None and int(decision) in sizes
                                  else min(sizes, default=0))
    if "validation" not in doc:
        loc.problems.append("locality.json has no 'validation' key: model-vs-engine check unknown")
    elif doc["validation"] is None:
        loc.problems.append("the model-vs-real-engine cross-check did not run (validation: null; "
                            "it needs mariadb-server)")
    elif isinstance(doc["validation"], dict):
        loc.validation = doc["validation"]
    else:
        loc.problems.append("locality.json's 'validation' is not an object: ignored")
    return loc


# ---------------------------------------------------------------------------------------------
# chaos.json


@dataclass
class Chaos:
    present: bool = False
    run_context: dict | None = None
    config: dict = field(default_factory=dict)
    complete: bool | None = None
    cells: list[dict] = field(default_factory=list)
    # The cells of real systems' programs (`chaos --matrix --systems`): what a program did is a
    # finding about it, kept apart from idbench's own variants (their sections and the gate).
    programs: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def ran(self) -> list[dict]:
        """Cells that ran (not skipped, not failed to run)."""
        return [c for c in self.cells if not c.get("skipped") and not c.get("error")]


# The fields every chaos cell carries (chaos/matrix_json.cpp); a cell without one of them is reported, not guessed.
CHAOS_CELL_FIELDS = ("scenario", "variant", "policy", "nodes", "ids", "duplicates",
                     "order_violations", "refusals", "availability", "max_stall_ms",
                     "ksort_bound_ms", "promise_kept")


def gen_bits(cell: dict) -> str | None:
    """The generation bits of the layout a cell ran on ("2" for gen=2), None for a layout
    without (every cell but the clock-sequence cells of a Snowflake variant). A cell that ran
    has its layout in its config, one that could not run at the top level."""
    cfg = cell.get("config") if isinstance(cell.get("config"), dict) else {}
    m = re.search(r"(?:^|,)\s*gen=(\d+)", str(cell.get("layout") or cfg.get("layout") or ""))
    return m.group(1) if m else None


def cell_key(cell: dict) -> tuple:
    """What identifies a cell across runs: scenario, variant, policy, the persisted mark and
    the layout's generation bits."""
    return (cell.get("scenario"), cell.get("variant"), cell.get("policy"),
            bool(cell.get("persist", False)), gen_bits(cell))


def policy_label(cell: dict) -> str:
    """A cell's policy as the report prints it: with its layout's generation bits when it has
    some (the clock-sequence cells, e.g. "clock-sequence gen=2"), and with the persisted
    mark."""
    gen = gen_bits(cell)
    return (str(cell.get("policy", "?")) + (f" gen={gen}" if gen else "")
            + (" + persisted mark" if cell.get("persist") else ""))


# What each clock injector is, in the words a section's one line about it uses
# (chaos/clock_injector.hpp names them: --clock-injector of idbench chaos and real-chaos).
CLOCK_INJECTORS = {
    "libfaketime": "libfaketime (LD_PRELOAD: what reads the clock through a dynamic libc)",
    "ptrace": "ptrace (idbench-inject: the processes' vDSO clock patched to read a shared page)",
}


def clock_injector_line(config: dict | None, file: str) -> str:
    """The one line a clock-fault section shows under its heading: which injector faked the
    clocks of the run `file` records (its config.clock_injector)."""
    name = (config or {}).get("clock_injector")
    if name is None:
        return (f"Clock injector: not recorded in {file} (written before --clock-injector; "
                "those runs used libfaketime).")
    return f"Clock injector: {CLOCK_INJECTORS.get(str(name), str(name))}."


def load_chaos(doc: Any) -> Chaos:
    ch = Chaos(present=True)
    if isinstance(doc, list):  # a bare list of `idbench chaos --json` objects
        doc = {"cells": doc}
    if isinstance(doc, dict) and "cells" not in doc and "scenario" in doc:
        doc = {"context": doc.get("context"), "config": doc.get("config"), "cells": [doc],
               "complete": True}  # one run's JSON
    if opened(doc, ch, "chaos.json") is None:
        return ch
    if isinstance(doc.get("config"), dict):
        ch.config = doc["config"]
    ch.complete = doc.get("complete") if isinstance(doc.get("complete"), bool) else None
    cells = doc.get("cells")
    if not isinstance(cells, list):
        ch.problems.append("chaos.json has no 'cells' list: nothing to show")
        return ch
    ch.cells = [c for c in cells if isinstance(c, dict) and not c.get("system")]
    ch.programs = [c for c in cells if isinstance(c, dict) and c.get("system")]
    planned = number(ch.config.get("cells"))
    if ch.complete is False:
        ch.problems.append(
            f"chaos.json is a partial matrix: {len(ch.cells) + len(ch.programs)} of "
            f"{int(planned) if planned else '?'} cells ran (complete: false)")
    lacking = sorted({k for c in ch.ran() for k in CHAOS_CELL_FIELDS if k not in c})
    if lacking:
        ch.problems.append("some chaos cells lack " + ", ".join(lacking) + ": shown as '–'")
    return ch


# ---------------------------------------------------------------------------------------------
# The optional inputs: real_chaos.json, derived_ids.json, worker_ids.json. Absent unless their
# command ran; each section says so in one sentence.

REAL_FAULTS_FILE = "real_chaos.json"
DERIVED_IDS_FILE = "derived_ids.json"
WORKER_IDS_FILE = "worker_ids.json"
DERIVED_IDS_SCHEMA = "idbench-derived-ids/1"
PRODUCER.update({
    REAL_FAULTS_FILE: "./run.sh real-chaos (idbench real-chaos)",
    DERIVED_IDS_FILE: "./run.sh derived-ids",
    WORKER_IDS_FILE: "./run.sh worker-ids (idbench worker-ids)",
})
# Every input in the order the report's sections read them.
INPUT_FILES = (BENCH_FILE, LOCALITY_FILE, CHAOS_FILE, REAL_FAULTS_FILE, DERIVED_IDS_FILE,
               WORKER_IDS_FILE)


@dataclass
class RealFaults:
    """`idbench real-chaos --out` (real/faults.hpp): one scenario per fault, one part per
    system the fault ran on."""

    present: bool = False
    config: dict = field(default_factory=dict)  # {"clock_injector"}, absent from older files
    scenarios: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def parts(self) -> list[tuple[dict, dict]]:
        """(scenario, part) for every part that is a JSON object."""
        return [(s, p) for s in self.scenarios for p in s.get("parts") or []
                if isinstance(p, dict)]


def load_real_faults(doc: Any) -> RealFaults:
    rf = RealFaults(present=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        rf.problems.append(f"{REAL_FAULTS_FILE} has no 'scenarios' list: the real systems under "
                           "faults are not shown")
        return rf
    if isinstance(doc.get("config"), dict):
        rf.config = doc["config"]
    rf.scenarios = [s for s in doc["scenarios"] if isinstance(s, dict)]
    if not rf.scenarios:
        rf.problems.append(f"{REAL_FAULTS_FILE} holds no scenario: nothing ran")
    return rf


def check_derived_ids(doc: Any) -> str | None:
    """Why a derived_ids.json document cannot be shown, or None when it can."""
    if not isinstance(doc, dict) or doc.get("schema") != DERIVED_IDS_SCHEMA \
            or not isinstance(doc.get("curves"), list):
        return (f"{DERIVED_IDS_FILE} is not an {DERIVED_IDS_SCHEMA} document with 'curves': the "
                "section is not shown")
    return None


# What every worker-ids run carries (worker_ids.py reads these keys).
WORKER_RUN_FIELDS = ("scenario", "behaviour", "duplicates", "nodes", "holdings", "faults")


def check_worker_ids(doc: Any) -> tuple[list | None, str | None]:
    """(the runs, None), or (None, why the worker-ids document cannot be shown)."""
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list) or not runs:
        return None, f"{WORKER_IDS_FILE} has no runs"
    for r in runs:
        if not isinstance(r, dict):
            return None, f"{WORKER_IDS_FILE}: a run is not a JSON object"
        for key in WORKER_RUN_FIELDS:
            if key not in r:
                return None, f"{WORKER_IDS_FILE}: a run has no '{key}'"
    return runs, None


# ---------------------------------------------------------------------------------------------


@dataclass
class Results:
    directory: str
    bench: Bench
    locality: Locality
    chaos: Chaos
    missing: list[str] = field(default_factory=list)  # one sentence per unreadable file
    real_faults: RealFaults | None = None  # real_chaos.json (idbench real-chaos)
    derived_ids: dict | None = None  # derived_ids.json, checked (check_derived_ids)
    worker_ids: list | None = None  # worker_ids.json's runs, checked (check_worker_ids)
    # One sentence per input that could not be read, by file name: absent, unreadable, not
    # JSON, or not the document the report needs. The section that reads the input opens with
    # it; nothing else in the report repeats it.
    unread: dict[str, str] = field(default_factory=dict)

    def problems(self) -> list[str]:
        return (self.missing + self.bench.problems + self.locality.problems + self.chaos.problems
                + (self.real_faults.problems if self.real_faults is not None else []))

    @property
    def description(self) -> Description:
        return self.bench.description or Description()


def load_results(directory: str) -> Results:
    """Every input of a results directory; never raises. The three main inputs are named in
    `missing` when they cannot be read; an optional input only when it is there but
    unreadable. Every input that could not be read has its sentence in `unread`."""
    missing: list[str] = []
    unread: dict[str, str] = {}

    def read(name: str, required: bool) -> Any:
        doc, err = read_json(os.path.join(directory, name))
        if err:
            unread[name] = err
            if required or os.path.exists(os.path.join(directory, name)):
                missing.append(err)
        return doc

    def load(name, loader, empty):
        doc = read(name, True)
        return empty if name in unread else loader(doc)

    bench = load(BENCH_FILE, load_bench, Bench())
    locality = load(LOCALITY_FILE, load_locality, Locality())
    chaos = load(CHAOS_FILE, load_chaos, Chaos())
    results = Results(directory, bench, locality, chaos, missing, unread=unread)

    doc = read(REAL_FAULTS_FILE, False)
    if REAL_FAULTS_FILE not in unread:
        results.real_faults = load_real_faults(doc)
        if not results.real_faults.scenarios and results.real_faults.problems:
            unread[REAL_FAULTS_FILE] = results.real_faults.problems[0]
    elif os.path.exists(os.path.join(directory, REAL_FAULTS_FILE)):
        results.real_faults = RealFaults(present=True)  # there, but not JSON: named in missing
    else:
        results.real_faults = RealFaults()

    doc = read(DERIVED_IDS_FILE, False)
    if DERIVED_IDS_FILE not in unread:
        why = check_derived_ids(doc)
        if why:
            unread[DERIVED_IDS_FILE] = why
            missing.append(why)
        else:
            results.derived_ids = doc

    doc = read(WORKER_IDS_FILE, False)
    if WORKER_IDS_FILE not in unread:
        runs, why = check_worker_ids(doc)
        if why:
            unread[WORKER_IDS_FILE] = why
            missing.append(why)
        else:
            results.worker_ids = runs
    return results
