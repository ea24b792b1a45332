#!/usr/bin/python3
"""compare_test.py — the regression gate (compare.sh) against planted regressions.

Each test builds a BASE and a NEW results directory from reports/testdata/, plants one change
in NEW, runs reports/compare.sh as ./run.sh compare does, and checks its exit status and what
it names. Bench files with 9 repetitions are drawn from the testdata's medians with 3 %
multiplicative noise (a fixed seed per run), the spread of a quiet machine: an "unchanged
rerun" is a second draw with another seed.

    /usr/bin/python3 reports/compare_test.py                       # every test
    /usr/bin/python3 reports/compare_test.py GateTest.test_planted_duplicate_fails
"""
from __future__ import annotations

import copy
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import unittest

from testsupport import require

require("scipy")

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
COMPARE = os.path.join(HERE, "compare.sh")

# Fields that scale with time: a slower build multiplies them; IDs/s divides.
TIME_FIELDS = ("real_time", "cpu_time", "p50_ns", "p99_ns", "p999_ns", "max_ns", "svc_p50_ns",
               "svc_p99_ns", "svc_p999_ns")
RATE_FIELDS = ("ids_per_s", "ids_per_s_by_ids")
# A cross-section of the testdata's benchmarks, enough for every kind of row and small enough
# that a test writes and compares its files in a fraction of a second.
KEEP = re.compile(r"^(baseline/(clock_gettime|fetch_add/threads:2)"
                  r"|generate/(mutex|cas|uuidv7)/(twitter|wide)/threads:[12]"
                  r"|load/(mutex|cas)/twitter/threads:[12])$")


def load(name):
    with open(os.path.join(TESTDATA, name)) as f:
        return json.load(f)


def bench_with_repetitions(seed: int, slowdown: float = 1.0, reps: int = 9,
                           noise: float = 0.03, controls_too: bool = False) -> dict:
    """A Google Benchmark JSON as `--benchmark_repetitions=reps` writes it: every repetition
    (run_type iteration) followed by the mean/median/stddev/cv aggregates. `slowdown` scales
    idbench's own benchmarks (a slower build); with `controls_too` the baseline/ ones as well
    (a slower machine)."""
    doc = load("bench.json")
    rng = random.Random(seed)
    out = []
    for e in doc["benchmarks"]:
        if e.get("run_type") == "aggregate" or not KEEP.match(e["name"]):
            continue
        runs = []
        slow = slowdown if controls_too or not e["name"].startswith("baseline/") else 1.0
        for i in range(reps):
            r = copy.deepcopy(e)
            r["repetitions"] = reps
            r["repetition_index"] = i
            f = max(0.5, rng.gauss(1.0, noise))
            for k in TIME_FIELDS:
                if k in r:
                    r[k] = r[k] * f * slow
            for k in RATE_FIELDS:
                if k in r:
                    r[k] = r[k] / (f * slow)
            runs.append(r)
        out += runs
        for agg in ("mean", "median", "stddev", "cv"):
            a = copy.deepcopy(e)
            a.update(name=f"{e['name']}_{agg}", run_type="aggregate", aggregate_name=agg,
                     repetitions=reps)
            for k in TIME_FIELDS + RATE_FIELDS:
                if k in a:
                    vals = [r[k] for r in runs]
                    sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
                    a[k] = {"mean": statistics.mean(vals), "median": statistics.median(vals),
                            "stddev": sd, "cv": sd / statistics.mean(vals)}[agg]
            out.append(a)
    doc["benchmarks"] = out
    return doc


class Tail(str):
    """The gate's output, shown by its last 2,000 characters when an assertion fails."""

    def __repr__(self):
        return repr(str(self)[-2000:])


class GateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="idbench-compare-test-")
        self.base = os.path.join(self.tmp, "base")
        self.new = os.path.join(self.tmp, "new")
        for d, seed in ((self.base, 1), (self.new, 2)):
            os.makedirs(d)
            self.write(d, "bench.json", bench_with_repetitions(seed))
            for name in ("chaos.json", "locality.json"):
                shutil.copy(os.path.join(TESTDATA, name), d)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def write(d, name, doc):
        with open(os.path.join(d, name), "w") as f:
            json.dump(doc, f)

    def gate(self, *extra):
        p = subprocess.run([COMPARE, self.base, self.new, *extra], capture_output=True,
                           text=True, timeout=120)
        # The verdict and its reasons come last; a failed assertion prints that much.
        return p.returncode, Tail(p.stdout + p.stderr)

    def test_unchanged_rerun_passes(self):
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("**PASS**", out)
        self.assertNotIn("REGRESSION", out)

    def test_identical_directories_pass(self):
        shutil.rmtree(self.new)
        shutil.copytree(self.base, self.new)
        status, out = self.gate()
        self.assertEqual(status, 0, out)

    def test_planted_slowdown_of_30_percent_fails(self):
        self.write(self.new, "bench.json", bench_with_repetitions(2, slowdown=1.3))
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("**FAIL**", out)
        # Both kinds of metric: IDs/s of a tight loop, p99 of an offered load.
        self.assertRegex(out, r"- performance: generate/uuidv7/wide/threads:1: IDs/s −2\d\.\d %")
        self.assertRegex(out, r"- performance: load/cas/twitter/threads:2: p99 \+[23]\d\.\d %")

    def test_slower_machine_fails_and_says_the_machine_moved(self):
        self.write(self.new, "bench.json", bench_with_repetitions(2, slowdown=1.3,
                                                                  controls_too=True))
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("control benchmarks without idbench code moved beyond noise", out)
        self.assertIn("the machine, not only the code, differs between the runs", out)
        self.assertIn("rerun on a quiet machine before blaming the code", out)

    def test_slowdown_below_the_threshold_passes(self):
        self.write(self.new, "bench.json", bench_with_repetitions(2, slowdown=1.05))
        status, out = self.gate()
        self.assertEqual(status, 0, out)

    def test_slowdown_without_nine_repetitions_is_shown_not_gated(self):
        self.write(self.base, "bench.json", bench_with_repetitions(1, reps=1))
        self.write(self.new, "bench.json", bench_with_repetitions(2, reps=1, slowdown=1.3))
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("not gated (< 9 repetitions)", out)
        self.assertIn("beyond the 10% threshold", out)

    def test_planted_duplicate_fails(self):
        chaos = load("chaos.json")
        cell = next(c for c in chaos["cells"] if c["scenario"] == "ntp-step-back"
                    and c["policy"] == "refuse")
        self.assertEqual(cell["duplicates"], 0)
        cell["duplicates"] = 1  # promise_kept left true: the gate must count, not trust
        self.write(self.new, "chaos.json", chaos)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("ntp-step-back · cas · refuse: 1 new duplicate where none are expected",
                      out)

    def test_broken_promise_fails(self):
        chaos = load("chaos.json")
        cell = next(c for c in chaos["cells"] if c["scenario"] == "leap-second"
                    and c["policy"] == "borrow")
        cell.update(duplicates=3, promise_kept=False, verdict="BROKEN: 3 duplicates within one "
                                                            "process")
        self.write(self.new, "chaos.json", chaos)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("leap-second · uuidv7 · borrow: broken promise", out)

    def test_more_expected_duplicates_pass(self):
        chaos = load("chaos.json")
        cell = next(c for c in chaos["cells"] if c["policy"] == "unsafe"
                    and c["scenario"] == "ntp-step-back")
        cell["duplicates"] += 1000  # unsafe duplicates by design: a count, not a regression
        self.write(self.new, "chaos.json", chaos)
        status, out = self.gate()
        self.assertEqual(status, 0, out)

    def test_cell_that_could_not_run_fails(self):
        chaos = load("chaos.json")
        cell = next(c for c in chaos["cells"] if c["scenario"] == "skew")
        for k in list(cell):
            if k not in ("scenario", "variant", "policy", "persist", "nodes"):
                del cell[k]
        cell.update(error="node 1 exited with status 134", promise_kept=None)
        self.write(self.new, "chaos.json", chaos)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("could not run", out)

    def test_missing_new_input_fails_unless_allowed(self):
        os.remove(os.path.join(self.new, "chaos.json"))
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("chaos.json is in BASE but missing from NEW", out)
        status, out = self.gate("--allow-missing")
        self.assertEqual(status, 0, out)

    def test_bad_usage_exits_2(self):
        p = subprocess.run([COMPARE, self.base], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        p = subprocess.run([COMPARE, self.base, os.path.join(self.tmp, "nowhere")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=2)
