"""content.py — what the report says, independent of how it is written out.

`build_report(results)` turns the loaded results (inputs.py) into a Report: sections made of
paragraphs, lists, tables and figures, plus the machine-readable summary. render.py writes the
same Report as HTML (figures inline as SVG) and as Markdown (tables only), so the two files
cannot disagree. A section whose input is missing says so in one sentence and moves on.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import units as u
from inputs import Bench, Chaos, Locality, Results, locality_generator, number

# ---------------------------------------------------------------------------------------------
# The document model


@dataclass
class Table:
    header: list[str]
    rows: list[list[Any]]  # a cell is a str, or (str, css class) to mark it good/bad/warn
    align: str = ""  # one letter per column, "l" or "r"; default: first column left, rest right
    caption: str = ""
    compact: bool = False  # HTML: keep every cell but the last on one line


@dataclass
class Figure:
    id: str
    title: str
    caption: str  # how to read it: printed under the chart, and in Markdown instead of it
    draw: Callable[[], str] | None = None  # returns an SVG document
    svg: str | None = None
    error: str | None = None  # why it is not drawn


@dataclass
class Section:
    id: str
    title: str
    blocks: list[tuple[str, Any]] = field(default_factory=list)  # ("p"|"ul"|"table"|"figure", x)

    def p(self, text: str) -> None:
        self.blocks.append(("p", text))

    def ul(self, items: list[str]) -> None:
        if items:
            self.blocks.append(("ul", items))

    def table(self, t: Table) -> None:
        self.blocks.append(("table", t))

    def figure(self, f: Figure) -> None:
        self.blocks.append(("figure", f))


@dataclass
class Report:
    title: str
    generated_utc: str
    directory: str
    sections: list[Section]
    summary: dict

    def figures(self) -> list[Figure]:
        return [x for s in self.sections for kind, x in s.blocks if kind == "figure"]


GOOD, BAD, WARN = "good", "bad", "warn"

# ---------------------------------------------------------------------------------------------
# The decision table of BRIEF §7 and the registry variants behind each scheme.


@dataclass(frozen=True)
class Scheme:
    name: str
    variants: tuple[str, ...]
    sortable: str
    made_where: str
    ops_burden: str
    pick_when: str
    note: str = ""


SCHEMES = (
    Scheme("AUTO_INCREMENT", ("auto-increment",), "yes", "database", "very low",
           "one database is enough",
           "measured in process (one shared atomic): the real scheme adds a database round trip "
           "per ID"),
    Scheme("UUIDv4", ("uuidv4",), "no", "application", "low",
           "no order needed, must be unguessable"),
    Scheme("ticket server", ("ticket-pair",), "yes*", "database", "medium (two servers)",
           "short numeric ids, many app servers",
           "measured in process (two counters, odd and even): the real scheme adds a network "
           "round trip per ID; * unique, but the two streams drift apart in time"),
    Scheme("Snowflake", ("mutex", "cas", "thread-local"), "yes (k-sorted)", "application",
           "high (worker ids, clocks)", "millions of ids/s"),
    Scheme("UUIDv7", ("uuidv7",), "yes (k-sorted)", "application", "low (a library)",
           "time order without worker ids"),
)

# The chaos scenarios drawn as timelines (issue 6), and the preferred bench layouts.
TIMELINE_SCENARIOS = ("ntp-step-back", "leap-second")
PREFERRED_LAYOUT = "twitter"
CONTENTION_LAYOUT = "wide"


def _first_present(options, present):
    for o in options:
        if o in present:
            return o
    return present[0] if present else None


# ---------------------------------------------------------------------------------------------
# Run information


def _short_commit(c: Any) -> str:
    if not isinstance(c, str) or not c:
        return u.DASH
    m = re.match(r"^([0-9a-f]{40})(.*)$", c)
    return m.group(1)[:12] + m.group(2) if m else c


def _commit_base(c: Any) -> str | None:
    if not isinstance(c, str):
        return None
    m = re.match(r"^([0-9a-f]{7,40})", c)
    return m.group(1) if m else None


def run_info(results: Results) -> tuple[Table, list[str], dict]:
    """One row per input: machine, commit and date of the run, from its context block."""
    rows, notes, info = [], [], {}
    b = results.bench
    if b.present:
        c = b.context
        load = c.get("idbench_loadavg_at_start")
        load = " ".join(str(load).split()[:3]) if load else (
            " ".join(f"{x:.2f}" for x in c["load_avg"]) if isinstance(c.get("load_avg"), list)
            else None)
        cpu = f"{c.get('num_cpus', '?')} CPUs @ {c.get('mhz_per_cpu', '?')} MHz"
        info["bench"] = {"host": c.get("host_name"), "cpu": cpu, "commit": c.get("idbench_commit"),
                         "build_type": c.get("idbench_build_type"), "date": c.get("date"),
                         "compiler": c.get("idbench_compiler"), "load_at_start": load,
                         "repetitions": b.max_repetitions(), "benchmarks": len(b.runs),
                         "timer": c.get("idbench_timer"),
                         "clock_source": c.get("idbench_clock_source")}
        reps = b.max_repetitions()
        rows.append(["bench.json", c.get("host_name", u.DASH), cpu,
                     _short_commit(c.get("idbench_commit")),
                     c.get("idbench_build_type", u.DASH), c.get("date", u.DASH),
                     f"{len(b.runs)} benchmarks × {reps} repetition{'s' if reps != 1 else ''}; "
                     f"load {load or '?'} at start; {c.get('idbench_compiler', '')}"])
        if load:
            try:
                if float(load.split()[0]) > 0.5 * float(c.get("num_cpus") or 1):
                    notes.append(f"The machine was busy when the bench started (load {load} on "
                                 f"{c.get('num_cpus')} CPUs): throughput and tails suffer.")
            except ValueError:
                pass
    else:
        rows.append(["bench.json", ("missing", BAD), "", "", "", "", ""])
    loc = results.locality
    if loc.present:
        c = loc.context
        info["locality"] = {k: c.get(k) for k in ("host", "cpu", "cpus", "kernel", "commit",
                                                  "build_type", "date")}
        rows_n = sorted({int(m["rows"]) for m in loc.matrix if number(m.get("rows"))})
        vrows = loc.validation_rows()
        detail = (f"model: {len(loc.matrix)} streams × {', '.join(u.count(r) for r in rows_n)} rows"
                  + (f"; engines: {len(vrows)} streams × "
                     f"{u.count(number((vrows[0].get('model') or {}).get('rows')))} rows"
                     if vrows else "; engines: not run"))
        rows.append(["locality.json", c.get("host", u.DASH),
                     f"{c.get('cpus', '?')} × {c.get('cpu', '?')}", _short_commit(c.get("commit")),
                     c.get("build_type", u.DASH), c.get("date", u.DASH), detail])
    else:
        rows.append(["locality.json", ("missing", BAD), "", "", "", "", ""])
    ch = results.chaos
    if ch.present:
        c = ch.context
        info["chaos"] = {k: c.get(k) for k in ("host", "cpu", "cpus", "kernel", "commit",
                                               "build_type", "date", "libfaketime_version")}
        cfg = ch.config
        detail = (f"{len(ch.cells)} cells"
                  + (" (complete)" if ch.complete else " (partial)" if ch.complete is False else "")
                  + (f"; {cfg.get('nodes')} nodes × {cfg.get('threads')} threads at "
                     f"{u.si(number(cfg.get('rate_per_node')))} IDs/s per node; "
                     f"time scale {cfg.get('time_scale')}" if cfg else "")
                  + (f"; libfaketime {c.get('libfaketime_version')}"
                     if c.get("libfaketime_version") else ""))
        rows.append(["chaos.json", c.get("host", u.DASH),
                     f"{c.get('cpus', '?')} × {c.get('cpu', '?')}", _short_commit(c.get("commit")),
                     c.get("build_type", u.DASH), c.get("date", u.DASH), detail])
    else:
        rows.append(["chaos.json", ("missing", BAD), "", "", "", "", ""])
    commits = {k: _commit_base(v.get("commit")) for k, v in info.items()}
    distinct = {c for c in commits.values() if c}
    if len(distinct) > 1:
        notes.append("The inputs come from different commits ("
                     + ", ".join(f"{k} {_short_commit(v)}" for k, v in commits.items() if v)
                     + "): compare them with care.")
    dirty = [k for k, v in info.items() if isinstance(v.get("commit"), str) and "dirty" in v["commit"]]
    if dirty:
        notes.append("Built from a working tree with uncommitted changes: " + ", ".join(dirty) + ".")
    table = Table(["input", "host", "CPU", "commit", "build", "date (UTC)", "what ran"], rows,
                  align="lllllll")
    return table, notes, info


# ---------------------------------------------------------------------------------------------
# bench


def _bench_value(b: Bench, kind, variant, layout, threads, key):
    r = b.find(kind, variant, layout, threads)
    return None if r is None or r.error else r.median(key)


def throughput_tables(b: Bench) -> list[Table]:
    tables = []
    threads = b.threads("generate")
    if threads:
        rows = []
        for layout in b.layouts("generate"):
            # A 1-thread cap ratio below 0.99 is worth a mark only on a layout whose cap a tight
            # loop reaches (twitter); nothing reaches the wide layout's, by design.
            reachable = any((r.median("cap_ratio") or 0) >= 0.9 for r in b.runs.values()
                            if r.kind == "generate" and r.layout == layout and not r.error)
            for v in b.variants("generate"):
                row = [f"{v} · {layout}"]
                any_run = False
                for t in threads:
                    r = b.find("generate", v, layout, t)
                    if r is None:
                        row.append(u.DASH)
                        continue
                    any_run = True
                    if r.error:
                        row.append((f"error: {r.error}", BAD))
                        continue
                    ids, cap = r.median("ids_per_s"), r.median("cap_ratio")
                    cell = u.si(ids) + (f" ({u.ratio(cap)})" if cap is not None else "")
                    row.append((cell, WARN) if reachable and cap is not None and cap < 0.99 and t == 1
                               else cell)
                if any_run:
                    rows.append(row)
        tables.append(Table(["generate: variant · layout"] + [f"{t} thread{'s' if t > 1 else ''}"
                                                              for t in threads], rows,
                            caption="IDs per second of real time (median over repetitions); in "
                                    "brackets the cap ratio, achieved ÷ the format cap of the "
                                    "node ids used (absent for IDs without a cap). Marked: a "
                                    "1-thread cap ratio below 0.99 on a layout whose cap the "
                                    "tight loop reaches."))
        rows = []
        for layout in b.layouts("generate"):
            for v in b.variants("generate"):
                cells = []
                for t in threads:
                    r = b.find("generate", v, layout, t)
                    cells.append(u.DASH if r is None or r.error else
                                 f"{u.duration_ns(r.median('p50_ns'))} / "
                                 f"{u.duration_ns(r.median('p99_ns'))} / "
                                 f"{u.duration_ns(r.median('p999_ns'))}")
                if any(c != u.DASH for c in cells):
                    rows.append([f"{v} · {layout}"] + cells)
        tables.append(Table(["generate: variant · layout"] + [f"{t} thr: p50 / p99 / p99.9"
                                                              for t in threads], rows,
                            caption="Per-call latency in a tight loop, every thread calling at "
                                    "once: contention and waits for the next tick show here."))
    lthreads = b.threads("load")
    if lthreads:
        rows = []
        for layout in b.layouts("load"):
            for v in b.variants("load"):
                cells = []
                for t in lthreads:
                    r = b.find("load", v, layout, t)
                    cells.append(u.DASH if r is None or r.error else
                                 f"{u.duration_ns(r.median('p50_ns'))} / "
                                 f"{u.duration_ns(r.median('p99_ns'))} / "
                                 f"{u.duration_ns(r.median('p999_ns'))}")
                if any(c != u.DASH for c in cells):
                    rows.append([f"{v} · {layout}"] + cells)
        rate = number(_as_float(b.context.get("idbench_load_rate_per_s")))
        tables.append(Table(["load: variant · layout"] + [f"{t} thr: p50 / p99 / p99.9"
                                                          for t in lthreads], rows,
                            caption=f"Offered load: the threads together ask for "
                                    f"{u.si(rate) if rate else 'a fixed rate of'} IDs/s, below "
                                    "the cap; latency counts from each call's intended send time "
                                    "(corrected for coordinated omission)."))
    base = [r for r in b.runs.values() if r.kind == "baseline"]
    if base:
        rows = []
        for r in base:
            if r.error:
                rows.append([r.name, (f"error: {r.error}", BAD), "", "", "", ""])
                continue
            rt = r.median("real_time")
            unit = r.reps[0].get("time_unit", "ns") if r.reps else "ns"
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}.get(unit, 1)
            rows.append([r.name, u.si(r.median("ids_per_s")),
                         u.duration_ns(rt * scale if rt is not None else None),
                         u.duration_ns(r.median("p50_ns")), u.duration_ns(r.median("p99_ns")),
                         u.duration_ns(r.median("p999_ns"))])
        tables.append(Table(["baseline", "calls/s", "real time per iteration", "p50", "p99",
                             "p99.9"], rows,
                            caption="What a C++ user would call instead, in the same run: one "
                                    "clock read is the floor for any clock-per-ID design."))
    return tables


def _as_float(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# locality


def locality_tables(loc: Locality) -> list[Table]:
    tables = []
    if loc.matrix:
        rows = []
        for m in loc.matrix:
            s = m.get("stream") if isinstance(m.get("stream"), dict) else {}
            rows.append([locality_generator(m), str(s.get("writers", u.DASH)),
                         str(s.get("arrival", u.DASH)), str(m.get("key_type", u.DASH)),
                         m.get("engine", u.DASH), u.count(number(m.get("rows"))),
                         u.count(number(m.get("leaf_pages"))),
                         u.percent(number(m.get("avg_leaf_fill"))),
                         u.fixed(number(m.get("splits_per_1k")), 2),
                         u.fixed(number(m.get("distinct_leaves_per_1k")), 1),
                         u.percent(number(m.get("pool_miss_rate")), 2),
                         str(m.get("height", u.DASH))])
        tables.append(Table(["generator", "writers", "arrival", "key", "engine", "rows",
                             "leaf pages", "leaf fill", "splits / 1k", "leaves touched / 1k",
                             "pool miss", "height"], rows, align="llllrrrrrrrr",
                            caption="The InnoDB model on each generator's stream. Leaves touched "
                                    "per 1,000 consecutive inserts and the miss rate of an LRU "
                                    "buffer pool show locality; fill and splits show waste."))
    vrows = loc.validation_rows()
    if vrows:
        rows = []
        for r in vrows:
            def pages(e):
                x = r.get(e)
                return u.count(number(x.get("leaf_pages"))) if isinstance(x, dict) else u.DASH

            def fill(e):
                x = r.get(e)
                return u.percent(number(x.get("avg_leaf_fill"))) if isinstance(x, dict) else u.DASH
            err, tol = number(r.get("error")), number(r.get("tolerance"))
            ok = r.get("pass")
            verdict = (("ok", GOOD) if ok is True else ("FAIL", BAD) if ok is False else u.DASH)
            rows.append([str(r.get("stream", "?")), str(r.get("key_type", u.DASH)),
                         pages("model"), pages("innodb"),
                         u.percent(err) if err is not None else u.DASH,
                         u.percent(tol, 0) if tol is not None else u.DASH, verdict,
                         fill("model"), fill("innodb"), fill("sqlite"), fill("postgres")])
        v = loc.validation or {}
        unavailable = v.get("unavailable") or []
        tables.append(Table(["stream", "key", "model leaf pages", "InnoDB leaf pages", "error",
                             "tolerance", "", "model fill", "InnoDB fill", "SQLite fill",
                             "PostgreSQL fill"], rows, align="llrrrrlrrrr",
                            caption="The model against the real engines on the same stream. "
                                    "InnoDB (MariaDB) is the one the model must match; SQLite and "
                                    "PostgreSQL split pages by their own rules and are shown "
                                    "beside it."
                                    + (f" Not run: {', '.join(map(str, unavailable))}."
                                       if unavailable else "")))
    return tables


# ---------------------------------------------------------------------------------------------
# chaos


def chaos_verdict(cell: dict) -> tuple[str, str]:
    """(short verdict, css class) of one cell."""
    if cell.get("error"):
        return f"could not run: {cell['error']}", BAD
    if cell.get("skipped"):
        return "skipped (n/a)", ""
    kept = cell.get("promise_kept")
    dups = number(cell.get("duplicates"))
    if kept is False:
        return "BROKEN", BAD
    if kept is True:
        if dups:
            caught = cell.get("caught")
            return ("duplicates caught (expected)" if caught is not False else
                    "duplicates expected"), WARN
        return "kept", GOOD
    return "unknown (no promise_kept)", WARN


def chaos_table(ch: Chaos) -> Table:
    rows = []
    for c in ch.cells:
        verdict, cls = chaos_verdict(c)
        policy = str(c.get("policy", "?")) + (" + persisted mark" if c.get("persist") else "")
        if c.get("skipped") or c.get("error"):
            rows.append([str(c.get("scenario", "?")), str(c.get("variant", "?")), policy,
                         "", "", "", "", "", "", "", ((c.get("skipped") and
                                                      f"skipped: {c['skipped']}") or verdict, cls)])
            continue
        dups = number(c.get("duplicates"))
        rows.append([str(c.get("scenario", "?")), str(c.get("variant", "?")), policy,
                     u.count(number(c.get("ids"))),
                     (u.count(dups), BAD if dups and c.get("promise_kept") is False else
                      WARN if dups else ""),
                     u.count(number(c.get("order_violations"))),
                     u.count(number(c.get("refusals"))),
                     u.percent(number(c.get("availability"))),
                     u.duration_ms(number(c.get("max_stall_ms"))),
                     u.duration_ms(number(c.get("ksort_bound_ms"))), (verdict, cls)])
    return Table(["scenario", "variant", "policy", "IDs", "duplicates", "order violations",
                  "refusals", "availability", "max stall", "k-sort bound", "verdict"], rows,
                 align="lllrrrrrrrl", compact=True,
                 caption="One row per cell. A policy that promises uniqueness must show 0 "
                         "duplicates ('kept'); where duplicates are expected (the unsafe policy, "
                         "a restart without a persisted mark, a worker-id collision) the checker "
                         "must catch them ('caught'). BROKEN is a promise the generator did not "
                         "keep. Availability: share of the run a node could issue IDs.")


def chaos_findings(ch: Chaos) -> list[str]:
    out = []
    for c in ch.cells:
        if c.get("promise_kept") is False:
            f = c.get("findings") or []
            out.append(f"{c.get('scenario')} · {c.get('variant')} · {c.get('policy')}: "
                       f"{c.get('verdict') or 'promise broken'}"
                       + (" — " + "; ".join(map(str, f)) if f else ""))
        elif c.get("error"):
            out.append(f"{c.get('scenario')} · {c.get('variant')} · {c.get('policy')}: could not "
                       f"run: {c['error']}")
    return out


def _scheme_chaos(ch: Chaos, variants: tuple[str, ...]) -> dict:
    cells = [c for c in ch.ran() if c.get("variant") in variants]
    if not cells:
        return {}
    promising = [c for c in cells if c.get("duplicates_expected") is False]
    broken = [c for c in cells if c.get("promise_kept") is False]
    dups_promised = sum(number(c.get("duplicates")) or 0 for c in promising)
    step = {}
    for c in cells:
        if c.get("scenario") == "ntp-step-back" and not c.get("persist"):
            a = number(c.get("availability"))
            if a is not None and c.get("policy") != "unsafe":
                p = c.get("policy")
                step[p] = min(step.get(p, 1.0), a)
    skew = [number(c.get("ksort_bound_ms")) for c in cells if c.get("scenario") == "skew"]
    skew = [x for x in skew if x is not None]
    return {"cells": len(cells), "promising_cells": len(promising),
            "duplicates_where_promised_none": dups_promised, "broken": len(broken),
            "ntp_step_back_availability": step, "ksort_bound_ms_under_skew":
            max(skew) if skew else None}


# ---------------------------------------------------------------------------------------------
# The decision table


def decision_table(results: Results) -> tuple[Table, list[dict], list[str]]:
    b, loc, ch = results.bench, results.locality, results.chaos
    layout = _first_present((PREFERRED_LAYOUT,), b.layouts("generate"))
    gen_variants = b.variants("generate")
    loc_variants = [locality_generator(m) for m in loc.matrix]
    chaos_variants = {c.get("variant") for c in ch.ran()}
    known = {v for s in SCHEMES for v in s.variants}
    schemes = list(SCHEMES)
    # Variants the brief's table does not name still get a row: the registry may grow.
    for v in dict.fromkeys(gen_variants + [x for x in loc_variants if " " not in x]):
        if v not in known and v:
            schemes.append(Scheme(f"({v})", (v,), u.DASH, u.DASH, u.DASH,
                                  "not in the brief's table", ""))
    rows, data, notes = [], [], []
    for s in schemes:
        present = [v for v in s.variants if v in gen_variants or v in loc_variants
                   or v in chaos_variants]
        # The variant shown: the fastest at 2 threads, else the first present.
        best = None
        if b.present and layout:
            speeds = [(_bench_value(b, "generate", v, layout, 2, "ids_per_s") or
                       _bench_value(b, "generate", v, layout, 1, "ids_per_s") or -1, v)
                      for v in s.variants if v in gen_variants]
            if speeds:
                best = max(speeds)[1]
        shown = best or (present[0] if present else s.variants[0])
        d: dict[str, Any] = {"scheme": s.name, "variants": list(s.variants), "shown": shown}
        # Throughput and latency.
        if b.present and layout and shown in gen_variants:
            ids1 = _bench_value(b, "generate", shown, layout, 1, "ids_per_s")
            ids2 = _bench_value(b, "generate", shown, layout, 2, "ids_per_s")
            cap1 = _bench_value(b, "generate", shown, layout, 1, "cap_ratio")
            p99 = _bench_value(b, "generate", shown, layout, 2, "p99_ns")
            p999 = _bench_value(b, "generate", shown, layout, 2, "p999_ns")
            d.update(ids_per_s_1t=ids1, ids_per_s_2t=ids2, cap_ratio_1t=cap1, p99_ns_2t=p99,
                     p999_ns_2t=p999, layout=layout)
            speed = f"{u.si(ids1)} · {u.si(ids2)}" + (f" (cap ratio {u.ratio(cap1)} at 1)"
                                                       if cap1 is not None else "")
            tail = f"{u.duration_ns(p99)} · {u.duration_ns(p999)}"
        else:
            speed = tail = ("not measured" if b.present else "bench.json missing")
        # Locality (the model, per writer count).
        fills, splits, miss = {}, None, None
        loc_shown = _first_present((shown,) + s.variants,
                                   [v for v in loc_variants if v in s.variants])
        entries = [m for m in loc.matrix if locality_generator(m) == loc_shown]
        for m in entries:
            fills[(m.get("stream") or {}).get("writers")] = number(m.get("avg_leaf_fill"))
        if entries:
            most = max(entries, key=lambda m: number((m.get("stream") or {}).get("writers")) or 0)
            splits, miss = number(most.get("splits_per_1k")), number(most.get("pool_miss_rate"))
        if fills:
            ws = sorted(k for k in fills if k is not None)
            d.update(leaf_fill_by_writers={str(k): fills[k] for k in ws},
                     splits_per_1k_most_writers=splits, pool_miss_rate_most_writers=miss)
            fill_text = " · ".join(u.percent(fills[k], 0) for k in ws)
            loc_text = f"{u.fixed(splits, 1)} · {u.percent(miss, 1)}"
        else:
            fill_text = loc_text = ("not measured" if loc.present else "locality.json missing")
        # Clock faults.
        timed = any(v in chaos_variants for v in s.variants)
        chaos = _scheme_chaos(ch, s.variants) if timed else {}
        d["chaos"] = chaos
        if chaos:
            step = chaos["ntp_step_back_availability"]
            avail = ""
            if step:
                hi = max(step, key=step.get)
                lo = min(step, key=step.get)
                avail = (f"; ntp-step-back availability {u.percent(step[hi], 0)} ({hi})"
                         + (f" … {u.percent(step[lo], 0)} ({lo})" if lo != hi else ""))
            clock = ((f"{chaos['broken']} broken promise{'s' if chaos['broken'] != 1 else ''}",
                      BAD) if chaos["broken"] else
                     f"{u.count(chaos['duplicates_where_promised_none'])} duplicates in "
                     f"{chaos['promising_cells']} cells that promise none{avail}")
        elif not ch.present:
            clock = "chaos.json missing"
        elif any(c.get("variant") in s.variants for c in ch.cells):
            clock = "did not run (skipped or failed)"
        else:
            clock = "no clock: not in the chaos matrix" if shown in ("auto-increment", "uuidv4",
                                                                     "ticket-pair") \
                else "not in this chaos matrix"
        sortable = s.sortable
        if chaos.get("ksort_bound_ms_under_skew") is not None:
            sortable += f"; k-sort bound {u.duration_ms(chaos['ksort_bound_ms_under_skew'])} " \
                        "under skew"
        name = s.name + (f" ({shown})" if len(s.variants) > 1 or shown != s.variants[0] else "")
        rows.append([name, sortable, s.made_where, s.ops_burden, s.pick_when, speed, tail,
                     fill_text, loc_text, clock])
        data.append(d)
        if s.note:
            notes.append(f"{s.name}: {s.note}.")
    t = Table(["scheme (variant)", "sortable", "made where", "ops burden", "pick when",
               f"IDs/s 1 · 2 threads ({layout or '?'})", "p99 · p99.9, 2 threads",
               "leaf fill 1 · 8 writers", "splits/1k · pool miss, 8 writers", "clock faults"],
              rows, align="llllllllll",
              caption="The seeds' decision table (BRIEF §7), each row with this run's numbers. "
                      "Where a scheme has several variants, the fastest at 2 threads is shown.")
    return t, data, notes


# ---------------------------------------------------------------------------------------------


def build_report(results: Results, charts_module=None, now: dt.datetime | None = None,
                 no_charts_reason: str = "python3-matplotlib is not available to "
                                         "/usr/bin/python3") -> Report:
    """The whole report. `charts_module` draws the figures (None: each figure is listed with
    `no_charts_reason`)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    sections = []
    summary: dict[str, Any] = {"schema": "idbench-report/1",
                               "generated_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "results_dir": results.directory}

    # This run.
    s = Section("run", "This run")
    table, notes, info = run_info(results)
    s.table(table)
    for n in notes:
        s.p(n)
    summary["run"] = info
    problems = results.problems()
    summary["missing"] = problems
    summary["inputs"] = {"bench": results.bench.present, "locality": results.locality.present,
                         "chaos": results.chaos.present}
    if problems:
        s.p("Missing or partial — the report shows what it has:")
        s.ul(problems)
    else:
        s.p("Every input is present and complete.")
    sections.append(s)

    # Decision table.
    s = Section("decision", "Which generator: the decision table with this run's numbers")
    t, data, notes = decision_table(results)
    s.table(t)
    s.ul(notes)
    summary["decision_table"] = data
    sections.append(s)

    def fig(section: Section, id_: str, title: str, caption: str, draw: Callable[[], str] | None,
            missing: str | None = None):
        f = Figure(id_, title, caption)
        if missing:
            f.error = missing
        elif charts_module is None:
            f.error = f"charts not drawn: {no_charts_reason}"
        else:
            f.draw = draw
        section.figure(f)

    # Bench.
    b = results.bench
    s = Section("bench", "Throughput and latency under contention (bench.json)")
    if not b.present:
        s.p("bench.json is missing: run ./run.sh bench.")
    else:
        reps = b.max_repetitions()
        s.p(f"Medians over {reps} repetition{'s' if reps != 1 else ''} per benchmark. "
            + (f"Timer: {b.context['idbench_timer']}." if b.context.get("idbench_timer") else ""))
        fig(s, "throughput", "Throughput against threads, with the format cap",
            "x: threads (8 oversubscribes 2 cores on purpose); y: IDs per second of real time, "
            "log scale. The solid black line is the format cap of one node id (4,096 IDs per ms "
            "for 41/10/12): a correct Snowflake in a tight loop sits on it whatever its locking, "
            "so the cap ratio, not the speed, is the figure to read on that layout. The dotted "
            "black line is the cap for the node ids a variant used (thread-local takes one per "
            "thread). Dashed coloured lines: variants that take no layout (the same runs in both "
            "panels). On the wide layout nothing caps, so the lines show synchronisation cost.",
            (lambda: charts_module.throughput_chart(b)) if charts_module else None,
            None if b.threads("generate") else "no generate/ benchmarks in bench.json")
        fig(s, "latency", "Latency percentiles under contention",
            "Per-call latency at p50, p99 and p99.9, log scale, against threads. Top row: tight "
            "loop on the wide layout (every thread calls at once: lock and cache-line "
            "contention). Bottom row: offered load below the cap, latency from the intended send "
            "time, so stalls behind a slow call count. Contention shows in the tail, not in the "
            "median.",
            (lambda: charts_module.latency_chart(b)) if charts_module else None,
            None if (b.threads("generate") or b.threads("load")) else
            "no generate/ or load/ benchmarks in bench.json")
        for t in throughput_tables(b):
            s.table(t)
        errors = [f"{r.name}: {r.error}" for r in b.runs.values() if r.error]
        if errors:
            s.p("Benchmarks that recorded an error (SkipWithError):")
            s.ul(errors)
        if b.unrecognised:
            s.p("Benchmarks not recognised by name (not shown): " + ", ".join(b.unrecognised[:10])
                + (" …" if len(b.unrecognised) > 10 else ""))
        summary["bench"] = {
            "repetitions": reps,
            "runs": {r.name: {"kind": r.kind, "variant": r.variant, "layout": r.layout,
                              "threads": r.threads, "error": r.error,
                              **{k: r.median(k) for k in ("ids_per_s", "cap_ratio", "wait_ratio",
                                                          "p50_ns", "p99_ns", "p999_ns",
                                                          "max_ns")}}
                     for r in b.runs.values()}}
    sections.append(s)

    # Locality.
    loc = results.locality
    s = Section("locality", "Insert locality in a clustered B+tree (locality.json)")
    if not loc.present:
        s.p("locality.json is missing: run ./run.sh locality.")
    else:
        fig(s, "locality-model", "Locality per generator (InnoDB model)",
            "One bar per generator and writer count. Leaf fill: how full the leaf pages end up "
            "(sequential keys ≈ 15/16, random ≈ ln 2 = 69 %); splits per 1,000 inserts; buffer-pool "
            "miss rate of an LRU pool sized to a fraction of the final index (near 0 when inserts "
            "touch one page at a time, high when each insert lands on a random leaf). Grey lines: "
            "15/16 and ln 2.",
            (lambda: charts_module.locality_chart(loc)) if charts_module else None,
            None if loc.matrix else "locality.json has no matrix entries")
        fig(s, "locality-engines", "The model beside the real engines",
            "The same streams inserted into the model and into real MariaDB InnoDB, SQLite and "
            "PostgreSQL. The model must match InnoDB (its leaf pages are in the table below, with "
            "the error); SQLite and PostgreSQL split by their own rules and page sizes. The real "
            "engines report no buffer-pool miss rate for these runs: that figure is the model's "
            "only.",
            (lambda: charts_module.engines_chart(loc)) if charts_module else None,
            None if loc.validation_rows() else "the model-vs-engine cross-check did not run")
        for t in locality_tables(loc):
            s.table(t)
        v = loc.validation or {}
        if loc.validation_rows():
            s.p("Cross-check: " + ("the model agrees with InnoDB within tolerance on every stream."
                                   if v.get("pass") is True else
                                   "InnoDB did not run." if v.get("innodb_ran") is False else
                                   "the model DISAGREES with InnoDB on some stream (see FAIL)."))
        summary["locality"] = {
            "matrix": [{"generator": locality_generator(m),
                        "writers": (m.get("stream") or {}).get("writers"),
                        **{k: m.get(k) for k in ("engine", "key_type", "rows", "leaf_pages",
                                                 "avg_leaf_fill", "splits_per_1k",
                                                 "distinct_leaves_per_1k", "pool_miss_rate")}}
                       for m in loc.matrix],
            "validation_pass": v.get("pass") if loc.validation else None}
    sections.append(s)

    # Chaos.
    ch = results.chaos
    s = Section("chaos", "Clock faults: what each policy does when time goes backwards "
                         "(chaos.json)")
    if not ch.present:
        s.p("chaos.json is missing: run ./run.sh chaos.")
    else:
        ran = ch.ran()
        broken = [c for c in ch.cells if c.get("promise_kept") is False]
        caught = [c for c in ran if c.get("promise_kept") is True and number(c.get("duplicates"))]
        s.p(f"{len(ch.cells)} cells, {len(ran)} ran; {len(broken)} broken promise"
            f"{'s' if len(broken) != 1 else ''}; {len(caught)} cells with expected duplicates, "
            "caught by the checker.")
        findings = chaos_findings(ch)
        if findings:
            s.p("Broken promises and cells that could not run:")
            s.ul(findings)
        timelines = _timeline_groups(ch)
        if not timelines:
            fig(s, "timeline", "Timelines", "", None,
                "no ntp-step-back or leap-second cell with a timeline in chaos.json")
        for (scenario, variant), cells in timelines.items():
            fig(s, f"timeline-{scenario}-{variant}",
                f"{scenario} · {variant}: the time in the IDs against true time, per policy",
                _timeline_caption(scenario, cells),
                (lambda sc=scenario, cs=cells: charts_module.timeline_chart(sc, cs))
                if charts_module else None)
        s.table(chaos_table(ch))
        summary["chaos"] = {
            "complete": ch.complete,
            "cells": [{k: c.get(k) for k in ("scenario", "variant", "policy", "persist", "nodes",
                                             "ids", "duplicates", "order_violations", "refusals",
                                             "availability", "max_stall_ms", "ksort_bound_ms",
                                             "promise_kept", "duplicates_expected", "caught",
                                             "skipped", "error")}
                      for c in ch.cells],
            "broken": len(broken)}
    sections.append(s)

    # Figures are drawn last so that a chart that fails is a sentence, not a crash.
    drawn = {}
    report = Report("idbench report", summary["generated_utc"], results.directory, sections,
                    summary)
    for f in report.figures():
        if f.draw is not None and f.error is None:
            try:
                f.svg = f.draw()
            except Exception as e:  # noqa: BLE001 — any failure becomes a sentence
                f.error = f"could not be drawn: {type(e).__name__}: {e}"
        drawn[f.id] = "drawn" if f.svg else f.error
    summary["charts"] = drawn
    return report


def _timeline_groups(ch: Chaos) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for scenario in TIMELINE_SCENARIOS:
        for c in ch.ran():
            if c.get("scenario") == scenario and isinstance(c.get("timeline"), dict):
                groups.setdefault((scenario, str(c.get("variant"))), []).append(c)
    return groups


def _timeline_caption(scenario: str, cells: list[dict]) -> str:
    summary = ""
    for c in cells:
        cfg = c.get("config") if isinstance(c.get("config"), dict) else {}
        if cfg.get("scenario_summary"):
            summary = str(cfg["scenario_summary"])
            scale = cfg.get("time_scale")
            if number(scale) and number(scale) != 1:
                summary += f" — here at time scale {scale}: every time and step × {scale}"
            break
    return ((f"Scenario: {summary}. " if summary else "")
            + "One panel per policy. x: true time since the run started (the unfaked clock); "
              "y: the time written into the IDs, relative to the reference time at the start, "
              "one colour per node (the band spans the lowest and highest ID time in each "
              "bucket). The grey diagonal is where a correct clock puts the IDs. Red shading: "
              "a node refused to issue; grey shading: a node was down or frozen; red crosses: "
              "duplicates (a sample); dotted verticals: the clock steps, labelled with their "
              "size; a gap in a line: the node issued nothing (it refused, or waited for its "
              "clock to catch up).")
