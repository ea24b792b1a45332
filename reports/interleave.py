#!/usr/bin/python3
"""interleave.py — runs two builds' bench binaries alternately, round by round, on this machine,
and writes what each round measured (interleaved.json). It measures; reports/compare.py judges.

    reports/interleave.py BASE_BIN NEW_BIN OUT_JSON [--rounds R] [--min-time S] [--seed N]
                          [--threads 1,2] [--layouts twitter] [--filter REGEX]

Why interleave: on a shared machine the speed available to a process drifts by tens of percent
within a minute (other builds start and stop). Two runs made one after the other see different
machines; runs made alternately, seconds apart, see nearly the same one, so the drift lands on
both and cancels in the ratio of a round's NEW to its BASE (reports/gate_paired.py).

Each round runs BASE_BIN/idbench-bench and NEW_BIN/idbench-bench once each, A then B or B then
A, in randomized balanced blocks (each pair of rounds has one of each, drawn from --seed, so a
"second run is slower" effect cancels), each with --benchmark_min_time S over the
benchmarks --filter selects (default: every variant's generate/ benchmark on the given layouts
and thread counts, and two controls without idbench code: baseline/clock_gettime and
baseline/fetch_add/threads:1). The filter names no variant.

interleaved.json (temp file + rename; rewritten after every round, so an interrupted run keeps
its rounds, "complete": false):
    {"context": {"base_bin", "new_bin", "base_context", "new_context", "rounds", "min_time",
                 "filter", "seed", "cpus", "started_utc"},
     "complete": bool,
     "rounds": [{"index", "order": "AB"|"BA", "load_1m", "seconds",
                 "base": {benchmark: IDs/s}, "new": {...},
                 "base_cpu": {benchmark: IDs/s by CPU time}, "new_cpu": {...}}]}
IDs/s is the bench's ids_per_s counter, or 1e9 / real_time where it has none; "by CPU time" is
1e9 / cpu_time, the rate while the benchmark's threads were on a CPU (the gate's measure for
1-thread benchmarks: time spent descheduled by a build beside does not count).

Exit: 0 written; 1 a bench run failed (what was measured is kept); 2 bad usage; 130 SIGINT.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402  (its write_atomically: temp file, fsync, rename)

DEFAULT_FILTER = ("^(generate/[^/]+/({layouts})/threads:[0-9]+"
                  "|baseline/(clock_gettime|fetch_add/threads:1))$")


def write_atomically(path: str, doc: dict) -> None:
    render.write_atomically(path, json.dumps(doc, indent=1) + "\n")


_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def rates(entry: dict) -> tuple[float | None, float | None]:
    """(IDs/s by wall time, IDs/s by the CPU time of the benchmark's threads)."""
    if entry.get("error_occurred") or entry.get("run_type") == "aggregate":
        return None, None
    unit = _NS.get(entry.get("time_unit", "ns"), 1.0)
    v, rt, ct = entry.get("ids_per_s"), entry.get("real_time"), entry.get("cpu_time")
    real = (float(v) if isinstance(v, (int, float)) and v > 0 else
            1e9 / (rt * unit) if isinstance(rt, (int, float)) and rt > 0 else None)
    cpu = 1e9 / (ct * unit) if isinstance(ct, (int, float)) and ct > 0 else None
    return real, cpu


def run_bench(bin_dir: str, args, regex: str) -> tuple[dict, dict, dict]:
    """One run of one build: benchmark → IDs/s by wall time, the same by CPU time, and its
    run context."""
    argv = [os.path.join(bin_dir, "idbench-bench"), f"--benchmark_filter={regex}",
            f"--idbench_threads={args.threads}", f"--idbench_layouts={args.layouts}",
            f"--benchmark_min_time={args.min_time}", "--benchmark_format=json"]
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{argv[0]} exited {p.returncode}: {p.stderr.strip()[-300:]}")
    doc = json.loads(p.stdout)
    values, cpu = {}, {}
    for e in doc.get("benchmarks", []):
        real, by_cpu = rates(e)
        if real is not None:
            values[e["name"]] = real
        if by_cpu is not None:
            cpu[e["name"]] = by_cpu
    ctx = doc.get("context", {})
    run_ctx = ctx.get("idbench_run_context")
    try:
        run_ctx = json.loads(run_ctx) if isinstance(run_ctx, str) else run_ctx
    except ValueError:
        run_ctx = None
    plant = ctx.get("idbench_plant")
    return values, cpu, {"run_context": run_ctx, "plant": plant or ""}


def load_1m() -> float | None:
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def parse_args(argv):
    ap = argparse.ArgumentParser(description="run two builds' benches alternately")
    ap.add_argument("base_bin")
    ap.add_argument("new_bin")
    ap.add_argument("out_json")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--min-time", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--layouts", default="twitter")
    ap.add_argument("--filter", default=None)
    args = ap.parse_args(argv)
    for d in (args.base_bin, args.new_bin):
        if not os.access(os.path.join(d, "idbench-bench"), os.X_OK):
            print(f"interleave: {d}/idbench-bench not found; build the idbench-bench target",
                  file=sys.stderr)
            sys.exit(2)
    if args.rounds < 1 or not args.min_time > 0:
        print("interleave: --rounds must be >= 1 and --min-time > 0", file=sys.stderr)
        sys.exit(2)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    regex = args.filter or DEFAULT_FILTER.format(layouts=args.layouts.replace(",", "|"))
    doc = {"context": {"base_bin": os.path.abspath(args.base_bin),
                       "new_bin": os.path.abspath(args.new_bin), "rounds": args.rounds,
                       "min_time": args.min_time, "filter": regex, "seed": seed,
                       "threads": args.threads, "layouts": args.layouts,
                       "cpus": os.cpu_count(),
                       "started_utc": datetime.datetime.now(datetime.timezone.utc)
                       .strftime("%Y-%m-%dT%H:%M:%SZ")},
           "complete": False, "rounds": []}
    started = time.monotonic()
    orders = []  # randomized balanced blocks: each pair of rounds has one AB and one BA
    while len(orders) < args.rounds:
        orders += rng.sample(("AB", "BA"), 2)
    try:
        for i in range(args.rounds):
            order = orders[i]
            t0, load = time.monotonic(), load_1m()
            got = {}
            for side in order:
                which = "base" if side == "A" else "new"
                got[which], got[f"{which}_cpu"], ctx = run_bench(
                    args.base_bin if side == "A" else args.new_bin, args, regex)
                doc["context"].setdefault(f"{which}_context", ctx)
            doc["rounds"].append({"index": i, "order": order, "load_1m": load,
                                  "seconds": round(time.monotonic() - t0, 2), **got})
            doc["complete"] = i + 1 == args.rounds
            write_atomically(args.out_json, doc)
            spent = time.monotonic() - started
            left = spent / (i + 1) * (args.rounds - i - 1)
            print(f"interleave: round {i + 1}/{args.rounds} ({order}, load {load}) done; "
                  f"about {left:.0f} s left", file=sys.stderr)
    except KeyboardInterrupt:
        print("interleave: interrupted; interleaved.json keeps the rounds done", file=sys.stderr)
        return 130
    except (RuntimeError, ValueError) as e:
        print(f"interleave: {e}", file=sys.stderr)
        write_atomically(args.out_json, doc)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
