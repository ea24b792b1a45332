"""content.py — what the report says, independent of how it is written out.

`build_report(results)` turns the loaded results (inputs.py) into a Report (document.py): one
section per builder below (the decision table, bench, real systems, locality, chaos, the real
systems under faults, worker ids derived and leased, and last this run's provenance), plus the
machine-readable summary. render.py writes the same Report as HTML (figures inline as SVG) and
as Markdown (tables only), so the two files cannot disagree.

Every section opens with its takeaway, one sentence computed from the data; its tables, charts
and notes are the details. Every chart's title is its own takeaway. A section whose input could
not be read opens with the one sentence that says so (inputs.Results.unread), and nothing else
in the report repeats it.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any, Callable

import units as u
import locality_rows as lr
from decision import decision_table, is_lower_bound, locality_row_words
from floors import floor_table
from document import BAD, GOOD, WARN, Figure, Report, Section, Table  # noqa: F401 (re-exported)
from inputs import (BENCH_FILE, CHAOS_FILE, DERIVED_IDS_FILE, LOCALITY_FILE, REAL_FAULTS_FILE,
                    WORKER_IDS_FILE, Bench, BenchRun, Chaos, Locality, Real, Results,
                    clock_injector_line, locality_generator, number, gen_bits, payload_of,
                    policy_label)
from real_faults import RealFaults, real_faults_section
from real_systems import durability_text, hop_table, per_id_figures, real_table, shown_figures
from derived_ids_section import derived_ids_section
from worker_ids_section import worker_ids_section
from real_systems_locality import add_real_locality

# The chaos scenarios drawn as timelines: the two that step the clock back.
TIMELINE_SCENARIOS = ("ntp-step-back", "leap-second")
CLOCK_SEQUENCE = "clock-sequence"  # the DCE policy: its panels say what it does

# ---------------------------------------------------------------------------------------------
# This run: one row per input, from the run-context block every result file carries


def commit_text(rc: dict | None) -> str:
    """The commit of a run-context block, short, with "-dirty" for a modified tree."""
    c = (rc or {}).get("commit")
    if not isinstance(c, str) or not c or c == "unknown":
        return u.DASH
    return (c[:12] if re.fullmatch(r"[0-9a-f]{40}", c) else c) + ("-dirty" if rc.get("dirty")
                                                                  else "")


def _run_row(name: str, rc: dict | None, what_ran: str) -> list:
    rc = rc or {}
    cpu = f"{rc.get('cpus', '?')} × {rc.get('cpu_model', '?')}" if rc else u.DASH
    return [name, rc.get("host", u.DASH), cpu, commit_text(rc), rc.get("build_type", u.DASH),
            rc.get("started_utc", u.DASH), what_ran]


def _bench_ran(b: Bench) -> str:
    reps = b.max_repetitions()
    rc = b.run_context or {}
    load = number(rc.get("load_avg_1m"))
    return (f"{len(b.runs)} benchmarks × {reps} repetition{'s' if reps != 1 else ''}; "
            f"load {'?' if load is None else f'{load:.2f}'} at start; {rc.get('compiler', '')}")


def _locality_ran(loc: Locality) -> str:
    rows_n = sorted({int(m["rows"]) for m in loc.matrix if number(m.get("rows"))})
    vrows = loc.validation_rows()
    return (f"model: {len(loc.matrix)} streams × {', '.join(u.count(r) for r in rows_n)} rows"
            + (f"; engines: {len(vrows)} streams × "
               f"{u.count(number((vrows[0].get('model') or {}).get('rows')))} rows"
               if vrows else "; engines: not run"))


def _chaos_ran(ch: Chaos) -> str:
    cfg = ch.config
    return (f"{len(ch.cells)} cells"
            + (" (complete)" if ch.complete else " (partial)" if ch.complete is False else "")
            + (f"; {cfg.get('nodes')} nodes × {cfg.get('threads')} threads at "
               f"{u.si(number(cfg.get('rate_per_node')))} IDs/s per node; "
               f"time scale {cfg.get('time_scale')}" if cfg else "")
            + (f"; libfaketime {cfg.get('libfaketime_version')}"
               if cfg.get("libfaketime_version") else ""))


def _run_notes(contexts: dict[str, dict]) -> list[str]:
    """Sentences about the runs: a busy machine, commits that differ, a modified tree."""
    notes = []
    b = contexts.get("bench") or {}
    load, cpus = number(b.get("load_avg_1m")), number(b.get("cpus"))
    if load is not None and load > 0.5 * (cpus or 1):
        notes.append(f"The machine was busy when the bench started (load {load:.2f} on "
                     f"{cpus or 1:.0f} CPUs): throughput and tails suffer.")
    commits = {k: rc.get("commit") for k, rc in contexts.items() if rc.get("commit")}
    if len({c for c in commits.values() if c != "unknown"}) > 1:
        notes.append("The inputs come from different commits ("
                     + ", ".join(f"{k} {commit_text(contexts[k])}" for k in commits)
                     + "): compare them with care.")
    dirty = [k for k, rc in contexts.items() if rc.get("dirty")]
    if dirty:
        notes.append("Built from a working tree with uncommitted changes: " + ", ".join(dirty) + ".")
    return notes


def run_info(results: Results) -> tuple[Table, list[str], dict]:
    """One row per input read: machine, commit and date of the run, from its run-context
    block."""
    b, loc, ch = results.bench, results.locality, results.chaos
    # The inputs that were read; one that was not is said once, by the section that reads it.
    rows = [_run_row(name, x.run_context, ran(x))
            for name, x, ran in ((BENCH_FILE, b, _bench_ran), (LOCALITY_FILE, loc, _locality_ran),
                                 (CHAOS_FILE, ch, _chaos_ran)) if x.present]
    contexts = {k: dict(x.run_context) for k, x in (("bench", b), ("locality", loc), ("chaos", ch))
                if x.present and x.run_context}
    info = {k: dict(rc) for k, rc in contexts.items()}  # the summary adds to its copies
    if "bench" in info:
        info["bench"].update(repetitions=b.max_repetitions(), benchmarks=len(b.runs),
                             timer=b.context.get("idbench_timer"))
    if "chaos" in info:
        info["chaos"]["libfaketime_version"] = ch.config.get("libfaketime_version")
    table = Table(["input", "host", "CPU", "commit", "build", "date (UTC)", "what ran"], rows,
                  align="lllllll")
    return table, _run_notes(contexts), info


# ---------------------------------------------------------------------------------------------
# bench


def _throughput_table(b: Bench, threads: list[int]) -> Table:
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
    return Table(["generate: variant · layout"] + [f"{t} thread{'s' if t > 1 else ''}"
                                                   for t in threads], rows,
                 caption="IDs per second of real time (median over repetitions); in brackets "
                         "the cap ratio, achieved ÷ the format cap of the node ids used (absent "
                         "for IDs without a cap). Marked: a 1-thread cap ratio below 0.99 on a "
                         "layout whose cap the tight loop reaches.")


def _latency_table(b: Bench, kind: str, threads: list[int], caption: str) -> Table:
    """p50 / p99 / p99.9 of every `kind` run (generate or load), one row per variant · layout."""
    rows = []
    for layout in b.layouts(kind):
        for v in b.variants(kind):
            cells = []
            for t in threads:
                r = b.find(kind, v, layout, t)
                cells.append(u.DASH if r is None or r.error else
                             f"{u.duration_ns(r.median('p50_ns'))} / "
                             f"{u.duration_ns(r.median('p99_ns'))} / "
                             f"{u.duration_ns(r.median('p999_ns'))}")
            if any(c != u.DASH for c in cells):
                rows.append([f"{v} · {layout}"] + cells)
    return Table([f"{kind}: variant · layout"] + [f"{t} thr: p50 / p99 / p99.9" for t in threads],
                 rows, caption=caption)


def _baseline_table(b: Bench) -> Table | None:
    base = [r for r in b.runs.values() if r.kind == "baseline"]
    if not base:
        return None
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
    return Table(["baseline", "calls/s", "real time per iteration", "p50", "p99", "p99.9"], rows,
                 caption="What a C++ user would call instead, in the same run: one clock read is "
                         "the floor for any clock-per-ID design.")


def throughput_tables(b: Bench) -> list[Table]:
    tables = []
    threads = b.threads("generate")
    if threads:
        tables.append(_throughput_table(b, threads))
        # Beside it: each variant's cost per ID above the harness's floors (when they ran).
        tables += [t for t in (floor_table(b),) if t is not None]
        tables.append(_latency_table(
            b, "generate", threads,
            "Per-call latency in a tight loop, every thread calling at once: contention and "
            "waits for the next tick show here."))
    lthreads = b.threads("load")
    if lthreads:
        rate = number(_as_float(b.context.get("idbench_load_rate_per_s")))
        tables.append(_latency_table(
            b, "load", lthreads,
            f"Offered load: the threads together ask for "
            f"{u.si(rate) if rate else 'a fixed rate of'} IDs/s, below the cap; latency counts "
            "from each call's intended send time (corrected for coordinated omission)."))
    base = _baseline_table(b)
    return tables + ([base] if base else [])


def _as_float(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# locality


def row_size_table(loc: Locality) -> Table | None:
    """Leaf fill at every row size the matrix measured, one row per generator line and writer
    count (generators with the same fill merged); None for a matrix of one row size."""
    sizes = loc.row_sizes()
    if len(sizes) < 2:
        return None
    rows = []
    for w in lr.writer_counts(loc):
        for label, line in lr.fill_lines(loc, w).items():
            if w != 1 and all(" bigint" in part for part in label.split(" = ")):
                continue  # the single-writer baselines, listed once under 1 writer
            rows.append([label, str(w)] + [u.percent(line.get(p)) for p in sizes])
    return Table(["generator", "writers"] + [locality_row_words(p) for p in sizes], rows,
                 align="ll" + "r" * len(sizes),
                 caption="Leaf fill (InnoDB model) against row size. Key-only rows put dozens "
                         "of records on a page, so interleaved insert points share pages; "
                         "with a realistic row each writer's insert point splits a page of "
                         "its own. Generators with the same fill at every size share a line.")


def row_size_flips(loc: Locality) -> list[str]:
    """Sentences, both numbers each, for every verdict that flips between key-only rows and the
    decision table's row size (or the largest measured, when that is key-only)."""
    sizes = loc.row_sizes()
    if len(sizes) < 2 or sizes[0] != 0:
        return []
    to = loc.decision_payload_bytes or sizes[-1]
    out = []
    for w in lr.writer_counts(loc):
        by_top: dict[str, list] = {}
        for f in lr.flips(lr.fill_lines(loc, w), 0, to):
            by_top.setdefault(f.above_first, []).append(f)
        for top, fs in by_top.items():
            others = "; ".join(f"{f.below_first} ({u.percent(f.fills_lo[1])} → "
                               f"{u.percent(f.fills_hi[1])})" for f in fs)
            out.append(f"At {w} writer{'s' if w != 1 else ''}, {top} fills leaf pages to "
                       f"{u.percent(fs[0].fills_lo[0])} with key-only rows but to "
                       f"{u.percent(fs[0].fills_hi[0])} with {locality_row_words(to)}: better "
                       f"than, then worse than, {others}.")
    return out


