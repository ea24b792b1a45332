#!/usr/bin/python3
"""page_test.py — the page below the first screen: what a person sees before unfolding anything.

Pinned down:
  * a results directory with any one input removed (bench.json, locality.json, chaos.json,
    real_chaos.json, derived_ids.json, worker_ids.json) renders, exit 0, and the report names
    the missing input in exactly one sentence (HTML and Markdown), and no other input as
    missing;
  * the top of the page is the title, one meta line and the first screen's slot; every section
    then opens with a heading and one sentence computed from the data, its tables, charts and
    notes folded in <details> (Markdown: unfolded); the run's provenance comes last;
  * every chart's title is its takeaway, computed from the data;
  * every cell of the decision table is at most 12 words, the explanations numbered notes
    under it;
  * first_screen_html(results_dir) is called when first_screen.py is there, its HTML placed
    right after the meta line; a first screen that raises is a sentence, not a lost report.

    /usr/bin/python3 reports/page_test.py
    /usr/bin/python3 reports/page_test.py EachInputMissingTest
"""
from __future__ import annotations

import html
import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from testsupport import require

require("matplotlib")

import content  # noqa: E402
import decision  # noqa: E402
import inputs  # noqa: E402
import render  # noqa: E402
from document import cell_text  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")
RENDER = os.path.join(HERE, "render.sh")
INPUTS = inputs.INPUT_FILES  # all six


