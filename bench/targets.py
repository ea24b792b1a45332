#!/usr/bin/env python3
"""targets.py — the performance acceptance table: every bench target, before and after, PASS/FAIL.

    python3 bench/targets.py AFTER.json                 # the targets of one run
    python3 bench/targets.py BEFORE.json AFTER.json     # before/after: speedups need both

Each file is idbench-bench JSON (--benchmark_out). `bench/run_bench.sh build/bin OUT --full
--no-real` gives medians of 9 repetitions; so does idbench-bench alone, on the benchmarks the
table reads only:
    build/bin/idbench-bench --benchmark_repetitions=9 --benchmark_min_time=0.3 \
      --benchmark_filter='^(baseline/(clock_gettime|boost_random)|floor/.*|generate/(mutex|cas|thread-local|uuidv7)/(wide|twitter)/threads:.*)$' \
      --benchmark_out=OUT.json
A benchmark's "median" aggregate row is read when the file has one, else its single run. Throughput is `ids_per_s_wall` (IDs ÷ wall span over
all threads, on the TSC); cost per ID is `ns_per_id` (threads × wall span ÷ IDs), or
threads × 1e9 ÷ ids_per_s_wall for a file written before that counter existed. A BEFORE file
from a binary without floors shows "n/a" where a floor is needed. The result column judges
AFTER (against BEFORE where the target says so); exit status 1 when a target fails or is
missing, 2 on bad input. Standard library only.

The targets name the variants they are about (mutex, cas, thread-local, uuidv7): so do
the constants below, and a variant absent from a file shows as "missing". The locality target
(3 M rows/s) is `idbench locality`'s, not the bench's: the table says so and leaves it out.
"""
import json
import sys
from dataclasses import dataclass

from bench_table import json_of, load_rows

# The targets' variants and layouts.
SHARED_STATE = ("mutex", "cas", "thread-local")  # the 1-thread floor and the cap targets
WIDE, TWITTER = "wide", "twitter"
TIME_UUID = "uuidv7"
# The floor under each shared-state commit (a std::mutex, one compare-exchange), shown beside
# the 1-thread target: what no design that commits so can go below.
COMMIT_FLOORS = {"mutex": "floor/clock-once+mutex", "cas": "floor/clock-once+cas"}


class Side:
    """One bench file: its median (or single) rows and every repetition."""

    def __init__(self, path):
        self.path = path
        self.context, self.rows = load_rows(path)
        with open(path) as f:
            self.reps = [b for b in json.load(f)["benchmarks"]
                         if b.get("run_type", "iteration") == "iteration"
                         and not b.get("error_occurred")]

    def row(self, name):
        b = self.rows.get(name)
        return None if b is None or b.get("error_occurred") else b

    def rate(self, name):
        """ids_per_s_wall of a benchmark; None when it did not run."""
        b = self.row(name)
        return b.get("ids_per_s_wall") if b else None

    def ns(self, name):
        """CPU-thread ns per ID: the ns_per_id counter, else threads × 1e9 ÷ ids_per_s_wall."""
        b = self.row(name)
        if b is None:
            return None
        if b.get("ns_per_id") is not None:
            return b["ns_per_id"]
        r = b.get("ids_per_s_wall")
        return b.get("threads", 1) * 1e9 / r if r else None

    def cpus(self):
        """The CPUs of the machine that ran the file, from its run context."""
        rc = json_of(self.context.get("idbench_run_context"))
        n = rc.get("cpus") or self.context.get("num_cpus")
        return int(n) if isinstance(n, (int, float)) and n > 0 else None

    def repetitions(self):
        return max((b.get("repetitions", 1) for b in self.rows.values()), default=0)

    def threads(self, variant, layout):
        return sorted(int(n.rsplit(":", 1)[1]) for n in self.rows
                      if n.startswith(f"generate/{variant}/{layout}/threads:"))


def gen(variant, layout, threads):
    return f"generate/{variant}/{layout}/threads:{threads}"


def si(x):
    return "n/a" if x is None else f"{x / 1e6:.2f} M/s"


def nsf(x):
    return "n/a" if x is None else f"{x:.1f} ns"