def _index_pages(engine: Any) -> list[float | None]:
    """Leaf pages of the clustered index, then of each secondary index, of one engine's figures."""
    if not isinstance(engine, dict):
        return []
    sec = engine.get("secondary") if isinstance(engine.get("secondary"), dict) else {}
    return [number(engine.get("leaf_pages"))] + [
        number(i.get("leaf_pages")) for i in sec.get("indexes") or [] if isinstance(i, dict)]


def secondary_table(loc: Locality) -> tuple[Table | None, list[str]]:
    """The validation streams with secondary indexes: leaf pages of every index and of the whole
    table, model beside InnoDB; and, for a stream stored with both key types, what the wide key
    costs each index and the table (sentences)."""
    vrows = [r for r in loc.validation_rows() if r.get("secondary_indexes")]
    if not vrows:
        return None, []
    rows, totals = [], {}
    for r in vrows:
        m, i = _index_pages(r.get("model")), _index_pages(r.get("innodb"))
        cells = []
        for k in range(3):
            mv = m[k] if k < len(m) else None
            iv = i[k] if k < len(i) else None
            cells.append(f"{u.count(mv)} / {u.count(iv)}")
        tm = sum(x for x in m if x is not None) if m else None
        ti = sum(x for x in i if x is not None) if i else None
        cells.append(f"{u.count(tm)} / {u.count(ti)}")
        rows.append([str(r.get("stream", "?")), str(r.get("key_type", u.DASH)),
                     str(payload_of(r))] + cells)
        totals[str(r.get("stream", "?"))] = (str(r.get("key_type")), m, i)
    notes = []
    by_key = {}
    for label, (key, m, i) in totals.items():
        by_key.setdefault(label.split(",")[0], {})[key] = (m, i)
    for stream, keys in by_key.items():
        if "bigint" not in keys or "binary16" not in keys:
            continue
        (mb, ib), (mw, iw) = keys["bigint"], keys["binary16"]

        def growth(narrow, wide):
            n = [x for x in narrow if x is not None]
            w = [x for x in wide if x is not None]
            if len(n) != 3 or len(w) != 3:
                return None
            return [(b - a) / a for a, b in zip(n + [sum(n)], w + [sum(w)])]
        g_m, g_i = growth(mb, mw), growth(ib, iw)
        if g_m is None:
            continue
        parts = ", ".join(f"{name} {u.change(gm)}"
                          + (f" (InnoDB {u.change(g_i[k])})" if g_i else "")
                          for k, (name, gm) in enumerate(zip(
                              ("clustered index", "k_created", "k_owner", "whole table"), g_m)))
        notes.append(f"{stream}: a BINARY(16) primary key instead of a BIGINT, the same keys, "
                     f"costs leaf pages: {parts}.")
    table = Table(["stream", "PK", "payload B", "clustered: model / InnoDB",
                   "k_created: model / InnoDB", "k_owner: model / InnoDB",
                   "whole table: model / InnoDB"], rows, align="lllrrrr",
                  caption="Leaf pages of every index of a table with two secondary indexes: "
                          "k_created on the insert time (sequential) and k_owner on a random "
                          "foreign key. Every secondary entry carries the primary key, so a "
                          "wider key widens every index, not just the clustered one.")
    return table, notes


