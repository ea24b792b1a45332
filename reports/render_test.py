#!/usr/bin/python3
"""render_test.py — reports/render.sh on whole, partial, broken and empty results directories.

What is pinned down: a full directory gives every chart; a partial run renders what it has and
names what is missing; a half-written or field-less input is a sentence, never a crash; the
HTML needs nothing outside itself; no temp file is left behind. No browser needed.

    /usr/bin/python3 reports/render_test.py
    /usr/bin/python3 reports/render_test.py RenderTest.test_partial_run_renders_what_it_has
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from testsupport import require

require("matplotlib")

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
RENDER = os.path.join(HERE, "render.sh")
INPUTS = ("bench.json", "locality.json", "chaos.json")


def load(name):
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return json.load(f)


def below_first_screen(page: str) -> str:
    """The page without the first screen (first_screen.py's, between render.py's markers)."""
    import render
    a, b = page.find(render.FIRST_SCREEN_START), page.find(render.FIRST_SCREEN_END)
    return page[:a] + page[b:] if a >= 0 and b > a else page


class RenderTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="idbench-render-test-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def copy(self, *names):
        for n in names:
            shutil.copy(os.path.join(TESTDATA, n), self.dir)

    def render(self, *extra):
        p = subprocess.run([RENDER, self.dir, *extra], capture_output=True, text=True,
                           timeout=180)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stderr

    def read(self, name):
        with open(os.path.join(self.dir, name), encoding="utf-8") as f:
            return f.read()

    def summary(self):
        return json.loads(self.read("summary.json"))

    def assert_self_contained(self, page):
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertTrue(page.rstrip().endswith("</html>"))
        # Nothing fetched: no external scripts, stylesheets, images or fonts. (The SVGs' own
        # url(#clip) references stay inside the page.)
        for pattern in (r"<script[^>]* src=|<link |<img |<iframe|@import|url\((?!#)",
                        r"(src|href)=\"(https?:|//|file:)"):
            m = re.search(pattern, page)
            self.assertIsNone(m, m and page[max(0, m.start() - 200):m.end() + 200])
        # No script at all in what render.py writes (the first screen, first_screen.py's, is
        # between its markers).
        m = re.search(r"<script", below_first_screen(page))
        self.assertIsNone(m)

    def assert_no_temp_files(self):
        left = [f for f in os.listdir(self.dir) if f.endswith(".tmp") or ".tmp" in f]
        self.assertEqual(left, [])

    def test_full_run_draws_every_chart(self):
        self.copy(*INPUTS)
        self.render()
        s = self.summary()
        self.assertEqual(s["missing"], [])
        charts = s["charts"]
        for name in ("throughput", "latency", "locality-model", "locality-engines",
                     "timeline-ntp-step-back-cas", "timeline-leap-second-uuidv7"):
            self.assertEqual(charts.get(name), "drawn", charts)
        page = self.read("report.html")
        self.assert_self_contained(page)
        self.assertEqual(below_first_screen(page).count("<svg"), len(charts))
        md = self.read("report.md")
        # The decision table, with this run's numbers, in both files.
        self.assertIn("| scheme (variant) | sortable |", md)
        self.assertRegex(md, r"\| Snowflake \((mutex|cas|thread-local)\) \| yes \(k-sorted\)")
        self.assertIn("UUIDv7", page)
        # Machine, commit and date of the run.
        self.assertIn("Intel(R) Xeon(R) Processor", md)
        self.assertIn("7af609932464", md)
        self.assert_no_temp_files()

    def test_partial_run_renders_what_it_has(self):
        self.copy("chaos.json")
        err = self.render()
        s = self.summary()
        self.assertEqual(s["inputs"], {"bench": False, "locality": False, "chaos": True})
        md = self.read("report.md")
        # Once each, where the section that reads the input would be.
        self.assertEqual(md.count("bench.json is missing (written by ./run.sh bench"), 1)
        self.assertEqual(md.count("locality.json is missing"), 1)
        self.assertEqual(s["charts"]["timeline-ntp-step-back-cas"], "drawn")
        self.assertIn("bench.json is missing", err)
        self.assert_self_contained(self.read("report.html"))

    def test_half_written_input_is_named_not_fatal(self):
        self.copy("locality.json", "chaos.json")
        with open(os.path.join(TESTDATA, "bench.json")) as f:
            text = f.read()
        with open(os.path.join(self.dir, "bench.json"), "w") as f:
            f.write(text[: len(text) // 2])
        self.render()
        self.assertRegex(self.read("report.md"), r"bench\.json is not valid JSON .*half-written")
        self.assertEqual(self.summary()["charts"]["locality-model"], "drawn")

    def test_missing_fields_are_dashes(self):
        bench = load("bench.json")
        del bench["context"]
        for b in bench["benchmarks"]:
            for k in ("ids_per_s", "p99_ns", "cap_ratio"):
                b.pop(k, None)
        chaos = load("chaos.json")
        for c in chaos["cells"]:
            for k in ("availability", "timeline", "duplicates_expected", "config"):
                c.pop(k, None)
        chaos["complete"] = False
        loc = load("locality.json")
        loc["validation"] = None
        for m in loc["matrix"]:
            m.pop("pool_miss_rate", None)
        for name, doc in (("bench.json", bench), ("chaos.json", chaos), ("locality.json", loc)):
            with open(os.path.join(self.dir, name), "w") as f:
                json.dump(doc, f)
        self.render()
        md = self.read("report.md")
        self.assertIn("bench.json has no context block", md)
        self.assertIn("chaos.json is a partial matrix", md)
        self.assertIn("some chaos cells lack availability", md)
        self.assertIn("cross-check did not run", md)
        self.assertIn("some locality.json matrix entries lack pool_miss_rate", md)
        charts = self.summary()["charts"]
        self.assertIn("no ntp-step-back or leap-second cell with a timeline", charts["timeline"])
        self.assert_self_contained(self.read("report.html"))

    def test_empty_directory_says_everything_is_missing(self):
        self.render()
        s = self.summary()
        self.assertEqual(len(s["missing"]), 3)
        self.assertIn("chaos.json is missing (written by ./run.sh chaos", self.read("report.md"))

    def test_rerender_replaces_the_report_whole(self):
        self.copy(*INPUTS)
        self.render("--no-charts")
        first = self.read("report.md")
        os.remove(os.path.join(self.dir, "bench.json"))
        self.render("--no-charts")
        second = self.read("report.md")
        self.assertNotEqual(first, second)
        self.assertIn("bench.json is missing", second)
        self.assertEqual(oct(os.stat(os.path.join(self.dir, "report.html")).st_mode & 0o777),
                         "0o644")
        self.assert_no_temp_files()

    def test_markdown_tables_are_well_formed(self):
        self.copy(*INPUTS)
        self.render("--no-charts")
        for block in re.split(r"\n\n", self.read("report.md")):
            lines = [l for l in block.splitlines() if l.startswith("|")]
            if not lines:
                continue
            cols = {len(re.split(r"(?<!\\)\|", l)) for l in lines}
            self.assertEqual(len(cols), 1, block[:400])


if __name__ == "__main__":
    unittest.main(verbosity=2)
