#!/usr/bin/python3
"""first_screen_test.py — the report's first screen (first_screen.py, picker.js) and the side by
side page (side_by_side.py), on the planted results (testdata/planted) and testdata.

What is pinned down: the matrix has one row per subject and no cell over 12 characters; its
colours follow the planted figures (best third green, worst red); the page embeds the answers
as inert JSON and the picker's script, and needs nothing outside itself; picker.js answers
every workload of a grid exactly as advise.advise() does (run under node, when node is
installed; skipped, and said, when not); side_by_side.py marks what differs and exits 2 with
one line on bad usage. The browser itself is reports/browser/run_browser_test.sh's.

    cd reports && /usr/bin/python3 first_screen_test.py
"""
from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import advise  # noqa: E402
import first_screen as fs  # noqa: E402
from facts import load_facts  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
PLANTED = os.path.join(TESTDATA, "planted")
NODE = shutil.which("node")


class _Cells(HTMLParser):
    """The text of every cell of the table with a given id, row by row."""

    def __init__(self, table_id: str):
        super().__init__()
        self.table_id, self.depth, self.rows, self.cell = table_id, 0, [], None
        self.row_attrs = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == self.table_id:
            self.depth = 1
        elif self.depth and tag == "tr":
            self.rows.append([])
            self.row_attrs.append(a)
        elif self.depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth = 0
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell).strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def table_rows(page: str, table_id: str) -> list[tuple[dict, list[str]]]:
    p = _Cells(table_id)
    p.feed(page)
    return list(zip(p.row_attrs, p.rows))


class MatrixTest(unittest.TestCase):
    def test_one_row_per_subject_and_short_cells(self):
        for d in (PLANTED, TESTDATA):
            facts = load_facts(d)
            cols, rows = fs.matrix(facts)
            self.assertEqual([r.subject for r in rows], list(facts.subjects), d)
            for r in rows:
                self.assertEqual(set(r.cells), {c.key for c in cols})
                for key, c in r.cells.items():
                    self.assertLessEqual(len(c.text), fs.MAX_CELL, f"{r.subject} {key}: {c.text}")
                    self.assertTrue(c.source, f"{r.subject} {key} has no source")
            # ... and so in the HTML: one <tr data-subject> per subject, each cell short.
            page = fs.first_screen_html(d)
            rows_html = [(a, cells) for a, cells in table_rows(page, "idbench-matrix")
                         if "data-subject" in a]
            self.assertEqual([a["data-subject"] for a, _ in rows_html], list(facts.subjects))
            for a, cells in rows_html:
                self.assertEqual(len(cells), len(cols) + 1)
                for text in cells[1:]:
                    self.assertLessEqual(len(text), fs.MAX_CELL, f"{a['data-subject']}: {text}")

    def test_planted_fills_and_their_colours(self):
        facts = load_facts(PLANTED)
        cols, rows = fs.matrix(facts)
        by = {r.subject: r.cells for r in rows}
        self.assertEqual([c.key for c in cols if c.key.startswith("fill:")],
                         ["fill:0", "fill:1000"])
        # The planted figures: the 8-writer Snowflake (cas) fills key-only leaves best and
        # 1,000 B leaves worse than UUIDv4.
        self.assertEqual(by["Snowflake"]["fill:0"].text, "95 %")
        self.assertEqual(by["Snowflake"]["fill:0"].cls, fs.GOOD)
        self.assertEqual(by["Snowflake"]["fill:0"].source, "locality.json matrix[1]")
        self.assertEqual(by["Snowflake"]["fill:1000"].text, "48 %")
        self.assertEqual(by["UUIDv4"]["fill:1000"].text, "66 %")
        self.assertEqual(by["UUIDv4"]["fill:0"].cls, fs.BAD)
        # A fill measured at another point is shown, marked, and not coloured.
        self.assertTrue(by["mariadb-ticket-pair-myisam"]["fill:1000"].text.startswith("≈"))
        self.assertEqual(by["mariadb-ticket-pair-myisam"]["fill:1000"].cls, "")
        # Promises: a kept one green, a broken one red; the best variant of a scheme, named.
        self.assertEqual((by["UUIDv4"]["bits"].text, by["UUIDv4"]["bits"].cls), ("128", fs.BAD))
        self.assertEqual((by["Snowflake"]["bits"].text, by["Snowflake"]["bits"].cls),
                         ("64", fs.GOOD))
        self.assertEqual(by["UUIDv4"]["step"].text, "no clock")
        self.assertEqual(by["mariadb-ticket-pair-myisam"]["step"].text, "1\u2009584 dups")
        self.assertEqual(by["mariadb-ticket-pair-myisam"]["step"].cls, fs.BAD)
        self.assertEqual(by["Snowflake"]["step"].text, "stalls 60 %")
        self.assertEqual(by["Snowflake"]["step"].variant, "cas")
        self.assertEqual(by["mariadb-auto-increment"]["coordinator"].text, "database")

    def test_colour_by_thirds(self):
        cells = [fs.Cell(str(v), v) for v in (9, 8, 7, 6, 5, 4)] + [fs.Cell("–")]
        fs.colour_by_thirds(cells)
        self.assertEqual([c.cls for c in cells],
                         [fs.GOOD, fs.GOOD, "", "", fs.BAD, fs.BAD, ""])
        same = [fs.Cell("1", 1.0), fs.Cell("1", 1.0), fs.Cell("1", 1.0)]
        fs.colour_by_thirds(same)
        self.assertEqual([c.cls for c in same], ["", "", ""])  # all equal: nothing to tell
        two = [fs.Cell("1", 1.0), fs.Cell("2", 2.0)]
        fs.colour_by_thirds(two)
        self.assertEqual([c.cls for c in two], [fs.BAD, fs.GOOD])