class Text(html.parser.HTMLParser):
    """The text a reader sees in an HTML fragment (no style, no script, no SVG)."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script", "svg", "title"):
            self.skip += 1
        elif tag in ("p", "li", "td", "th", "h1", "h2", "h3", "summary", "figcaption", "div"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("style", "script", "svg", "title"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def visible_text(page: str) -> str:
    t = Text()
    t.feed(page)
    return "".join(t.parts)


def below_first_screen(page: str) -> str:
    a, b = page.find(render.FIRST_SCREEN_START), page.find(render.FIRST_SCREEN_END)
    return page[:a] + page[b:] if a >= 0 and b > a else page


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+|\s\|\s", text) if s.strip()]


def missing_sentences(text: str, name: str) -> list[str]:
    """The sentences that say the input `name` is missing (chaos.json: not real_chaos.json)."""
    named = re.compile(r"(?<![\w.])" + re.escape(name))
    return [s for s in sentences(text) if named.search(s) and "missing" in s]


def results_dir(without: str | None = None) -> str:
    d = tempfile.mkdtemp(prefix="idbench-page-test-")
    for name in INPUTS:
        if name != without:
            shutil.copy(os.path.join(TESTDATA, name), d)
    return d


class EachInputMissingTest(unittest.TestCase):
    def test_each_input_removed_in_turn_is_named_once(self):
        dirs = {name: results_dir(without=name) for name in INPUTS}
        try:
            # Six renders at once: each takes seconds, mostly matplotlib.
            procs = {name: subprocess.Popen([RENDER, d], stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, text=True)
                     for name, d in dirs.items()}
            for name, p in procs.items():
                _, err = p.communicate(timeout=170)
                with self.subTest(missing=name):
                    self.assertEqual(p.returncode, 0, err)
                    d = dirs[name]
                    with open(os.path.join(d, "report.md"), encoding="utf-8") as f:
                        md = f.read()
                    with open(os.path.join(d, "report.html"), encoding="utf-8") as f:
                        page = visible_text(below_first_screen(f.read()))
                    with open(os.path.join(d, "summary.json"), encoding="utf-8") as f:
                        summary = json.load(f)
                    for text, what in ((md, "report.md"), (page, "report.html")):
                        said = missing_sentences(text, name)
                        self.assertEqual(len(said), 1, f"{what}: {said}")
                        self.assertIn(f"{name} is missing (written by", said[0])
                        for other in INPUTS:
                            if other != name:
                                self.assertEqual(missing_sentences(text, other), [],
                                                 f"{what} calls {other} missing")
                    self.assertEqual(list(summary["unread"]), [name])
                    not_drawn = {k: v for k, v in summary["charts"].items() if v != "drawn"}
                    # Only the charts of the missing input are not drawn, and they are not
                    # listed at all: a section without its input has no details.
                    self.assertEqual(not_drawn, {})
        finally:
            for d in dirs.values():
                shutil.rmtree(d, ignore_errors=True)


class SectionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = results_dir()
        p = subprocess.run([RENDER, cls.dir], capture_output=True, text=True, timeout=170)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(cls.dir, "report.html"), encoding="utf-8") as f:
            cls.page = f.read()
        with open(os.path.join(cls.dir, "report.md"), encoding="utf-8") as f:
            cls.md = f.read()
        with open(os.path.join(cls.dir, "summary.json"), encoding="utf-8") as f:
            cls.summary = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def parts(self) -> list[str]:
        return re.findall(r'<section class="part" id="[^"]+">.*?</section>',
                          below_first_screen(self.page), re.S)

    def test_the_top_is_the_title_a_meta_line_and_the_first_screen(self):
        body = self.page.split("<body>", 1)[1]
        self.assertIsNotNone(re.match(
            r'\s*<h1>idbench report</h1>\s*<p class="meta">[^<]*</p>\s*'
            r'(<!-- first screen -->.*?<!-- /first screen -->\s*)?'
            r'<section class="part" id="decision">', body, re.S), body[:300])
        meta = re.search(r'<p class="meta">(.*?)</p>', body, re.S).group(1)
        self.assertNotIn("\n", meta)
        self.assertIn("6 of 6 inputs read", meta)

    def test_every_section_opens_with_a_sentence_and_folds_its_details(self):
        parts = self.parts()
        self.assertEqual(len(parts), 9)
        for part in parts:
            m = re.match(r'<section class="part" id="([^"]+)">\s*<h2>[^<]+</h2>\s*'
                         r'<p class="takeaway">([^<]+)</p>\s*(<details>.*</details>)?\s*'
                         r'</section>$', part, re.S)
            self.assertIsNotNone(m, part[:600])
            self.assertTrue(m.group(2).rstrip().endswith("."), m.group(2))
            self.assertRegex(m.group(2), r"\d", "a takeaway computed from the data")
            # Nothing but the heading and the sentence outside the fold.
            outside = part.split("<details>", 1)[0]
            for tag in ("<table", "<figure", "<svg", "<ul"):
                self.assertNotIn(tag, outside, m.group(1))

    def test_the_takeaways_say_what_the_data_says(self):
        takeaways = {k: html.unescape(v) for k, v in re.findall(
            r'<section class="part" id="([^"]+)">\s*<h2>[^<]+</h2>\s*'
            r'<p class="takeaway">([^<]+)</p>', self.page)}
        self.assertRegex(takeaways["bench"], r"^Throughput: \S+ issues the most IDs at 2 "
                                             r"threads, [\d.]+ [kMG]? ?IDs/s")
        self.assertIn("every variant is within its layout's cap", takeaways["bench"])
        broken = self.summary["chaos"]["broken"]
        self.assertTrue(takeaways["chaos"].startswith(
            "Chaos: none of 14 cells broke a promise" if broken == 0 else
            f"Chaos: {broken} of 14 cells broke a promise"), takeaways["chaos"])
        self.assertIn("2 of 2 runs failed", takeaways["real-faults"])
        self.assertIn("from N = 2 for pid", takeaways["derived-ids"])

    def test_the_run_s_provenance_is_last_and_folded(self):
        ids = re.findall(r'<section class="part" id="([^"]+)">', self.page)
        self.assertEqual(ids[-1], "run")
        run = self.parts()[-1]
        self.assertIn("<details>", run)
        self.assertLess(run.index("<details>"), run.index("<table"))

    def test_every_chart_title_is_its_takeaway(self):
        titles = re.findall(r'<figure id="fig-([^"]+)"><h3>([^<]+)</h3>', self.page)
        self.assertEqual(len(titles), len(self.summary["charts"]))
        for fid, title in titles:
            self.assertRegex(title, r"\d", f"{fid}: {title}")
        by_id = dict(titles)
        self.assertRegex(by_id["throughput"], r"issues the most IDs at 2 threads")
        self.assertRegex(by_id["latency"], r"p99\.9 from [\d.]+ \S+ \(\S+\) to")

    def test_markdown_keeps_the_details_unfolded(self):
        self.assertNotIn("<details", self.md)
        chaos = self.md.split("## Clock faults", 1)[1].split("\n## ", 1)[0]
        lines = [line for line in chaos.splitlines() if line.strip()]
        self.assertTrue(lines[1].startswith("Chaos: "), lines[:3])  # the takeaway first
        self.assertIn("| scenario | variant | policy |", chaos)  # then the details


class DecisionCellsTest(unittest.TestCase):
    """Every cell one value or a short phrase; the explanations are numbered notes."""

    def tables(self):
        import dce_test
        import real_systems_locality_test as rl
        yield "testdata", decision.decision_table(inputs.load_results(TESTDATA))[0]
        yield "DCE and its real peer", decision.decision_table(dce_test.results())[0]
        yield "broken peer", decision.decision_table(
            dce_test.results(chaos=dce_test.planted_chaos(peer_broken=True)))[0]
        yield "real systems", decision.decision_table(
            rl.results(rl.bench_with_locality()))[0]
        import real_faults_test as rf
        yield "real-only schemes under faults", rf.decision_table(rf.planted(
            ("postgres-kill9", [rf.part("postgres-sequence", "kept", True, "synchronous_commit=on"),
                                rf.part("postgres-sequence", "DUPLICATES", False,
                                        "synchronous_commit=off")]),
            ("redis-kill9", [rf.part("redis-incr", "DUPLICATES", False, "rdb")])))

    def test_every_cell_is_at_most_twelve_words(self):
        for what, t in self.tables():
            for row in t.rows:
                for h, cell in zip(t.header, row):
                    words = cell_text(cell).split()
                    self.assertLessEqual(len(words), decision.MAX_WORDS,
                                         f"{what}, {row[0]} · {h}: {cell_text(cell)}")

    def test_every_note_is_referred_to_and_every_reference_has_its_note(self):
        for what, t in self.tables():
            refs = {int(n) for row in t.rows for c in row
                    for n in re.findall(r"\[(\d+)\]", cell_text(c))}
            self.assertEqual(refs, set(range(1, len(t.notes) + 1)), what)

    def test_the_notes_are_folded_under_the_table_in_html_and_listed_in_markdown(self):
        t = decision.decision_table(inputs.load_results(TESTDATA))[0]
        page = render.table_html(t)
        self.assertIsNotNone(re.search(r'</table>.*<details class="notes"><summary>Notes 1–'
                                       rf'{len(t.notes)}.*<ol class="notes">', page, re.S))
        self.assertIn("<sup>[1]</sup>", page)
        md = render.table_md(t)
        self.assertIn(f"\n{len(t.notes)}. ", md)


class FirstScreenHookTest(unittest.TestCase):
    def setUp(self):
        self.saved = render.first_screen_html
        self.report = content.build_report(inputs.load_results(TESTDATA))

    def tearDown(self):
        render.first_screen_html = self.saved

    def test_the_first_screen_goes_right_after_the_meta_line(self):
        seen = []

        def fake(results_dir):
            seen.append(results_dir)
            return '<div id="planted-first-screen">the answer</div>'
        render.first_screen_html = fake
        page = render.to_html(self.report)
        self.assertEqual(seen, [TESTDATA])
        self.assertEqual(self.report.results_dir, TESTDATA)
        self.assertRegex(page, r'<p class="meta">.*?</p>\s*<!-- first screen -->\s*'
                               r'<div id="planted-first-screen">the answer</div>\s*'
                               r'<!-- /first screen -->\s*<section class="part" id="decision">')

    def test_without_first_screen_py_nothing_is_inserted(self):
        render.first_screen_html = None
        page = render.to_html(self.report)
        self.assertNotIn("first screen", page)
        self.assertRegex(page, r'<p class="meta">.*?</p>\s*<section class="part"')

    def test_a_first_screen_that_raises_is_a_sentence(self):
        def broken(_):
            raise KeyError("facts")
        render.first_screen_html = broken
        page = render.to_html(self.report)
        self.assertIn("First screen not drawn: KeyError", page)
        self.assertIn('<section class="part" id="run">', page)


if __name__ == "__main__":
    unittest.main(verbosity=2)
