#!/usr/bin/python3
"""floors_test.py — the harness's floors and the bench-only reference are read by
name, tabled with each variant's cost above them, and pass through the regression gate's
comparison like idbench's own benchmarks.

    /usr/bin/python3 reports/floors_test.py

testdata/bench_floors.json is a real run with floors (3 repetitions, trimmed); bench.json one
from before floors existed.
"""
from __future__ import annotations

import json
import os
import unittest

from testsupport import require

require("scipy")

import compare  # noqa: E402
import content  # noqa: E402
import inputs  # noqa: E402

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def bench(name="bench_floors.json") -> inputs.Bench:
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return inputs.load_bench(json.load(f))


class FloorNamesTest(unittest.TestCase):
    def test_floors_and_references_are_recognised_by_name(self):
        self.assertEqual(inputs.parse_bench_name("floor/no-clock/threads:2", 2),
                         ("floor", "no-clock", None, 2))
        self.assertEqual(
            inputs.parse_bench_name("reference/clock-under-lock-mutex/wide/threads:8", 8),
            ("reference", "clock-under-lock-mutex", "wide", 8))
        b = bench()
        self.assertEqual(b.unrecognised, [])
        self.assertEqual(b.variants("floor"), ["no-clock", "clock-once"])
        # Not variants: the decision table and the variant lines never see them.
        self.assertNotIn("clock-under-lock-mutex", b.variants("generate"))


class FloorTableTest(unittest.TestCase):
    def test_each_variant_shows_its_cost_above_both_floors(self):
        table = content.floor_table(bench())
        rows = {r[0]: r[1:] for r in table.rows}
        self.assertEqual(table.header[1], "1 thread")
        self.assertIn("floor: no clock read", rows)
        self.assertIn("floor: one clock read", rows)
        # "90 ns (+83 / −21)": ns per ID, then above the no-clock / the clock-once floor.
        self.assertRegex(rows["mutex · wide"][0], r"^\d+ ns \([+−]\d+ / [+−]\d+\)$")
        self.assertIn("reference: clock-under-lock-mutex · twitter", rows)

    def test_the_figures_are_the_runs_own_counters(self):
        b = bench()
        r = b.find("generate", "cas", "wide", 1)
        above = r.median("above_clock_once_ns")
        cell = {row[0]: row[1] for row in content.floor_table(b).rows}["cas · wide"]
        self.assertIn(f"{'+' if above >= 0 else '−'}{abs(above):.0f})", cell)

    def test_a_run_without_floors_has_no_floor_table(self):
        self.assertIsNone(content.floor_table(bench("bench.json")))
        titles = [t.header[0] for t in content.throughput_tables(bench("bench.json"))]
        self.assertFalse(any("floor" in t for t in titles))


class GateTest(unittest.TestCase):
    def test_floors_and_the_reference_are_compared_as_idbench_code(self):
        b = bench()
        rows, findings, stats = compare.compare_bench(b, b, None, None, 0.01, 0.1, 0.2, 3)
        names = {r[0]: r for r in rows}
        self.assertIn("floor/no-clock/threads:1", names)
        self.assertIn("reference/clock-under-lock-mutex/twitter/threads:2", names)
        self.assertNotIn("control", names["floor/clock-once/threads:1"][7])
        self.assertEqual(stats["regressions"], 0)
        self.assertFalse(any(f.regression for f in findings))


if __name__ == "__main__":
    unittest.main(verbosity=2)