class PageTest(unittest.TestCase):
    def test_the_fragment_embeds_the_answers_and_the_picker(self):
        page = fs.first_screen_html(PLANTED)
        for needle in ('id="idbench-picker-form"', 'id="idbench-ranking"',
                       'id="idbench-matrix"', '<script id="idbench-picker">',
                       '<script type="application/json" id="idbench-answers">',
                       'id="fs-evidence"'):
            self.assertEqual(page.count(needle), 1, needle)
        m = re.search(r'<script type="application/json" id="idbench-answers">(.*?)</script>',
                      page, re.S)
        answers = json.loads(m.group(1))
        self.assertEqual(answers["schema"], "idbench-answers/1")
        self.assertEqual(answers, json.loads(json.dumps(advise.answers(load_facts(PLANTED)))))
        # Nothing fetched: no src, no link, no http(s) reference in what the fragment adds.
        self.assertIsNone(re.search(r"<link |<img |<iframe|@import|\bsrc=|(href)=\"(https?:|//)",
                                    page))
        # The profiles preset the form: the first one is selected, its promise checked.
        self.assertIn('<option value="0" selected>', page)
        self.assertRegex(page, r'value="64-bit" checked')
        # Every matrix subject links to its evidence further down.
        for s in load_facts(PLANTED).subjects:
            self.assertIn(f'href="#{fs._slug(s)}"', page)
            self.assertIn(f'id="{fs._slug(s)}"', page)

    def test_a_script_in_the_data_cannot_close_the_element(self):
        text = fs.json_script({"x": "</script><script>alert(1)</script>"}, "t")
        self.assertEqual(text.count("</script>"), 1)
        self.assertEqual(json.loads(text[text.index(">") + 1:-len("</script>")]),
                         {"x": "</script><script>alert(1)</script>"})

    def test_an_empty_directory_still_gives_a_first_screen(self):
        d = tempfile.mkdtemp(prefix="idbench-fs-test-")
        try:
            page = fs.first_screen_html(d)
            self.assertIn('id="idbench-picker-form"', page)
            self.assertIn("missing", page)
        finally:
            shutil.rmtree(d)


# Node: the page's advise() for every workload of a grid, read from the embedded answers.
NODE_RUNNER = r"""
const {advise} = require(process.argv[1]);
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = input.workloads.map((w) => {
  const a = advise(input.answers, w);
  return {used: a.used, ranked: a.ranked.map((r) => r.candidate.label),
          ruled_out: a.ruledOut.map((r) => [r.label, r.reason, r.source])};
});
process.stdout.write(JSON.stringify(out));
"""