def locality_tables(loc: Locality) -> list[Table]:
    tables = []
    if loc.matrix:
        rows = []
        for m in loc.at_row():
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
                            caption="The InnoDB model on each generator's stream, "
                                    f"{locality_row_words(loc.decision_payload_bytes)} (the "
                                    "decision table's row size). Leaves touched "
                                    "per 1,000 consecutive inserts and the miss rate of an LRU "
                                    "buffer pool show locality; fill and splits show waste."))
        flips = row_size_table(loc)
        if flips:
            tables.append(flips)
    vrows = [r for r in loc.validation_rows() if not r.get("secondary_indexes")]
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
                         str(payload_of(r)), pages("model"), pages("innodb"),
                         u.percent(err) if err is not None else u.DASH,
                         u.percent(tol, 0) if tol is not None else u.DASH, verdict,
                         fill("model"), fill("innodb"), fill("sqlite"), fill("postgres")])
        v = loc.validation or {}
        unavailable = v.get("unavailable") or []
        tables.append(Table(["stream", "key", "payload B", "model leaf pages",
                             "InnoDB leaf pages", "error", "tolerance", "", "model fill",
                             "InnoDB fill", "SQLite fill", "PostgreSQL fill"], rows,
                            align="llrrrrrlrrrr",
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
        policy = policy_label(c)
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


# ---------------------------------------------------------------------------------------------
# The sections


class Figures:
    """Adds figures to sections: drawn later by `charts` (charts.py), or listed with the reason
    they are not."""

    def __init__(self, charts, no_charts_reason: str):
        self.charts, self.reason = charts, no_charts_reason

    def add(self, section: Section, id_: str, title: str, caption: str,
            draw: Callable[[Any], str] | None, missing: str | None = None) -> None:
        f = Figure(id_, title, caption)
        if missing:
            f.error = missing
        elif self.charts is None:
            f.error = f"charts not drawn: {self.reason}"
        else:
            f.draw = lambda: draw(self.charts)
        section.figure(f)


def _unread(results: Results, name: str, consequence: str) -> str:
    """The one sentence for an input that could not be read, with what the section lacks."""
    return results.unread[name].rstrip(".") + f": {consequence}."


def _s(n: float | int, word: str, plural: str | None = None) -> str:
    """"1 cell", "3 cells"."""
    return f"{u.count(n)} {word if n == 1 else plural or word + 's'}"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def run_section(results: Results, summary: dict) -> Section:
    """The run's provenance: where and from what each input was made; last in the report."""
    s = Section("run", "This run: machine, commit and inputs")
    table, notes, info = run_info(results)
    summary["run"] = info
    problems = results.problems()
    summary["missing"] = problems
    summary["inputs"] = {"bench": results.bench.present, "locality": results.locality.present,
                         "chaos": results.chaos.present}
    summary["unread"] = dict(results.unread)
    s.takeaway = run_takeaway(results, notes)
    if table.rows:
        s.table(table)
    for n in notes:
        s.p(n)
    said = set(results.unread.values())
    others = [p for p in problems if p not in said]
    if others:
        s.p("Partial or malformed inputs — the report shows what it has:")
        s.ul(others)
    elif not results.unread:
        s.p("Every input is present and complete.")
    return s


def run_takeaway(results: Results, notes: list[str]) -> str:
    read = [(name, x.run_context) for name, x in ((BENCH_FILE, results.bench),
                                                  (LOCALITY_FILE, results.locality),
                                                  (CHAOS_FILE, results.chaos))
            if x.present and x.run_context]
    if not read:
        return "This run: no input read carries a run-context block (machine, commit, date)."
    rc = read[0][1]
    commits = {commit_text(c) for _, c in read}
    return (f"This run: {_and([n for n, _ in read])} from "
            + (f"commit {commits.pop()}" if len(commits) == 1 else "different commits")
            + f" on {rc.get('host', '?')} ({rc.get('cpus', '?')} × {rc.get('cpu_model', '?')}), "
            f"{rc.get('build_type', '?')} build"
            + (f"; {notes[0][0].lower()}{notes[0][1:].rstrip('.')}" if notes else "") + ".")


def report_meta(results: Results) -> str:
    """The line under the title: when, from where, which commit on which host, inputs read."""
    rc = next((x.run_context for x in (results.bench, results.locality, results.chaos)
               if x.present and x.run_context), None) or {}
    read = len(INPUTS) - len(results.unread)
    return (f"from {results.directory}"
            + (f" · commit {commit_text(rc)} on {rc.get('host', '?')}" if rc else "")
            + f" · {read} of {len(INPUTS)} inputs read")


INPUTS = (BENCH_FILE, LOCALITY_FILE, CHAOS_FILE, REAL_FAULTS_FILE, DERIVED_IDS_FILE,
          WORKER_IDS_FILE)


def decision_takeaway(results: Results, t: Table, data: list[dict]) -> str:
    speeds = [(d["ids_per_s_2t"], d) for d in data if d.get("ids_per_s_2t")
              and not is_lower_bound(results, d.get("shown"), d)]
    out = f"Decision table: {_s(len(data), 'scheme')} with this run's numbers"
    if speeds:
        y, d = max(speeds, key=lambda x: x[0])
        shown = d.get("shown") or ""
        out += (f"; {d['scheme']}"
                + (f" ({shown})" if shown and shown.lower() != d["scheme"].lower() else "")
                + f" issues the most IDs at 2 threads: {u.si(y)} IDs/s on the "
                  f"{d.get('layout')} layout")
    marked = [row[0] for row in t.rows if any(isinstance(c, tuple) and c[1] == BAD
                                              for c in row)]
    if marked:
        out += f"; marked red: {_and(marked)}"
    elif results.chaos.present:
        out += "; no scheme broke a promise"
    return out + "."


def decision_section(results: Results, summary: dict) -> Section:
    s = Section("decision", "Which generator: the decision table with this run's numbers")
    t, data, _ = decision_table(results)
    s.takeaway = decision_takeaway(results, t, data)
    s.table(t)
    summary["decision_table"] = data
    summary["decision_notes"] = list(t.notes)
    return s


# ---------------------------------------------------------------------------------------------
# Takeaways of the bench


def fastest(b: Bench, lower_bounds: set[str], threads: int = 2) -> tuple[BenchRun | None, bool]:
    """The generate run with the most IDs/s at `threads` threads (the fewest above 1 when no
    run has 2), in-process lower bounds (`lower_bounds`) aside; and whether one was set aside.
    (None, False) when nothing ran."""
    ts = b.threads("generate")
    if threads not in ts:
        threads = next((t for t in ts if t > 1), ts[0] if ts else threads)
    best, skipped = None, False
    for r in b.runs.values():
        if r.kind != "generate" or r.threads != threads or r.error:
            continue
        y = r.median("ids_per_s")
        if not y:
            continue
        if r.variant in lower_bounds:
            skipped = True
            continue
        if best is None or y > best.median("ids_per_s"):
            best = r
    return best, skipped



def _where(r) -> str:
    return "" if r.layout_unused else f" on layout {r.layout}"


def over_cap(b: Bench) -> list[str]:
    """Runs that issued more IDs than their layout's cap for the node ids used (a cap ratio
    above 1 beyond rounding): "mutex on twitter at 8 threads (1.02 × its cap)"."""
    return [f"{r.variant} on {r.layout} at {r.threads} threads ({r.median('cap_ratio'):.2f} × "
            "its cap)" for r in b.runs.values()
            if r.kind == "generate" and not r.error and (r.median("cap_ratio") or 0) > 1.005]


def throughput_title(b: Bench, lower_bounds: set[str]) -> str:
    r, skipped = fastest(b, lower_bounds)
    if r is None:
        return "Throughput: no generate/ run recorded IDs/s"
    return (f"Throughput: {r.variant} issues the most IDs at {r.threads} threads, "
            f"{u.si(r.median('ids_per_s'))} IDs/s{_where(r)}"
            + (" (in-process lower bounds aside)" if skipped else ""))


def bench_takeaway(b: Bench, lower_bounds: set[str]) -> str:
    over = over_cap(b)
    return (throughput_title(b, lower_bounds) + "; "
            + (f"{_s(len(over), 'run')} passed the layout's cap: {'; '.join(over[:3])}"
               if over else "every variant is within its layout's cap") + ".")


def latency_title(b: Bench, kind: str) -> str:
    """The tails at the most threads: the lowest and highest p99.9 across variants."""
    layout = b.latency_layout(kind)
    words = "Tight loop" if kind == "generate" else "Offered load"
    ts = b.threads(kind)
    if layout is None or not ts:
        return f"{words}: no {kind}/ run"
    t = ts[-1]
    tails = [(r.median("p999_ns"), r.variant) for r in b.runs.values()
             if r.kind == kind and r.layout == layout and r.threads == t and not r.error
             and r.median("p999_ns")]
    if not tails:
        return f"{words} on {layout}: no p99.9 recorded at {t} threads"
    lo, hi = min(tails), max(tails)
    return (f"{words} on {layout} at {t} threads: p99.9 from {u.duration_ns(lo[0])} ({lo[1]}) "
            f"to {u.duration_ns(hi[0])} ({hi[1]})")


def bench_section(b: Bench, figures: Figures, summary: dict, results: Results) -> Section:
    s = Section("bench", "Throughput and latency under contention (bench.json)")
    if not b.present:
        s.takeaway = _unread(results, BENCH_FILE, "no throughput or latency figures")
        return s
    lower = {v["name"] for v in results.description.variants
             if v.get("in_process_lower_bound") is True}
    s.takeaway = bench_takeaway(b, lower)
    reps = b.max_repetitions()
    s.p(f"Medians over {reps} repetition{'s' if reps != 1 else ''} per benchmark. "
        + (f"Timer: {b.context['idbench_timer']}." if b.context.get("idbench_timer") else ""))
    figures.add(s, "throughput", throughput_title(b, lower),
                "x: threads (8 oversubscribes 2 cores on purpose); y: IDs per second of real "
                "time, log scale, the same in every panel. One panel per family of generators, "
                "and per layout where the IDs follow it. The solid black line is the format cap "
                "of one node id (4,096 IDs per ms for 41/10/12): a correct Snowflake in a tight "
                "loop sits on it whatever its locking, so the cap ratio, not the speed, is the "
                "figure to read on that layout. The dotted black line is the cap for the node "
                "ids a variant used (one per thread for a variant that takes a node id per "
                "thread). Dashed coloured lines: variants that take no layout. On the wide "
                "layout nothing caps, so the lines show synchronisation cost. The last panel "
                "holds what every variant is read against, in the same run: the fetch_add "
                "baseline and the harness's floors (no clock read: the bench's own cost per ID; "
                "one clock read per ID; at 1 thread, a clock read with an uncontended mutex or "
                "compare-exchange). The dashed black line is Twitter's original mutex, its clock "
                "read under the lock: a bench-only reference beside mutex, which reads the "
                "clock before taking the lock.",
                lambda c: c.throughput_chart(b),
                None if b.threads("generate") else "no generate/ benchmarks in bench.json")
    for kind, id_, how in (
            ("generate", "latency",
             "every thread calls at once, on the wide layout: lock and cache-line contention"),
            ("load", "latency-load",
             "offered load below the cap, latency from each call's intended send time, so "
             "stalls behind a slow call count")):
        figures.add(s, id_, latency_title(b, kind),
                    f"Per-call latency at p50, p99 and p99.9 against threads, log scale: {how}. "
                    "One row of panels per family of generators, the same y axis in every "
                    "panel. Contention shows in the tail, not in the median.",
                    lambda c, kind=kind: c.latency_chart(b, kind),
                    None if b.threads(kind) else f"no {kind}/ benchmarks in bench.json")
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
                                                      "p50_ns", "p99_ns", "p999_ns", "max_ns",
                                                      "ns_per_id", "above_no_clock_ns",
                                                      "above_clock_once_ns")}}
                 for r in b.runs.values()}}
    return s


