#!/usr/bin/env python3
"""bench_table.py — prints idbench-bench JSON as Markdown tables, and checks the bench's targets.

    python3 bench/bench_table.py reports/latest/bench.json

With repetitions, the median aggregate of each benchmark is shown. Standard library only.
A file with the harness's floors (floor/, reference/: bench/register.hpp) gets a table of
every variant's ns per ID above them. Every file then gets the table of the bench's targets.
The targets name no variant: which variants a target applies to comes from the variant
description bench.json carries (context key idbench_variants, what `idbench list --json`
prints): a layout's variants must reach its format cap, a variant with a node id per thread
must pass one node's cap, a time-ordered UUID must cost about one clock read.
"""
import json
import re
import sys

NAME = re.compile(r"^(generate|load)/([^/]+)/([^/]+)/threads:(\d+)$")


def si(x, unit=""):
    """3 significant digits with a k/M/G prefix: 4.1 M, 999 k, 1 M."""
    if x is None:
        return "–"
    for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if abs(x) >= factor * 0.9995 or factor == 1:
            v = float(f"{x / factor:.3g}")
            text = f"{v:g}" if v < 1000 or factor == 1e9 else f"{v:.0f}"
            return f"{text} {prefix}{unit}".rstrip()
    return f"{x:.3g}"


def ns(x):
    if x is None:
        return "–"
    if x >= 1e6:
        return f"{x / 1e6:.3g} ms"
    if x >= 1e3:
        return f"{x / 1e3:.3g} µs"
    return f"{x:.0f} ns"


def ratio(x):
    if x is None:
        return "–"
    return f"{x:.3f}" if x >= 0.01 or x == 0 else f"{x:.2g}"


