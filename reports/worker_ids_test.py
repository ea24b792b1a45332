#!/usr/bin/python3
"""worker_ids_test.py — the worker-id section: duplicates shown as the finding in the table,
one timeline per run, and a missing or malformed input is a sentence (exit 2), never a crash.

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