def real_takeaway(real: Real) -> str:
    by_system: dict[str, list[dict]] = {}
    for c in real.cells:
        by_system.setdefault(str(c.get("system")), []).append(c)
    best = None
    for name, cells in by_system.items():
        one, _ = per_id_figures(cells)
        per, p99, _ = shown_figures(one, True) if one is not None else (None, None, False)
        if one is not None and not one.get("error") and per is not None:
            if best is None or per > best[1]:
                best = (name, per, p99)
    failed = [c for c in real.cells if c.get("error")]
    out = f"Real systems: {_s(len(by_system), 'system')} measured, 1 ID per request"
    if best:
        out += (f"; {best[0]} answers the most per client: {u.si(best[1])} IDs/s, p99 round "
                f"trip {u.duration_ns(best[2])}")
    if failed:
        out += f"; {_s(len(failed), 'cell')} failed"
    return out + "."


def real_section(real: Real, summary: dict, results: Results) -> Section:
    s = Section("real", "Real systems: round trips to real generators (bench.json real_systems)")
    if not results.bench.present:
        s.takeaway = "Real systems: no figures, as they come with bench.json."
        return s
    if not real.present:
        s.takeaway = ("Real systems: not measured; bench.json carries no real_systems (./run.sh "
                      "bench runs idbench real --system quick; idbench real --system all runs "
                      "every system).")
        return s
    s.takeaway = real_takeaway(real)
    cfg = real.config
    s.p(f"{len(real.cells)} cells"
        + (" (complete)" if real.complete else " (partial)" if real.complete is False else "")
        + (f", {cfg.get('seconds')} s each after a {cfg.get('warmup_s')} s warm-up" if cfg else "")
        + ". Each client thread runs its own adapter process with its own database connection; "
          "IDs/s counts the IDs of the requests that started in the measuring window. The "
          "decision table shows, beside the in-process lower bounds, the system's own share where "
          "the adapter timed it (own: without the harness's pipe hop, whose cost is shown apart "
          "below), else the end-to-end figure.")
    servers = {}
    for c in real.cells:
        if c.get("server"):
            servers.setdefault(f"{c.get('system')} ({durability_text(c)})", str(c["server"]))
    if servers:
        s.p("Servers, as they reported their settings:")
        s.ul([f"{k}: {v}" for k, v in servers.items()])
    s.table(real_table(real))
    if real.harness_hop:
        s.table(hop_table(real))
    summary["real_systems"] = {
        "complete": real.complete,
        "cells": [{k: c.get(k) for k in ("system", "scheme", "durability", "server", "clients",
                                         "request_size", "ids_per_s", "ids_per_s_per_client",
                                         "requests", "latency_ns", "adapter_counters", "error",
                                         "system_side", "direct")}
                  for c in real.cells],
        "harness_hop": real.harness_hop}
    add_real_locality(s, real, summary)
    return s


