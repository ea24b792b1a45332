#!/usr/bin/python3
"""locality_rows_test.py — row size in the report (issue 12): the lines of leaf fill against row
size, their crossovers, the key-only vs realistic-row flips with both numbers, and the decision
table's locality columns naming the row size they describe.

    /usr/bin/python3 reports/locality_rows_test.py
"""
from __future__ import annotations

import copy
import json
import os
import unittest

import content
import decision
import inputs
import locality_rows as lr

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")


def entry(variant: str | None, writers: int, payload: int, fill: float) -> dict:
    stream = {"variant": variant, "writers": writers, "synthetic": "none" if variant else "random"}
    return {"stream": stream, "payload_bytes": payload, "avg_leaf_fill": fill, "rows": 1000,
            "splits_per_1k": 1.0, "pool_miss_rate": 0.1, "engine": "model", "key_type": "bigint"}


# 8-writer Snowflake as the issue measured it: densest key-only, worse than UUIDv4 with a row.
FILLS = {("mutex", 8): {0: 0.958, 100: 0.646, 250: 0.566},
         ("cas", 8): {0: 0.958, 100: 0.646, 250: 0.566},
         ("uuidv4", 8): {0: 0.618, 100: 0.670, 250: 0.660},
         ("mutex", 1): {0: 0.916, 100: 0.930, 250: 0.934}}


def doc(decision_payload: int | None = 250) -> dict:
    matrix = [entry(v, w, p, f) for (v, w), line in FILLS.items() for p, f in line.items()]
    d = {"context": {}, "complete": True, "matrix": matrix, "validation": None}
    if decision_payload is not None:
        d["decision_payload_bytes"] = decision_payload
    return d


class Lines(unittest.TestCase):
    def test_generators_with_the_same_fill_share_one_line(self):
        lines = lr.fill_lines(inputs.load_locality(doc()), 8)
        self.assertEqual(list(lines), ["mutex = cas", "uuidv4"])
        self.assertEqual(lines["uuidv4"], {0: 0.618, 100: 0.670, 250: 0.660})

    def test_a_swap_between_two_row_sizes_is_a_crossover_at_the_interpolated_size(self):
        lines = lr.fill_lines(inputs.load_locality(doc()), 8)
        [c] = lr.crossings(lines)
        self.assertEqual((c.above_first, c.below_first, c.lo, c.hi), ("mutex = cas", "uuidv4", 0, 100))
        self.assertAlmostEqual(c.x, 100 * 0.340 / (0.340 + 0.024))

    def test_a_swap_smaller_than_two_points_is_no_crossover(self):
        lines = {"a": {0: 0.600, 100: 0.600}, "b": {0: 0.595, 100: 0.605}}
        self.assertEqual(lr.crossings(lines), [])
        self.assertEqual(lr.flips(lines, 0, 100), [])


class Report(unittest.TestCase):
    def test_the_flip_sentence_gives_both_numbers_for_both_generators(self):
        [s] = content.row_size_flips(inputs.load_locality(doc()))
        for text in ("8 writers", "mutex = cas", "95.8 %", "56.6 %", "uuidv4", "61.8 %",
                     "66.0 %", "key + 250 B"):
            self.assertIn(text, s)

    def test_the_row_size_table_has_a_column_per_row_size(self):
        t = content.row_size_table(inputs.load_locality(doc()))
        self.assertEqual(t.header[2:], ["key-only rows", "rows of key + 100 B",
                                        "rows of key + 250 B"])
        self.assertIn(["mutex = cas", "8", "95.8 %", "64.6 %", "56.6 %"], t.rows)

    def test_a_matrix_of_one_row_size_has_no_row_size_table_and_no_flips(self):
        d = doc(None)
        d["matrix"] = [m for m in d["matrix"] if m["payload_bytes"] == 0]
        loc = inputs.load_locality(d)
        self.assertIsNone(content.row_size_table(loc))
        self.assertEqual(content.row_size_flips(loc), [])


def decision_results(loc_doc: dict) -> inputs.Results:
    with open(os.path.join(TESTDATA, "bench.json"), encoding="utf-8") as f:
        bench = json.load(f)
    with open(os.path.join(TESTDATA, "chaos.json"), encoding="utf-8") as f:
        chaos = json.load(f)
    return inputs.Results("testdata", inputs.load_bench(bench), inputs.load_locality(loc_doc),
                          inputs.load_chaos(chaos))


class DecisionTable(unittest.TestCase):
    def fill_column(self, loc_doc: dict) -> tuple[str, dict]:
        table, data, _ = decision.decision_table(decision_results(loc_doc))
        col = next(i for i, h in enumerate(table.header) if h.startswith("leaf fill"))
        return table.header[col], {d["scheme"]: d for d in data}

    def test_the_locality_columns_name_the_row_size_and_show_its_figures(self):
        header, data = self.fill_column(doc(250))
        self.assertEqual(header, "leaf fill 1 · 8 writers, rows of key + 250 B")
        shown = [d for d in data.values() if d.get("leaf_fill_by_writers")]
        self.assertTrue(shown)
        for d in shown:
            self.assertEqual(d["locality_payload_bytes"], 250)
        eights = {d["leaf_fill_by_writers"].get("8") for d in shown}
        self.assertEqual(eights, {0.566, 0.660})  # the 250-byte figures, never key-only's

    def test_the_users_row_size_fills_the_table(self):
        header, data = self.fill_column(doc(100))
        self.assertEqual(header, "leaf fill 1 · 8 writers, rows of key + 100 B")
        self.assertIn(0.646, [d["leaf_fill_by_writers"].get("8") for d in data.values()
                              if d.get("leaf_fill_by_writers")])

    def test_a_matrix_from_before_row_sizes_describes_key_only_rows(self):
        old = copy.deepcopy(doc(None))
        for m in old["matrix"]:
            del m["payload_bytes"]
        old["matrix"] = old["matrix"][::3]
        header, _ = self.fill_column(old)
        self.assertEqual(header, "leaf fill 1 · 8 writers, key-only rows")


if __name__ == "__main__":
    unittest.main()
