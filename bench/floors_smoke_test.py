#!/usr/bin/python3
"""floors_smoke_test.py — idbench-bench writes the floors' counters as bench/gbench_output.hpp says:
ns_per_id on generate-mode runs, and on a variant's and the reference's entries their cost
above each floor, the floor's median over its reported repetitions (Google Benchmark's probe
runs left out), or no such counter when the floor was filtered out. A short run (milliseconds
per benchmark, 1 thread); it reads counters, never asserts a speed.

    /usr/bin/python3 bench/floors_smoke_test.py build/bin/idbench-bench
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import unittest

BIN = None


def run_bench(regex, reps):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "bench.json")
        subprocess.run([BIN, f"--benchmark_filter={regex}", "--idbench_threads=1",
                        "--idbench_layouts=wide", "--benchmark_min_time=0.002",
                        f"--benchmark_repetitions={reps}", f"--benchmark_out={out}",
                        "--benchmark_out_format=json"], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            doc = json.load(f)
    reps_by_name = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "iteration":
            reps_by_name.setdefault(b["run_name"], []).append(b)
    return reps_by_name


class FloorCountersTest(unittest.TestCase):
    def test_a_variant_carries_its_cost_above_each_floor(self):
        runs = run_bench("^(floor/.*|generate/cas/wide/threads:1"
                         "|reference/clock-under-lock-mutex/wide/threads:1)$", reps=3)
        floors = {name: statistics.median(b["ns_per_id"] for b in runs[f"floor/{name}/threads:1"])
                  for name in ("no-clock", "clock-once")}
        for name in ("generate/cas/wide/threads:1",
                     "reference/clock-under-lock-mutex/wide/threads:1"):
            for b in runs[name]:
                self.assertGreater(b["ns_per_id"], 0)
                # The floors ran first, all their repetitions: the median over the reported
                # ones, not over Google Benchmark's shorter probe runs.
                self.assertAlmostEqual(b["above_no_clock_ns"],
                                       b["ns_per_id"] - floors["no-clock"], places=3)
                self.assertAlmostEqual(b["above_clock_once_ns"],
                                       b["ns_per_id"] - floors["clock-once"], places=3)
        for b in runs["floor/clock-once/threads:1"]:
            self.assertNotIn("above_clock_once_ns", b)

    def test_without_the_floors_the_counters_are_left_out_not_zero(self):
        runs = run_bench("^generate/cas/wide/threads:1$", reps=1)
        (b,) = runs["generate/cas/wide/threads:1"]
        self.assertGreater(b["ns_per_id"], 0)
        self.assertNotIn("above_no_clock_ns", b)
        self.assertNotIn("above_clock_once_ns", b)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: floors_smoke_test.py IDBENCH_BENCH [unittest args]")
    BIN = sys.argv.pop(1)
    unittest.main(verbosity=2)