# ---------------------------------------------------------------------------------------------
# Takeaways of the locality


def _fills_at_most_writers(loc: Locality) -> tuple[int | None, dict[str, dict]]:
    """(the most writers, {variant: its matrix entry at that count}) at the decision row."""
    at_row = loc.at_row()
    ws = [number((m.get("stream") or {}).get("writers")) for m in at_row]
    ws = [int(w) for w in ws if w is not None]
    if not ws:
        return None, {}
    most = max(ws)
    out = {}
    for m in at_row:
        s = m.get("stream") if isinstance(m.get("stream"), dict) else {}
        w = number(s.get("writers"))
        if w == most and s.get("variant") and number(m.get("avg_leaf_fill")) is not None:
            out.setdefault(locality_generator(m), m)
    return most, out


def locality_model_title(loc: Locality) -> str:
    w, by = _fills_at_most_writers(loc)
    if not by:
        return "Locality: no leaf fill in the matrix"
    lo = min(by, key=lambda g: number(by[g].get("avg_leaf_fill")))
    hi = max(by, key=lambda g: number(by[g].get("avg_leaf_fill")))
    misses = {g: number(m.get("pool_miss_rate")) for g, m in by.items()
              if number(m.get("pool_miss_rate")) is not None}
    out = (f"Locality with {_s(w, 'writer')}: {lo} fills leaf pages least "
           f"({u.percent(number(by[lo].get('avg_leaf_fill')), 0)}), {hi} most "
           f"({u.percent(number(by[hi].get('avg_leaf_fill')), 0)})")
    if misses:
        worst = max(misses, key=misses.get)
        out += f"; {worst} misses the buffer pool most ({u.percent(misses[worst], 0)})"
    return out


