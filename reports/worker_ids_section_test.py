#!/usr/bin/python3
"""worker_ids_section_test.py — the worker ids leased from etcd in the main report:
the section is there when worker_ids.json is, with worker_ids.py's table (duplicates marked)
and one timeline per run; a missing or field-less file is a sentence, never a crash.

    /usr/bin/python3 reports/worker_ids_section_test.py
"""
from __future__ import annotations

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
import worker_ids  # noqa: E402
from document import BAD, GOOD  # noqa: E402

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


class WorkerIdsSectionTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="idbench-worker-ids-section-")
        with open(os.path.join(TESTDATA, "worker_ids.json"), encoding="utf-8") as f:
            self.doc = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def report(self, doc=None):
        if doc is not None:
            with open(os.path.join(self.dir, "worker_ids.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f)
        report = content.build_report(inputs.load_results(self.dir), charts)
        return report, next(s for s in report.sections if s.id == "worker-ids")

    def test_the_section_shows_the_table_and_a_timeline_per_run(self):
        report, s = self.report(self.doc)
        table = next(t for kind, t in s.blocks if kind == "table")
        self.assertEqual(table.header, ["fault"] + worker_ids.BEHAVIOURS)
        row = next(r for r in table.rows if r[0] == "pause-beyond-lease")
        self.assertEqual(row[1][1], BAD)  # unfenced: duplicates
        self.assertIn("DUPLICATES", row[1][0])
        self.assertEqual(row[2][1], GOOD)
        self.assertIn("fence stall", row[2][0])
        drawn = report.summary["charts"]
        for b in worker_ids.BEHAVIOURS:
            self.assertEqual(drawn[f"worker-ids-pause-beyond-lease-{b}"], "drawn")
        self.assertTrue(report.summary["worker_ids"]["present"])

    def test_a_planted_duplicate_in_a_fenced_run_is_marked(self):
        self.doc["runs"][1]["duplicates"] = 3
        _, s = self.report(self.doc)
        table = next(t for kind, t in s.blocks if kind == "table")
        self.assertEqual(table.rows[0][2], (table.rows[0][2][0], BAD))
        self.assertTrue(table.rows[0][2][0].startswith("3 DUPLICATES"))

    def test_the_verdict_word_shows_and_a_failed_verdict_is_bad(self):
        for run, (word, passed) in zip(self.doc["runs"], [("DUPLICATES", False), ("kept", True),
                                                          ("no evidence", False)]):
            run["verdict"] = {"verdict": word, "passed": passed, "evidence": "", "findings": []}
        report, s = self.report(self.doc)
        row = next(t for kind, t in s.blocks if kind == "table").rows[0]
        self.assertTrue(row[1][0].startswith("DUPLICATES: 26,780 duplicates"))
        self.assertEqual(row[1][1], BAD)
        self.assertTrue(row[2][0].startswith("kept: 0 duplicates"))
        self.assertEqual(row[2][1], GOOD)
        self.assertEqual(row[3][1], BAD)  # no evidence fails without a duplicate
        self.assertEqual([r["verdict"] for r in report.summary["worker_ids"]["runs"]],
                         ["DUPLICATES", "kept", "no evidence"])

    def test_the_markdown_cell_is_worker_ids_py_s(self):
        runs = worker_ids.load(os.path.join(TESTDATA, "worker_ids.json"))
        _, s = self.report(self.doc)
        table = next(t for kind, t in s.blocks if kind == "table")
        self.assertEqual(table.rows[0][1][0], worker_ids.cell(runs[0]).replace("**", ""))

    def test_a_missing_file_is_one_sentence(self):
        report, s = self.report()
        # The section's opening sentence, nothing folded under it.
        self.assertEqual(s.blocks, [])
        self.assertIn("worker_ids.json is missing (written by ./run.sh worker-ids", s.takeaway)
        self.assertFalse(report.summary["worker_ids"]["present"])

    def test_a_field_less_run_is_a_sentence(self):
        del self.doc["runs"][0]["nodes"][0]["unavailable_ms"]
        _, s = self.report(self.doc)
        self.assertEqual(s.blocks, [])
        self.assertIn("lacks a field", s.takeaway)
        _, s = self.report({"runs": []})
        self.assertIn("has no runs", s.takeaway)


if __name__ == "__main__":
    unittest.main(verbosity=2)
