#!/usr/bin/env python3
"""bench_table.py — prints idbench-bench JSON as Markdown tables, and checks issue 3's targets.

    python3 bench/bench_table.py reports/latest/bench.json

With repetitions, the median aggregate of each benchmark is shown. Standard library only.
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


def gb_naive(b):
    """What Google Benchmark's own timing says: threads ÷ (mean per-thread time per iteration)."""
    t = b.get("real_time")
    if not t or b.get("error_occurred"):
        return None
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b.get("threads", 1) / (t * scale)


def main(path):
    context, rows = load_rows(path)
    print(f"\nidbench-bench: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs "
          f"@ {context.get('mhz_per_cpu', '?')} MHz, load at start {context.get('idbench_loadavg_at_start', '?')}, "
          f"commit {context.get('idbench_commit', '?')[:12]}, {context.get('idbench_build_type', '?')}; "
          f"timer overhead {context.get('idbench_timer_overhead_ns', '?')} ns\n")

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
    check_targets(rows)


def check_targets(rows):
    def get(name, counter="ids_per_s"):
        b = rows.get(name)
        return None if b is None or b.get("error_occurred") else b.get(counter)

    results = []

    def target(text, ok, detail):
        results.append((text, ok, detail))

    for v in ("mutex", "cas", "thread-local"):
        c = get(f"generate/{v}/twitter/threads:1", "cap_ratio")
        target(f"{v} 1 thread twitter cap_ratio >= 0.99", c is not None and c >= 0.99, ratio(c))
    tl = get("generate/thread-local/twitter/threads:2")
    one_cap = 4_096_000
    target("thread-local 2 threads twitter ids_per_s >= 1.9 x one node's cap",
           tl is not None and tl >= 1.9 * one_cap, f"{si(tl)} = {tl / one_cap if tl else 0:.3f} x cap")
    cas2, mutex2 = get("generate/cas/wide/threads:2"), get("generate/mutex/wide/threads:2")
    target("wide 2 threads: cas ids_per_s > mutex ids_per_s",
           cas2 is not None and mutex2 is not None and cas2 > mutex2, f"cas {si(cas2)} vs mutex {si(mutex2)}")
    m1, m8 = get("generate/mutex/wide/threads:1"), get("generate/mutex/wide/threads:8")
    target("wide 8 threads: mutex keeps >= 70 % of its 1-thread ids_per_s",
           m1 and m8 and m8 >= 0.7 * m1, f"{si(m8)} / {si(m1)} = {m8 / m1 if m1 and m8 else 0:.2f}")
    cg, br = get("baseline/clock_gettime"), get("baseline/boost_random")
    for layout in ("twitter", "wide"):
        u = get(f"generate/uuidv7/{layout}/threads:1")
        if not (u and cg and br):
            target(f"uuidv7 ({layout}) vs baselines", False, "missing")
            continue
        t_u, t_cg, t_br = 1e9 / u, 1e9 / cg, 1e9 / br
        target(f"uuidv7 1 thread ({layout}) <= 2 x clock_gettime", t_u <= 2 * t_cg,
               f"{t_u:.1f} ns vs {t_cg:.1f} ns = {t_u / t_cg:.2f} x")
        target(f"uuidv7 1 thread ({layout}) >= 5 x faster than boost_random", t_br >= 5 * t_u,
               f"{t_br:.1f} ns vs {t_u:.1f} ns = {t_br / t_u:.1f} x")
    # Context for the convoy target: the same ratios for the harness's floor.
    f1, f2 = get("baseline/fetch_add/threads:1"), get("baseline/fetch_add/threads:2")
    m2 = get("generate/mutex/wide/threads:2")
    info = []
    if f1 and f2:
        info.append(f"fetch_add keeps {f2 / f1:.2f} of its 1-thread rate at 2 threads (one shared cache line)")
    if m2 and m8:
        info.append(f"mutex (wide) at 8 threads keeps {m8 / m2:.2f} of its 2-thread rate")
    print("| target | met | measured |")
    print("|---|---|---|")
    for text, ok, detail in results:
        print(f"| {text} | {'yes' if ok else '**no**'} | {detail} |")
    for line in info:
        print(f"\n- {line}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench_table.py BENCH_JSON")
    main(sys.argv[1])