def validation_words(loc: Locality) -> str:
    rows = loc.validation_rows()
    v = loc.validation or {}
    if not rows:
        return "the model-vs-engine cross-check did not run"
    ok = [r for r in rows if r.get("pass") is True]
    errs = [number(r.get("error")) for r in rows if number(r.get("error")) is not None]
    worst = max((abs(e) for e in errs), default=None)
    if v.get("innodb_ran") is False:
        return "InnoDB did not run, so the model is unchecked"
    return (f"the model is within tolerance of InnoDB on {len(ok)} of {_s(len(rows), 'stream')}"
            + (f" (largest error {u.percent(worst)})" if worst is not None else ""))


def row_size_title(loc: Locality) -> str:
    sizes = loc.row_sizes()
    if len(sizes) < 2:
        return "Row size: the matrix measured one row size"
    flips = row_size_flips(loc)
    to = locality_row_words(loc.decision_payload_bytes or sizes[-1])
    crossings = sum(len(lr.crossings(lr.fill_lines(loc, w))) for w in lr.writer_counts(loc))
    if flips:
        return (f"Row size: {_s(len(flips), 'verdict')} flip between key-only rows and {to}; "
                f"{_s(crossings, 'crossover')} circled")
    return (f"Row size: no generator's fill verdict flips between key-only rows and {to}"
            + (f"; {_s(crossings, 'crossover')} circled" if crossings else ""))