@dataclass
class Row:
    target: str
    before: str
    after: str
    ok: bool | None  # None: not measured in AFTER (missing)


def per_side(target, check, before, after):
    """A target each file can meet on its own: `check(side)` gives (text, met or None)."""
    b_text, b_ok = check(before) if before else ("–", None)
    a_text, a_ok = check(after)
    mark = {True: " ✓", False: " ✗", None: ""}[b_ok] if before else ""
    return Row(target, b_text + mark, a_text, a_ok)


def floor_target(v):
    def check(s):
        ns, floor = s.ns(gen(v, WIDE, 1)), s.ns("floor/clock-once/threads:1")
        if ns is None:
            return "missing", None
        if floor is None:
            return f"{nsf(ns)}; floor n/a", None
        text = f"{nsf(ns)} = {ns / floor:.2f} × {nsf(floor)}"
        commit = s.ns(f"{COMMIT_FLOORS[v]}/threads:1") if v in COMMIT_FLOORS else None
        if commit is not None:  # shown, not judged: the floor under the design's commit
            text += f"; {COMMIT_FLOORS[v]} {nsf(commit)} = {commit / floor:.2f} ×"
        return text, ns <= 1.25 * floor
    return f"{v}, 1 thread, {WIDE}: ns per ID ≤ 1.25 × floor/clock-once (1 thread)", check


def speedup_row(v, factor, before, after):
    """`v` at 2 threads on the wide layout ≥ factor × its BEFORE rate."""
    target = f"{v}, 2 threads, {WIDE}: IDs/s ≥ {factor} × its rate before"
    b, a = (before.rate(gen(v, WIDE, 2)) if before else None), after.rate(gen(v, WIDE, 2))
    if a is None:
        return Row(target, si(b), "missing", None)
    if b is None:
        return Row(target, "n/a (no BEFORE file)" if before is None else "missing", si(a), None)
    return Row(target, si(b), f"{si(a)} = {a / b:.2f} × before", a >= factor * b)


def ratio_target(target, num, den, at_least, shown=None):
    """rate(num) ≥ at_least × rate(den), both in one file; `shown`, a (num, den) pair, is the
    same ratio of other benchmarks, printed beside it and not judged."""
    def check(s):
        n, d = s.rate(num), s.rate(den)
        if n is None or d is None:
            return "missing", None
        text = f"{si(n)} vs {si(d)} = {n / d:.2f} ×"
        sn, sd = (s.rate(shown[0]), s.rate(shown[1])) if shown else (None, None)
        if sn and sd:
            text += f"; {shown[0].rsplit('/', 1)[0]} itself {sn / sd:.2f} ×"
        return text, n >= at_least * d
    return target, check


def cas_beats_mutex(s):
    c, m = s.rate(gen("cas", WIDE, 2)), s.rate(gen("mutex", WIDE, 2))
    if c is None or m is None:
        return "missing", None
    return f"cas {si(c)} vs mutex {si(m)}", c > m


def uuid_targets():
    def clock(s):
        ns, cg = s.ns(gen(TIME_UUID, WIDE, 1)), s.ns("baseline/clock_gettime")
        if ns is None or cg is None:
            return "missing", None
        return f"{nsf(ns)} = {ns / cg:.2f} × {nsf(cg)}", ns <= 2.0 * cg

    def boost(s):
        ns, br = s.ns(gen(TIME_UUID, WIDE, 1)), s.ns("baseline/boost_random")
        if ns is None or br is None:
            return "missing", None
        return f"{nsf(br)} ÷ {nsf(ns)} = {br / ns:.1f} ×", br >= 5.0 * ns
    return [(f"{TIME_UUID}, 1 thread: ns per ID ≤ 2.0 × baseline/clock_gettime", clock),
            (f"{TIME_UUID}, 1 thread: ≥ 5 × faster than baseline/boost_random", boost)]


