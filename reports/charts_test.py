#!/usr/bin/python3
"""charts_test.py — what the charts print that a reader relies on, and that no panel of any
chart draws more than six series (charts.MAX_SERIES): every chart of the testdata, and the
throughput and latency charts of a planted run with every variant of the registry, each floor
and the reference (18 lines, drawn as small multiples). A planted panel of seven series fails
the same check.

    /usr/bin/python3 reports/charts_test.py
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
import unittest

from testsupport import require

require("matplotlib")

import charts  # noqa: E402
import content  # noqa: E402
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
    """The harness's floors and Twitter's original mutex are lines of the throughput chart,
    from a real run with floors (testdata/bench_floors.json)."""

    def chart(self, keep=lambda name: True):
        with open(os.path.join(TESTDATA, "bench_floors.json")) as f:
            doc = json.load(f)
        doc["benchmarks"] = [b for b in doc["benchmarks"] if keep(b["name"])]
        return charts.throughput_chart(inputs.load_bench(doc))

    def test_the_floors_and_the_reference_are_labelled_lines(self):
        svg = self.chart()
        for label in ("floor: no clock read", "floor: one clock read",
                      "reference: Twitter's original mutex"):
            self.assertTrue(label in svg, f"no '{label}' in the chart")

    def test_a_run_without_floors_draws_no_floor_line(self):
        svg = self.chart(lambda name: not name.startswith(("floor/", "reference/")))
        self.assertFalse("no clock read" in svg or "Twitter" in svg)
        self.assertTrue("baseline fetch_add" in svg)


def planted_all_variants(name: str = "bench_floors.json") -> dict:
    """A testdata bench with a run of every variant its description names: the Snowflake ones
    copies of cas's runs, the others of uuidv7's (generate/ and load/), each a little faster
    than the last so no two lines coincide; and the two 1-thread floors under mutex and cas,
    copies of the clock-once floor. With bench_floors.json: 12 variants, fetch_add, 4 floors
    and the reference, the 18 lines of a full run."""
    doc = load(name)
    floors = load("bench_floors.json")
    doc["context"]["idbench_variants"] = floors["context"]["idbench_variants"]
    described = json.loads(doc["context"]["idbench_variants"])["variants"]
    measured = {e["name"].split("/")[1] for e in doc["benchmarks"]
                if e["name"].startswith(("generate/", "load/"))}
    extra = []
    for i, v in enumerate(described):
        if v["name"] in measured:
            continue
        source = "cas" if v.get("scheme") == "Snowflake" else "uuidv7"
        for e in doc["benchmarks"]:
            kind = e["name"].split("/")[0]
            if kind in ("generate", "load") and e["name"].split("/")[1] == source:
                x = copy.deepcopy(e)
                x["name"] = e["name"].replace(f"/{source}/", f"/{v['name']}/")
                x["run_name"] = e["run_name"].replace(f"/{source}/", f"/{v['name']}/")
                if isinstance(x.get("ids_per_s"), (int, float)):
                    x["ids_per_s"] *= 1 + 0.07 * (i + 1)
                extra.append(x)
    for e in doc["benchmarks"]:
        if e["name"].startswith("floor/clock-once/threads:1"):
            for floor, slower in (("clock-once+mutex", 1.6), ("clock-once+cas", 1.3)):
                x = copy.deepcopy(e)
                x["name"] = e["name"].replace("clock-once", floor)
                x["run_name"] = e["run_name"].replace("clock-once", floor)
                x["ids_per_s"] = e["ids_per_s"] / slower
                extra.append(x)
    doc["benchmarks"] += extra
    return doc


def load(name: str) -> dict:
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return json.load(f)


class SeriesPerPanelTest(unittest.TestCase):
    """At most six labelled series in any panel of any chart (charts.panel_series counts them,
    charts._svg records every chart it writes in charts.SERIES_LOG)."""

    def setUp(self):
        charts.SERIES_LOG.clear()

    def assert_readable(self, log):
        """Every panel of every chart in `log` at most MAX_SERIES labelled series."""
        crowded = [(chart, panel, n) for chart, panels in log for panel, n in panels
                   if n > charts.MAX_SERIES]
        self.assertEqual(crowded, [], f"panels with more than {charts.MAX_SERIES} series")

    def test_every_chart_of_the_testdata_keeps_to_six_series_a_panel(self):
        d = tempfile.mkdtemp(prefix="idbench-charts-test-")
        try:
            for name in ("bench.json", "locality.json", "chaos.json", "real_chaos.json",
                         "derived_ids.json", "worker_ids.json"):
                shutil.copy(os.path.join(TESTDATA, name), d)
            report = content.build_report(inputs.load_results(d), charts)
        finally:
            shutil.rmtree(d)
        drawn = [k for k, v in report.summary["charts"].items() if v == "drawn"]
        self.assertEqual(len(drawn), len(report.summary["charts"]), report.summary["charts"])
        self.assertEqual(len(charts.SERIES_LOG), len(drawn))  # every chart counted
        self.assertTrue(all(panels for _, panels in charts.SERIES_LOG))
        self.assert_readable(charts.SERIES_LOG)

    def test_a_run_with_every_variant_floor_and_reference_is_drawn_as_small_multiples(self):
        doc = planted_all_variants()
        b = inputs.load_bench(doc)
        self.assertEqual(len(b.variants("generate")), 12)
        self.assertEqual(len(b.variants("floor")), 4)
        res = inputs.Results("planted", b, inputs.Locality(), inputs.Chaos())
        charts.set_variant_order(res.description.names(),
                                 {v["name"]: v.get("scheme") or "" for v in
                                  res.description.variants})
        svg = charts.throughput_chart(b)
        for v in b.variants("generate"):
            self.assertIn(v, svg)
        panels = charts.SERIES_LOG[-1][1]
        # Snowflake per layout (3 variants and the reference), the UUIDs (4), the counters and
        # DCE (5), the floors and fetch_add (5): every line once, the Snowflake ones per layout.
        self.assertEqual([n for _, n in panels if n], [4, 4, 4, 5, 5], panels)
        self.assert_readable(charts.SERIES_LOG)

    def test_the_latency_charts_of_every_variant_keep_to_six_series_a_panel(self):
        b = inputs.load_bench(planted_all_variants("bench.json"))
        self.assertEqual(len(b.variants("load")), 12)
        charts.set_variant_order(b.description.names(),
                                 {v["name"]: v.get("scheme") or "" for v in
                                  b.description.variants})
        for kind in ("generate", "load"):
            charts.latency_chart(b, kind)
        self.assert_readable(charts.SERIES_LOG)
        self.assertEqual(len(charts.SERIES_LOG[-1][1]), 3 * 3)  # three families × p50/p99/p99.9

    def test_a_panel_of_seven_series_fails_the_check(self):
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        for i in range(charts.MAX_SERIES + 1):
            ax.plot([1, 2], [i, i + 1], label=f"series {i}")
        charts._svg(fig)
        self.assertEqual(charts.SERIES_LOG[-1][1][0][1], 7)
        with self.assertRaises(AssertionError):
            self.assert_readable(charts.SERIES_LOG)

    def test_unlabelled_marks_and_repeated_labels_are_not_series(self):
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        ax.plot([1, 2], [1, 2], label="a")
        ax.axhline(1.5)  # a reference line without a label
        for x in (1, 2):
            ax.axvspan(x, x + 0.1, label="refused")  # one series, drawn twice
        self.assertEqual(charts.panel_series(fig), [("?", 2)])
        plt.close(fig)


if __name__ == "__main__":
    unittest.main(verbosity=2)