def locality_section(loc: Locality, figures: Figures, summary: dict, results: Results) -> Section:
    s = Section("locality", "Insert locality in a clustered B+tree (locality.json)")
    if not loc.present:
        s.takeaway = _unread(results, LOCALITY_FILE, "no locality figures")
        return s
    s.takeaway = locality_model_title(loc) + "; " + validation_words(loc) + "."
    figures.add(s, "locality-model", locality_model_title(loc),
                "One bar per generator and writer count. Leaf fill: how full the leaf pages end "
                "up (sequential keys ≈ 15/16, random ≈ ln 2 = 69 %); splits per 1,000 inserts; "
                "buffer-pool miss rate of an LRU pool sized to a fraction of the final index "
                "(near 0 when inserts touch one page at a time, high when each insert lands on a "
                "random leaf). Grey lines: 15/16 and ln 2.",
                lambda c: c.locality_chart(loc),
                None if loc.matrix else "locality.json has no matrix entries")
    figures.add(s, "locality-rows", row_size_title(loc),
                "Leaf fill of each generator's stream as the row grows from key-only to "
                f"{u.count(max(loc.row_sizes(), default=0))} bytes beside the key, one panel "
                "per writer count (per family of generators where a writer count has more "
                "than six lines; the BIGINT baselines, dashed grey, in each). A circle marks a "
                "crossover: the two generators swap places between those row sizes, so a "
                "verdict read from key-only rows is reversed for the real table.",
                lambda c: c.row_size_chart(loc),
                None if len(loc.row_sizes()) > 1 else "the matrix measured one row size")
    flips = row_size_flips(loc)
    if flips:
        s.p("Verdicts that flip with the row: " + " ".join(flips))
    figures.add(s, "locality-engines",
                "Model against the real engines: " + validation_words(loc),
                "The same streams inserted into the model and into real MariaDB InnoDB, SQLite "
                "and PostgreSQL. The model must match InnoDB (its leaf pages are in the table "
                "below, with the error); SQLite and PostgreSQL split by their own rules and page "
                "sizes. The real engines report no buffer-pool miss rate for these runs: that "
                "figure is the model's only.",
                lambda c: c.engines_chart(loc),
                None if loc.validation_rows() else "the model-vs-engine cross-check did not run")
    for t in locality_tables(loc):
        s.table(t)
    sec, sec_notes = secondary_table(loc)
    if sec is not None:
        s.table(sec)
        for n in sec_notes:
            s.p(n)
    v = loc.validation or {}
    if loc.validation_rows():
        s.p("Cross-check: " + ("the model agrees with InnoDB within tolerance on every stream."
                               if v.get("pass") is True else
                               "InnoDB did not run." if v.get("innodb_ran") is False else
                               "the model DISAGREES with InnoDB on some stream (see FAIL)."))
    summary["locality"] = {
        "matrix": [{"generator": locality_generator(m),
                    "writers": (m.get("stream") or {}).get("writers"),
                    "payload_bytes": payload_of(m),
                    **{k: m.get(k) for k in ("engine", "key_type", "rows", "leaf_pages",
                                             "avg_leaf_fill", "splits_per_1k",
                                             "distinct_leaves_per_1k", "pool_miss_rate")}}
                   for m in loc.matrix],
        "validation_pass": v.get("pass") if loc.validation else None,
        "decision_payload_bytes": loc.decision_payload_bytes,
        "row_sizes": loc.row_sizes(),
        "flips": flips,
        "wide_key_cost": secondary_table(loc)[1]}
    return s


# ---------------------------------------------------------------------------------------------
# Takeaways of the chaos matrix


def _cell_name(c: dict) -> str:
    return f"{c.get('scenario')} · {c.get('variant')} · {policy_label(c)}"


def chaos_takeaway(ch: Chaos) -> str:
    ran = ch.ran()
    broken = [c for c in ch.cells if c.get("promise_kept") is False]
    failed = [c for c in ch.cells if c.get("error")]
    caught = [c for c in ran if c.get("promise_kept") is True and number(c.get("duplicates"))]
    out = (f"Chaos: {len(broken)} of {_s(len(ch.cells), 'cell')} broke a promise"
           if broken else f"Chaos: none of {_s(len(ch.cells), 'cell')} broke a promise")
    if broken:
        out += ": " + "; ".join(_cell_name(c) for c in broken[:3]) + (" …" if len(broken) > 3
                                                                      else "")
    if failed:
        out += f"; {_s(len(failed), 'cell')} could not run"
    if caught:
        out += f"; the checker caught the expected duplicates in {_s(len(caught), 'cell')}"
    return out + "."