def cap_target(v):
    """Judged at every thread count present where the cap is within the machine's reach: one
    node id, or no more threads than CPUs (8 threads with a node id each on 2 CPUs cannot fill
    8 node ids' cap; such counts are shown, not judged)."""
    def check(s):
        judged, shown = [], []
        for t in s.threads(v, TWITTER):
            b = s.row(gen(v, TWITTER, t))
            c = b.get("cap_ratio") if b else None
            if c is None:
                continue
            reachable = (b.get("nodes") or 1) <= 1 or s.cpus() is None or t <= s.cpus()
            (judged if reachable else shown).append((t, c))
        if not judged:
            return "missing", None
        t, worst = min(judged, key=lambda tc: tc[1])
        text = (f"min {worst:.4f} (at {t} thread{'s' if t > 1 else ''}; threads "
                f"{','.join(str(t) for t, _ in judged)})")
        text += "".join(f"; {t} threads {c:.3f}, {t} node ids > {s.cpus()} CPUs: not judged"
                        for t, c in shown)
        return text, worst >= 0.99
    return f"{v}, {TWITTER}: cap_ratio ≥ 0.99 at every thread count present", check


def never_above_cap(s):
    """Every repetition of every run with a cap: ids_per_s ≤ cap_per_s (the cap of the node ids
    it used: one node id's cap × nodes)."""
    runs = [(b.get("ids_per_s") / b["cap_per_s"], b.get("run_name", b["name"])) for b in s.reps
            if b.get("cap_per_s") and b.get("ids_per_s") is not None]
    if not runs:
        return "missing", None
    worst, name = max(runs)
    return f"max {worst:.4f} × cap ({name}; {len(runs)} runs)", worst <= 1 + 1e-9


def targets(before, after):
    """Every target of the bench, in table order."""
    rows = [per_side(*floor_target(v), before, after) for v in SHARED_STATE]
    rows += [speedup_row("cas", 1.8, before, after), speedup_row("mutex", 1.5, before, after),
             per_side(f"cas > mutex, 2 threads, {WIDE}", cas_beats_mutex, before, after)]
    rows.append(per_side(*ratio_target(f"mutex, 8 threads, {WIDE}: ≥ 70 % of its 2-thread rate",
                                       gen("mutex", WIDE, 8), gen("mutex", WIDE, 2), 0.70),
                         before, after))
    rows.append(per_side(*ratio_target(
        f"thread-local, 2 threads, {WIDE}: ≥ 1.9 × its 1-thread rate",
        gen("thread-local", WIDE, 2), gen("thread-local", WIDE, 1), 1.9,
        shown=("floor/clock-once/threads:2", "floor/clock-once/threads:1")), before, after))
    rows += [per_side(t, check, before, after) for t, check in uuid_targets()]
    rows += [per_side(*cap_target(v), before, after) for v in SHARED_STATE]
    rows.append(per_side("ids_per_s never above cap_per_s (= one node id's cap × nodes), every "
                         "repetition", never_above_cap, before, after))
    return rows


def describe(side):
    rc = json_of(side.context.get("idbench_run_context"))
    commit = str(rc.get("commit", "?"))[:12] + ("-dirty" if rc.get("dirty") else "")
    return f"{side.path}: commit {commit}, {side.repetitions()} repetitions"


def print_table(before, after, rows):
    for s, which in ((before, "BEFORE"), (after, "AFTER")):
        if s:
            print(f"- {which}: {describe(s)}")
    print("- rates: ids_per_s_wall (IDs ÷ wall span, all threads); ns per ID: ns_per_id "
          "(threads × wall span ÷ IDs); the median over repetitions, else the single run\n")
    print("| target | before | after | result |")
    print("|---|---|---|---|")
    for r in rows:
        verdict = {True: "PASS", False: "**FAIL**", None: "**MISSING**"}[r.ok]
        print(f"| {r.target} | {r.before} | {r.after} | {verdict} |")
    print("\nNot here: the locality target (uuidv4, 3 M rows, ≥ 3 M rows/s wall-clock) is "
          "measured by `idbench locality`, not by idbench-bench.")


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: targets.py [BEFORE.json] AFTER.json", file=sys.stderr)
        return 2
    try:
        sides = [Side(p) for p in argv[1:]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"targets.py: cannot read bench JSON: {e}", file=sys.stderr)
        return 2
    before, after = (sides[0], sides[1]) if len(sides) == 2 else (None, sides[0])
    rows = targets(before, after)
    print_table(before, after, rows)
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
