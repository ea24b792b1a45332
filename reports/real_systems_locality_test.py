#!/usr/bin/python3
"""real_systems_locality_test.py — the locality of the real systems' IDs in the report, on
planted data: the decision table's leaf-fill cell shows each real system's fill beside the
in-process figure, a failed pass is marked, a capped pass says how many IDs it had; the Real
systems section lists every pass; a run without passes, or with a malformed list, is a
sentence and never a crash.

    /usr/bin/python3 reports/real_systems_locality_test.py
"""
from __future__ import annotations

import copy
import unittest

import content
import decision
import units as u
from decision_test import results
from document import BAD
from real_systems_test import bench_with_real, raw_table as real_raw_table, table as real_table

FILL = "leaf fill"  # the decision table's leaf-fill column, whatever rows its header names
FILL_PREFIX = "leaf fill 1 · 8 writers"


def table(bench: dict):
    """rows (each cell with its notes after it), columns (the leaf-fill one also under FILL),
    data, as real_systems_test's."""
    rows, col, data = real_table(bench)
    col[FILL] = next(i for h, i in col.items() if h.startswith(FILL_PREFIX))
    return rows, col, data


def raw_table(bench: dict):
    """rows as the table prints them (short cells, "[n]"), columns, data, notes."""
    rows, col, data, notes = real_raw_table(bench)
    col[FILL] = next(i for h, i in col.items() if h.startswith(FILL_PREFIX))
    return rows, col, data, notes


def entry(system, scheme, lower, clients, fill, pages, rows=20000, planned=20000, error=None):
    return {"system": system, "scheme": scheme, "lower_bound_variant": lower,
            "durability": {"innodb_flush_log_at_trx_commit": 2, "binlog": False},
            "clients": clients, "request_size": 1, "planned_rows": planned, "rows": rows,
            "seconds": 3.0, "engine": "model (innodb (MariaDB 10.11 rules))",
            "key_type": "bigint", "leaf_pages": pages, "avg_leaf_fill": fill,
            "splits_per_1k": 1.5, "height": 2, "note": None, "error": error,
            "adapter_counters": None}


def bench_with_locality() -> dict:
    bench = bench_with_real()
    bench["real_systems"]["config"] = {"locality_rows": 20000, "locality_max_seconds": 60}
    bench["real_systems"]["locality"] = [
        entry("mariadb-auto-increment", "AUTO_INCREMENT", "auto-increment", 1, 0.889, 36),
        entry("mariadb-auto-increment", "AUTO_INCREMENT", "auto-increment", 8, 0.711, 45),
        entry("mariadb-ticket-pair-innodb", "Ticket server", "ticket-pair", 1, 0.492, 20,
              rows=5120),
        entry("mariadb-ticket-pair-innodb", "Ticket server", "ticket-pair", 8, None, None,
              rows=0, error="adapter: every server is down"),
    ]
    return bench


class DecisionRowTest(unittest.TestCase):
    def test_the_fill_cell_shows_the_real_ids_beside_the_in_process_figure(self):
        rows, col, data, notes = raw_table(bench_with_locality())
        cell = rows["AUTO_INCREMENT"][col[FILL]]
        self.assertIsInstance(cell, str)
        inproc, real = cell.split("; real ")
        self.assertTrue(inproc, "the in-process figure stays first")
        self.assertRegex(real, r"^89 % · 71 % \[\d+\]$")  # the real figures, then the note
        self.assertEqual(decision.cell_notes(cell, notes),
                         ["real IDs: mariadb-auto-increment 89 % · 71 % (1 · 8 clients)"])
        d = data["AUTO_INCREMENT"]["real_locality"]
        self.assertEqual([(x["clients"], x["avg_leaf_fill"]) for x in d], [(1, 0.889), (8, 0.711)])

    def test_a_failed_pass_is_marked_and_a_capped_one_says_how_many_ids(self):
        rows, col, _ = table(bench_with_locality())
        text, mark = rows["ticket server"][col[FILL]]
        self.assertEqual(mark, BAD)
        self.assertIn("mariadb-ticket-pair-innodb 49 % · failed (1 · 8 clients; 1 client: "
                      f"{u.count(5120)} of {u.count(20000)} IDs)", text)

    def test_without_passes_the_cell_is_the_in_process_one(self):
        rows_with, col, _, _ = raw_table(bench_with_locality())
        rows_without, _, data, _ = raw_table(bench_with_real())
        self.assertNotIn("real", str(rows_without["AUTO_INCREMENT"][col[FILL]]))
        self.assertEqual(rows_with["AUTO_INCREMENT"][col[FILL]].split("; real")[0],
                         rows_without["AUTO_INCREMENT"][col[FILL]])
        self.assertNotIn("real_locality", data["AUTO_INCREMENT"])

    def test_a_scheme_without_a_real_pass_is_untouched(self):
        rows, col, _ = table(bench_with_locality())
        self.assertNotIn("real IDs", str(rows["UUIDv4"][col[FILL]]))


class InputsTest(unittest.TestCase):
    def test_a_run_without_passes_says_so(self):
        probs = results(bench_with_real()).problems()
        self.assertTrue(any("has no 'locality' list" in p for p in probs), probs)

    def test_a_malformed_list_is_a_sentence_not_a_crash(self):
        for bad in ("text", 3, {"a": 1}):
            bench = bench_with_locality()
            bench["real_systems"]["locality"] = copy.deepcopy(bad)
            res = results(bench)
            self.assertTrue(any("'locality' is not a list" in p for p in res.problems()), bad)
            rows, col, _ = table(bench)
            self.assertNotIn("real IDs", str(rows["AUTO_INCREMENT"][col[FILL]]))
            content.build_report(res)  # renders

    def test_entries_that_are_not_objects_are_left_out_and_counted(self):
        bench = bench_with_locality()
        bench["real_systems"]["locality"] += [1, "x", {"no": "system"}]
        res = results(bench)
        self.assertEqual(len(res.bench.real.locality), 4)
        self.assertTrue(any("3 real-system locality entries" in p for p in res.problems()))

    def test_entries_missing_figures_show_dashes(self):
        bench = bench_with_locality()
        bench["real_systems"]["locality"] = [{"system": "mariadb-auto-increment",
                                              "scheme": "AUTO_INCREMENT", "clients": 1}]
        rows, col, _ = table(bench)
        self.assertIn("mariadb-auto-increment – (1 client)", rows["AUTO_INCREMENT"][col[FILL]])
        content.build_report(results(bench))


class SectionTest(unittest.TestCase):
    def section(self, bench):
        report = content.build_report(results(bench))
        return next(s for s in report.sections if s.id == "real"), report.summary

    def test_the_section_lists_every_pass(self):
        section, summary = self.section(bench_with_locality())
        tables = [x for kind, x in section.blocks if kind == "table"]
        loc = tables[-1]
        self.assertEqual(loc.header[:2], ["system", "clients"])
        self.assertEqual(len(loc.rows), 4)
        self.assertEqual(loc.rows[0][5], "88.9 %")
        self.assertEqual(loc.rows[3][-1], ("adapter: every server is down", BAD))
        self.assertEqual(len(summary["real_systems"]["locality"]), 4)

    def test_without_passes_the_section_says_so(self):
        section, summary = self.section(bench_with_real())
        texts = [x for kind, x in section.blocks if kind == "p"]
        self.assertTrue(any("was not measured" in t for t in texts), texts)
        self.assertNotIn("locality", summary["real_systems"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