def load_rows(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    medians = {b["run_name"]: b for b in data["benchmarks"]
               if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if name in medians:
            rows[name] = medians[name]
        elif b.get("run_type", "iteration") == "iteration" and name not in rows:
            rows[name] = b
    return data.get("context", {}), rows


def json_of(text):
    """A JSON value held as text in the context (Google Benchmark keeps strings there)."""
    try:
        return json.loads(text) if isinstance(text, str) else {}
    except json.JSONDecodeError:
        return {}


def described(context):
    """The variants of the description, by name, in registry order."""
    variants = json_of(context.get("idbench_variants")).get("variants") or []
    return {v["name"]: v for v in variants if isinstance(v, dict) and "name" in v}


def gb_naive(b):
    """What Google Benchmark's own timing says: threads ÷ (mean per-thread time per iteration)."""
    t = b.get("real_time")
    if not t or b.get("error_occurred"):
        return None
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b.get("threads", 1) / (t * scale)


def header(context):
    rc = json_of(context.get("idbench_run_context"))
    commit = str(rc.get("commit", "?"))[:12] + ("-dirty" if rc.get("dirty") else "")
    return (f"\nidbench-bench: {rc.get('host', context.get('host_name', '?'))}, "
            f"{rc.get('cpus', '?')} × {rc.get('cpu_model', '?')}, load at start "
            f"{rc.get('load_avg_1m', '?')}, commit {commit}, {rc.get('build_type', '?')}; "
            f"timer overhead {context.get('idbench_timer_overhead_ns', '?')} ns\n")


def print_tables(rows):
    for mode in ("generate", "load"):
        print(f"| {mode} | layout | T | ids/s | wall ids/s | GB's ids/s | cap_ratio | wait_ratio "
              "| p50 | p99 | p99.9 | max |")
        print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
        for name, b in rows.items():
            m = NAME.match(name)
            if not m or m.group(1) != mode:
                continue
            if b.get("error_occurred"):
                print(f"| {m.group(2)} | {m.group(3)} | {m.group(4)} | error: {b.get('error_message')} |")
                continue
            print(f"| {m.group(2)} | {m.group(3)} | {m.group(4)} | {si(b.get('ids_per_s'))} | "
                  f"{si(b.get('ids_per_s_wall'))} | {si(gb_naive(b))} | {ratio(b.get('cap_ratio'))} | {ratio(b.get('wait_ratio'))} | "
                  f"{ns(b.get('p50_ns'))} | {ns(b.get('p99_ns'))} | {ns(b.get('p999_ns'))} | "
                  f"{ns(b.get('max_ns'))} |")
        print()

    print("| baseline | ids/s | ns per ID | p50 | p99 | p99.9 | max |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for name, b in rows.items():
        if not name.startswith("baseline/"):
            continue
        r = b.get("ids_per_s")
        print(f"| {name[len('baseline/'):]} | {si(r)} | {ns(1e9 / r) if r else '–'} | {ns(b.get('p50_ns'))} | "
              f"{ns(b.get('p99_ns'))} | {ns(b.get('p999_ns'))} | {ns(b.get('max_ns'))} |")
    print()


def above(b, key):
    x = b.get(key)
    return "–" if x is None else f"{x:+.1f} ns"


def print_floor_table(rows):
    """The harness's floors (floor/) and the references (reference/), then every generate/
    variant's cost per ID above them (bench/floors.hpp); nothing when the file has no floors."""
    if not any(name.startswith("floor/") for name in rows):
        return
    print("| floor, reference or variant | T | ids/s | ns per ID | above no-clock | "
          "above clock-once |")
    print("|---|--:|--:|--:|--:|--:|")
    for prefix in ("floor/", "reference/", "generate/"):
        for name, b in rows.items():
            if not name.startswith(prefix) or b.get("error_occurred"):
                continue
            what, threads = name[len(prefix):].rsplit("/threads:", 1)
            print(f"| {prefix}{what} | {threads} | {si(b.get('ids_per_s'))} | "
                  f"{ns(b.get('ns_per_id'))} | {above(b, 'above_no_clock_ns')} | "
                  f"{above(b, 'above_clock_once_ns')} |")
    print()


def main(path):
    context, rows = load_rows(path)
    print(header(context))
    print_tables(rows)
    print_floor_table(rows)
    results, info = check_targets(rows, described(context), context)
    print("| target | met | measured |")
    print("|---|---|---|")
    for text, ok, detail in results:
        print(f"| {text} | {'yes' if ok else '**no**'} | {detail} |")
    for line in info:
        print(f"\n- {line}")


class Runs:
    """The runs of one bench file, read by (variant, layout, threads)."""

    def __init__(self, rows, context):
        self.rows, self.context = rows, context

    def get(self, name, counter="ids_per_s"):
        b = self.rows.get(name)
        return None if b is None or b.get("error_occurred") else b.get(counter)

    def gen(self, variant, layout, threads, counter="ids_per_s"):
        return self.get(f"generate/{variant}/{layout}/threads:{threads}", counter)

    def layouts(self):
        return list(dict.fromkeys(m.group(3) for m in map(NAME.match, self.rows) if m))

    def one_node_cap(self, layout):
        m = re.search(r"cap ([0-9.e+]+) IDs/s per node", self.context.get(f"idbench_layout_{layout}", ""))
        return float(m.group(1)) if m else None

    def capped(self, layout):
        """Whether a tight loop reaches this layout's cap (some 1-thread run at >= 0.9 of it)."""
        return any((b.get("cap_ratio") or 0) >= 0.9 for n, b in self.rows.items()
                   if (m := NAME.match(n)) and m.group(3) == layout and m.group(4) == "1")


def check_targets(rows, variants, context):
    """(target, met, measured) rows and informational lines. A target applies to the variants
    whose description fits it; a description without variants checks nothing."""
    runs = Runs(rows, context)
    results, info = [], []
    layouts = runs.layouts()
    capped = [lay for lay in layouts if runs.capped(lay)]
    for v, d in variants.items():
        if not any(f"/{v}/" in name for name in rows):
            continue  # not measured in this file
        for lay in capped if d.get("id_time") == "layout" else ():
            c = runs.gen(v, lay, 1, "cap_ratio")
            results.append((f"{v} 1 thread {lay} cap_ratio >= 0.99", c is not None and c >= 0.99,
                            ratio(c)))
        for lay in capped if d.get("node_ids") == "per_thread" else ():
            r, cap = runs.gen(v, lay, 2), runs.one_node_cap(lay)
            results.append((f"{v} (a node id per thread) 2 threads {lay} ids_per_s >= 1.9 x one "
                            "node's cap", bool(r and cap and r >= 1.9 * cap),
                            f"{si(r)} = {r / cap if r and cap else 0:.3f} x cap"))
        if d.get("family") == "uuid" and d.get("time_based"):
            results += time_uuid_targets(runs, v, layouts)
        if d.get("node_ids") == "one" and d.get("uses_layout"):
            info += convoy_lines(runs, v, [lay for lay in layouts if lay not in capped])
    f1, f2 = runs.get("baseline/fetch_add/threads:1"), runs.get("baseline/fetch_add/threads:2")
    if f1 and f2:
        info.append(f"fetch_add keeps {f2 / f1:.2f} of its 1-thread rate at 2 threads (one shared cache line)")
    return results, info


def time_uuid_targets(runs, v, layouts):
    """A time-ordered UUID costs about one clock read, and far less than Boost's random one."""
    out = []
    cg, br = runs.get("baseline/clock_gettime"), runs.get("baseline/boost_random")
    for layout in layouts:
        r = runs.gen(v, layout, 1)
        if not (r and cg and br):
            out.append((f"{v} ({layout}) vs baselines", False, "missing"))
            continue
        t_u, t_cg, t_br = 1e9 / r, 1e9 / cg, 1e9 / br
        out.append((f"{v} 1 thread ({layout}) <= 2 x clock_gettime", t_u <= 2 * t_cg,
                    f"{t_u:.1f} ns vs {t_cg:.1f} ns = {t_u / t_cg:.2f} x"))
        out.append((f"{v} 1 thread ({layout}) >= 5 x faster than boost_random", t_br >= 5 * t_u,
                    f"{t_br:.1f} ns vs {t_u:.1f} ns = {t_br / t_u:.1f} x"))
    return out


def convoy_lines(runs, v, uncapped):
    """How a variant sharing one node's state holds up as threads are added, where no cap hides
    it."""
    out = []
    for layout in uncapped:
        r1, r2, r8 = (runs.gen(v, layout, t) for t in (1, 2, 8))
        if r1 and r8:
            out.append(f"{v} ({layout}) at 8 threads keeps {r8 / r1:.2f} of its 1-thread rate"
                       + (f", {r8 / r2:.2f} of its 2-thread rate" if r2 else ""))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench_table.py BENCH_JSON")
    main(sys.argv[1])
