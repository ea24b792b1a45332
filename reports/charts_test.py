#!/usr/bin/python3
"""charts_test.py — what the charts print that a reader relies on.

    /usr/bin/python3 reports/charts_test.py
"""
from __future__ import annotations

import json
import os
import unittest

from testsupport import require

require("matplotlib")

import charts  # noqa: E402
import inputs  # noqa: E402

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


class EventLabelTest(unittest.TestCase):
    def test_a_numeric_step_wins_over_the_text(self):
        self.assertEqual(charts._event_label({"step_ms": -100, "what": "back 200 ms"}, 0.5),
                         "−100 ms")

    def test_the_text_size_is_scaled_by_the_time_scale(self):
        # scenario.cpp's text names the unscaled step; at time scale 0.5 the step is halved.
        self.assertEqual(charts._event_label({"what": "NTP steps every clock back 1 s"}, 0.5),
                         "−500 ms")
        self.assertEqual(charts._event_label({"what": "NTP steps every clock back 5 s"}, 1),
                         "−5 s")
        self.assertEqual(charts._event_label(
            {"what": "midnight UTC: the kernel repeats 23:59:59 (−1 s)"}, 0.5), "−500 ms")

    def test_other_events_keep_a_short_text(self):
        self.assertEqual(charts._event_label({"what": "SIGSTOP node 1"}, 1), "SIGSTOP node 1")


class ChartTest(unittest.TestCase):
    def test_a_variant_keeps_its_colour(self):
        self.assertEqual(charts.colour_of("cas"), charts.colour_of("cas"))
        self.assertNotEqual(charts.colour_of("cas"), charts.colour_of("mutex"))
        self.assertNotEqual(charts.colour_of("new-variant-a"), charts.colour_of("new-variant-b"))

    def test_a_bench_without_load_runs_still_draws_latency(self):
        with open(os.path.join(TESTDATA, "bench.json")) as f:
            doc = json.load(f)
        doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith("load/")]
        svg = charts.latency_chart(inputs.load_bench(doc))
        self.assertTrue(svg.startswith("<svg"))
        self.assertIn("tight loop, layout wide", svg)

    def test_the_throughput_chart_names_the_format_cap(self):
        with open(os.path.join(TESTDATA, "bench.json")) as f:
            svg = charts.throughput_chart(inputs.load_bench(json.load(f)))
        self.assertIn("format cap, 1 node id: 4.1 M IDs/s", svg)


class FloorLinesTest(unittest.TestCase):
    """The harness's floors and Twitter's original mutex are lines of the throughput chart
    (issue 16), from a real run with floors (testdata/bench_floors.json)."""

    def chart(self, keep=lambda name: True):
        with open(os.path.join(TESTDATA, "bench_floors.json")) as f:
            doc = json.load(f)
        doc["benchmarks"] = [b for b in doc["benchmarks"] if keep(b["name"])]
        return charts.throughput_chart(inputs.load_bench(doc))

    def test_the_floors_and_the_reference_are_labelled_lines(self):
        svg = self.chart()
        for label in ("floor: no clock read", "floor: one clock read",
                      "reference: Twitter's original mutex (clock read under the lock)"):
            self.assertTrue(label in svg, f"no '{label}' in the chart")

    def test_a_run_without_floors_draws_no_floor_line(self):
        svg = self.chart(lambda name: not name.startswith(("floor/", "reference/")))
        self.assertFalse("no clock read" in svg or "Twitter" in svg)
        self.assertTrue("baseline fetch_add" in svg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
