#!/usr/bin/python3
"""locality_rows_test.py — row size in the report: the lines of leaf fill against row
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


# 8-writer Snowflake as a real run measured it: densest key-only, worse than UUIDv4 with a row.
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


def engine(leaf: int, k_created: int, k_owner: int) -> dict:
    return {"leaf_pages": leaf, "avg_leaf_fill": 0.9,
            "secondary": {"indexes": [{"index": "k_created", "leaf_pages": k_created},
                                      {"index": "k_owner", "leaf_pages": k_owner}],
                          "table_leaf_pages": leaf + k_created + k_owner}}


def secondary_row(key: str, model: dict, innodb: dict) -> dict:
    return {"stream": f"twitter 1 writer x 50/ms, {key} PK + 2 secondary", "key_type": key,
            "payload_bytes": 100, "secondary_indexes": True, "model": model, "innodb": innodb,
            "pass": True, "error": 0.0, "tolerance": 0.05}


class WideKey(unittest.TestCase):
    def loc(self, innodb_wide_owner: int = 877) -> inputs.Locality:
        d = doc()
        d["validation"] = {"validation": [
            secondary_row("bigint", engine(2831, 398, 517), engine(2831, 398, 517)),
            secondary_row("binary16", engine(2971, 546, 877),
                          engine(2971, 546, innodb_wide_owner))], "pass": True}
        return inputs.load_locality(d)

    def test_every_index_and_the_whole_table_model_beside_innodb(self):
        table, notes = content.secondary_table(self.loc())
        self.assertEqual(table.rows[1][3:], ["2\u2009971 / 2\u2009971", "546 / 546", "877 / 877",
                                             "4\u2009394 / 4\u2009394"])
        [note] = notes
        for text in ("BINARY(16)", "clustered index +4.9 %", "k_created +37.2 %",
                     "k_owner +69.6 %", "whole table +17.3 % (InnoDB +17.3 %)"):
            self.assertIn(text, note)

    def test_innodb_figures_are_its_own_not_the_models(self):
        _, [note] = content.secondary_table(self.loc(innodb_wide_owner=700))
        self.assertIn("k_owner +69.6 % (InnoDB +35.4 %)", note)

    def test_no_secondary_rows_no_table(self):
        self.assertEqual(content.secondary_table(inputs.load_locality(doc())), (None, []))


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