def timeline_title(scenario: str, variant: str, cells: list[dict]) -> str:
    """One scenario and variant across policies: how many kept their promise (and at what
    availability), which issued expected duplicates, which broke."""
    kept = [c for c in cells if c.get("promise_kept") is True and not number(c.get("duplicates"))]
    expected = [c for c in cells if c.get("promise_kept") is True and number(c.get("duplicates"))]
    broken = [c for c in cells if c.get("promise_kept") is False]
    parts = []
    if kept:
        avail = [number(c.get("availability")) for c in kept]
        avail = [a for a in avail if a is not None]
        span = ("" if not avail else f" (availability {u.percent(min(avail), 0)})"
                if min(avail) == max(avail) else
                f" (availability {u.percent(min(avail), 0).split()[0]}–{u.percent(max(avail), 0)})")
        parts.append(f"{len(kept)} of {_s(len(cells), 'policy', 'policies')} issue no duplicate"
                     + span)
    for c in expected:
        parts.append(f"{policy_label(c)} issues {u.count(number(c.get('duplicates')))} "
                     "duplicates, as expected")
    for c in broken:
        parts.append(f"BROKEN: {policy_label(c)} ({u.count(number(c.get('duplicates')))} "
                     "duplicates)")
    return f"{scenario} · {variant}: " + ("; ".join(parts) or "no verdict recorded")


def chaos_section(ch: Chaos, figures: Figures, summary: dict, results: Results) -> Section:
    s = Section("chaos", "Clock faults: what each policy does when time goes backwards "
                         "(chaos.json)")
    if not ch.present:
        s.takeaway = _unread(results, CHAOS_FILE, "no clock-fault figures")
        return s
    s.takeaway = chaos_takeaway(ch)
    s.p(clock_injector_line(ch.config, CHAOS_FILE))
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
        figures.add(s, "timeline",
                    "Timelines: no cell of the two clock-step scenarios recorded one", "", None,
                    "no ntp-step-back or leap-second cell with a timeline in chaos.json")
    for (scenario, variant), cells in timelines.items():
        figures.add(s, f"timeline-{scenario}-{variant}",
                    timeline_title(scenario, variant, cells),
                    f"{scenario} · {variant}: the time in the IDs against true time, one panel "
                    "per policy. " + _timeline_caption(scenario, cells),
                    lambda c, sc=scenario, cs=cells: c.timeline_chart(sc, cs))
    s.table(chaos_table(ch))
    summary["chaos"] = {
        "complete": ch.complete,
        "cells": [{**{k: c.get(k) for k in ("scenario", "variant", "policy", "persist",
                                            "nodes", "ids", "duplicates", "order_violations",
                                            "refusals", "availability", "max_stall_ms",
                                            "ksort_bound_ms", "promise_kept",
                                            "duplicates_expected", "caught", "skipped",
                                            "error")},
                   "gen_bits": gen_bits(c)}
                  for c in ch.cells],
        "broken": len(broken)}
    return s


def _draw(report: Report) -> dict[str, str]:
    """Draws every figure, last, so that a chart that fails is a sentence, not a crash."""
    drawn = {}
    for f in report.figures():
        if f.draw is not None and f.error is None:
            try:
                f.svg = f.draw()
            except Exception as e:  # noqa: BLE001 — any failure becomes a sentence
                f.error = f"could not be drawn: {type(e).__name__}: {e}"
        drawn[f.id] = "drawn" if f.svg else f.error
    return drawn


def build_report(results: Results, charts_module=None, now: dt.datetime | None = None,
                 no_charts_reason: str = "python3-matplotlib is not available to "
                                         "/usr/bin/python3") -> Report:
    """The whole report. `charts_module` draws the figures (None: each figure is listed with
    `no_charts_reason`)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    summary: dict[str, Any] = {"schema": "idbench-report/1",
                               "generated_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                               "results_dir": results.directory}
    if charts_module is not None:
        # Colours follow the registry's order, as the run's own description gives it; its
        # schemes sort the variants into the charts' families.
        desc = results.description
        charts_module.set_variant_order(desc.names(), {v["name"]: v.get("scheme") or ""
                                                      for v in desc.variants})
    figures = Figures(charts_module, no_charts_reason)
    sections = [decision_section(results, summary),
                bench_section(results.bench, figures, summary, results),
                real_section(results.bench.real, summary, results),
                locality_section(results.locality, figures, summary, results),
                chaos_section(results.chaos, figures, summary, results),
                real_faults_section(results.real_faults or RealFaults(), figures, summary,
                                    results.unread.get(REAL_FAULTS_FILE)),
                derived_ids_section(results.derived_ids, results.unread.get(DERIVED_IDS_FILE),
                                    figures, summary),
                worker_ids_section(results.worker_ids, results.unread.get(WORKER_IDS_FILE),
                                   figures, summary),
                run_section(results, summary)]
    report = Report("idbench report", summary["generated_utc"], results.directory, sections,
                    summary, meta=report_meta(results))
    summary["charts"] = _draw(report)
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
              "clock to catch up)."
            + (" clock-sequence: the DCE rule (1994): a backward step changes the clock "
               "sequence (UUIDv1/v6's 14 bits, or a layout's gen bits, gen=N) and the node "
               "keeps issuing at the clock's time; it waits only when the generations run out."
               if any(c.get("policy") == CLOCK_SEQUENCE for c in cells) else ""))
