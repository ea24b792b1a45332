#!/usr/bin/python3
"""worker_ids_test.py — the worker-id section: the verdict word and the duplicates shown as the
finding in the table (the duplicates alone in results without a verdict), one timeline per run, and a missing or malformed input is a sentence (exit 2), never a crash.

    /usr/bin/python3 reports/worker_ids_test.py
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: apt-get install python3-matplotlib")
    sys.exit(77)

import worker_ids

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "testdata", "worker_ids.json")


class WorkerIds(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_table_marks_duplicates_and_costs(self):
        text = worker_ids.render(worker_ids.load(DATA), self.tmp)
        row = next(line for line in text.splitlines() if line.startswith("| pause-beyond-lease"))
        cells = row.split(" | ")
        self.assertIn("DUPLICATES", cells[1])      # unfenced: caught
        self.assertIn("0 duplicates", cells[2])    # deadline
        self.assertIn("fence stall", cells[2])
        self.assertIn("0 duplicates", cells[3])    # in-id
        for b in worker_ids.BEHAVIOURS:
            self.assertTrue(os.path.exists(
                os.path.join(self.tmp, f"timeline-pause-beyond-lease-{b}.png")))

    def test_planted_duplicate_in_a_fenced_run_shows(self):
        runs = worker_ids.load(DATA)
        runs[1]["duplicates"] = 3
        self.assertIn("**3 DUPLICATES**", worker_ids.table(runs))

    def test_the_verdict_word_leads_the_cell(self):
        runs = worker_ids.load(DATA)
        runs[0]["verdict"] = {"verdict": "DUPLICATES", "passed": False, "evidence": "e",
                              "findings": []}
        runs[1]["verdict"] = {"verdict": "kept", "passed": True, "evidence": "e", "findings": []}
        runs[2]["verdict"] = {"verdict": "no evidence", "passed": False, "evidence": "e",
                              "findings": []}
        cells = next(line for line in worker_ids.table(runs).splitlines()
                     if line.startswith("| pause-beyond-lease")).split(" | ")
        self.assertIn("**DUPLICATES: 26,780 duplicates**", cells[1])
        self.assertIn("kept: 0 duplicates", cells[2])
        self.assertNotIn("**", cells[2])
        self.assertIn("**no evidence: 0 duplicates**", cells[3])  # fails with no duplicate

    def test_results_without_a_verdict_show_the_duplicates_alone(self):
        runs = worker_ids.load(DATA)
        self.assertFalse(any("verdict" in r for r in runs))  # the checked-in older results
        self.assertIsNone(worker_ids.verdict_word(runs[0]))
        self.assertIn("**26,780 DUPLICATES**", worker_ids.cell(runs[0]))

    def test_bad_input_is_a_sentence(self):
        missing = os.path.join(self.tmp, "none.json")
        self.assertEqual(worker_ids.main(["x", missing, self.tmp]), 2)
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            json.dump({"runs": [{"scenario": "x"}]}, f)
        with self.assertRaises(worker_ids.InputError):
            worker_ids.load(bad)


if __name__ == "__main__":
    unittest.main()