@unittest.skipIf(NODE is None, "node is not installed: picker.js not run (apt-get install nodejs)")
class PickerParityTest(unittest.TestCase):
    """picker.js's advise() against advise.advise(), workload by workload."""

    GRID = dict(rows=(0, 50, 90, 250, 500, 1000, 5000), writers=(1, 3, 6, 8, 40),
                rates=(0, 1125, 5000, 2e6),
                musts=([], ["64-bit"], ["unguessable"], ["clock-step-back"],
                       ["k-sorted", "no-coordinator"], list(advise.PROMISES)))

    def setUp(self):
        # advise() recomputes every candidate and the whole ranking per workload; the grid asks
        # the same few points hundreds of times, so those two (pure) steps are memoised here.
        # advise()'s own walk, the part picker.js repeats, runs unchanged for every workload.
        def memo(fn, key):
            cache = {}

            def wrapped(*args):
                k = key(*args)
                if k not in cache:
                    cache[k] = fn(*args)
                return cache[k]
            return wrapped

        for name, fn, key in (
                ("candidates", advise.candidates, lambda f, ws: (id(f), tuple(ws))),
                ("ranking", advise.ranking, lambda f, cs, e, r, w: (id(f), id(cs), e, r, w))):
            patcher = mock.patch.object(advise, name, memo(fn, key))
            patcher.start()
            self.addCleanup(patcher.stop)

    def check(self, directory):
        facts = load_facts(directory)
        answers = advise.answers(facts)
        # Ties on purpose: rows halfway between two measured sizes (50, 500), and rates equal
        # to measured capacities (a rate is refused only below it).
        capacities = sorted({cap["value"] for c in answers["candidates"].values()
                             for cap in c["capacity"].values() if cap["value"]})
        grid = dict(self.GRID, rates=self.GRID["rates"] + tuple(capacities[:4]))
        workloads = [dict(engine=e, row_bytes=r, writers=w, rate=float(rate), musts=m)
                     for e, r, w, rate, m in itertools.product(advise.ENGINES, *grid.values())
                     if e != "none" or r == 0]
        p = subprocess.run([NODE, "-e", NODE_RUNNER, os.path.join(HERE, "picker.js")],
                           input=json.dumps({"answers": answers, "workloads": workloads}),
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        page = json.loads(p.stdout)
        self.assertEqual(len(page), len(workloads))
        for w, got in zip(workloads, page):
            a = advise.advise(facts, advise.Workload(**w))
            want = {"used": a.used, "ranked": [c.label for c, _ in a.ranked],
                    "ruled_out": [list(x) for x in a.ruled_out]}
            self.assertEqual(got, want, f"{directory}: {w}")
        return len(workloads)

    def test_planted(self):
        self.assertGreater(self.check(PLANTED), 1000)

    def test_testdata(self):
        self.check(TESTDATA)


class SideBySideTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="idbench-side-by-side-test-")

    def tearDown(self):
        shutil.rmtree(self.out, ignore_errors=True)

    def run_cli(self, *args, cwd=None):
        return subprocess.run([sys.executable, os.path.join(HERE, "side_by_side.py"), *args],
                              capture_output=True, text=True, timeout=120, cwd=cwd)

    def test_differences_are_marked_with_both_values(self):
        p = self.run_cli(TESTDATA, PLANTED, "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "compare.html"), encoding="utf-8") as f:
            page = f.read()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        for needle in ('id="ranking-a"', 'id="ranking-b"', 'data-compare-with="ranking-b"',
                       'id="idbench-answers-a"', 'id="idbench-answers-b"',
                       '<script id="idbench-picker">'):
            self.assertEqual(page.count(needle), 1, needle)
        rows = {a["data-subject"]: cells for a, cells in table_rows(page, "idbench-matrix")
                if "data-subject" in a}
        # testdata's Snowflake fills 65 % of 100 B leaves; the planted run has no 100 B rows
        # and fills 48 % of 1,000 B ones: both columns, both values.
        self.assertIn("65 % → –", rows["Snowflake"])
        self.assertIn("– → 48 %", rows["Snowflake"])
        self.assertIn("95 %", rows["Snowflake"])  # the same in both: one value
        self.assertRegex(page, r"\d+ cells differ")
        self.assertEqual(set(rows), set(load_facts(TESTDATA).subjects)
                         | set(load_facts(PLANTED).subjects))

    def test_the_same_run_twice_differs_nowhere(self):
        p = self.run_cli(PLANTED, PLANTED, "--out", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "compare.html"), encoding="utf-8") as f:
            page = f.read()
        self.assertIn("0 cells differ", page)
        self.assertNotIn(' fs-diff"', page)

    def test_default_output_is_the_current_directory(self):
        p = self.run_cli(PLANTED, PLANTED, cwd=self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(self.out, "compare.html")))

    def test_bad_usage_exits_2_with_one_line(self):
        blocker = os.path.join(self.out, "file")
        open(blocker, "w").close()
        for args in ([], [PLANTED], [PLANTED, PLANTED, PLANTED], [PLANTED, "/nonexistent"],
                     [PLANTED, PLANTED, "--bogus"], [PLANTED, PLANTED, "--out", blocker]):
            p = self.run_cli(*args)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))
            self.assertTrue(p.stderr.startswith("side_by_side: "), p.stderr)
            self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    unittest.main()
