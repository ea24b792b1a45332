#!/usr/bin/python3
"""real_systems_test.py — the real-system figures in the report: the decision table's
AUTO_INCREMENT row shows the real figure beside the in-process lower bound when bench.json
carries real_systems, and says "not measured" when it does not; the system's own share (timed in
its adapter) is the figure shown where measured, the harness's hop has its own table; the Real
systems section lists every cell; a failed cell is marked, never shown as a figure.

    /usr/bin/python3 reports/real_systems_test.py
"""
from __future__ import annotations

import copy
import unittest

import content
import decision
import inputs
from decision_test import results, testdata
from document import BAD, expanded_cell

LOWER_BOUND = "lower bound"  # what a speed cell of an in-process stand-in says
REAL = decision.REAL_COLUMN


def cell(system, scheme, lower, clients, size, flush, ids_per_s, p99, error=None, counters=None):
    return {"system": system, "scheme": scheme, "lower_bound_variant": lower,
            "command": "adapter", "server": "MariaDB 10.11.6, innodb_flush_log_at_trx_commit="
                                             f"{flush}",
            "durability": {"innodb_flush_log_at_trx_commit": flush, "binlog": False},
            "clients": clients, "request_size": size, "seconds": 2.0,
            "ids": int(ids_per_s * 2), "requests": int(ids_per_s * 2 / size),
            "ids_per_s": ids_per_s, "ids_per_s_per_client": ids_per_s / clients,
            "latency_ns": {"p50": p99 / 2, "p99": p99, "p999": p99 * 2, "max": p99 * 3},
            "failed_clients": 1 if error else 0, "error": error,
            "adapter_counters": counters}


def real_systems() -> dict:
    cells = []
    for flush, slow in ((1, 4.0), (2, 1.0)):
        for clients in (1, 8):
            for size in (1, 1000):
                cells.append(cell("mariadb-auto-increment", "AUTO_INCREMENT", "auto-increment",
                                  clients, size, flush, 1240.0 * clients / slow * size ** 0.5,
                                  810_000.0 * slow))
    cells.append(cell("mariadb-sequence", "SEQUENCE", "auto-increment", 1, 1, 1, 900.0,
                      1_000_000.0))
    cells.append(cell("mariadb-ticket-pair-innodb", "Ticket server", "ticket-pair", 1, 1, 1,
                      1200.0, 900_000.0, counters={"retries": 0, "deadlocks": 0}))
    cells.append(cell("mariadb-ticket-pair-innodb", "Ticket server", "ticket-pair", 8, 1, 1,
                      0, 0, error="adapter: deadlock found when trying to get lock"))
    return {"context": {}, "complete": True, "planned": len(cells), "config": {},
            "systems": [], "cells": cells}


def bench_with_real() -> dict:
    bench = testdata("bench.json")
    bench["real_systems"] = real_systems()
    return bench


def raw_table(bench: dict):
    """rows by scheme as the table prints them (short cells, "[n]"), columns, data, notes."""
    t, data, notes = decision.decision_table(results(bench))
    col = {h: i for i, h in enumerate(t.header)}
    return {r[0]: r for r in t.rows}, col, {d["scheme"]: d for d in data}, notes


def table(bench: dict):
    """rows by scheme, every cell with its notes after it (what the cell says in full),
    columns, data."""
    rows, col, data, notes = raw_table(bench)
    return ({k: [expanded_cell(c, notes) for c in r] for k, r in rows.items()}, col, data)


class DecisionRowTest(unittest.TestCase):
    def test_auto_increment_shows_the_real_figure_beside_the_lower_bound(self):
        rows, col, data = table(bench_with_real())
        row = rows["AUTO_INCREMENT"]
        speed, real = row[col[next(h for h in col if h.startswith("IDs/s 1 · 2"))]], row[col[REAL]]
        self.assertRegex(speed, r"^\d.* lower bound ")  # the figures first, then what they are
        self.assertIn("in-process lower bound", speed)  # its note
        # 1 ID per request at the default durability (flush 1): 1240/4 per client at 1 client,
        # 1240 × 8 / 4 at 8 clients, p99 3.24 ms.
        self.assertIn("mariadb-auto-increment: 310 IDs/s per client, p99 3.24 ms", real)
        self.assertIn("2.48 k IDs/s at 8 clients", real)
        self.assertIn("flush_log_at_trx_commit=1, binlog off", real)
        d = data["AUTO_INCREMENT"]["real"][0]
        self.assertEqual(d["durability"]["innodb_flush_log_at_trx_commit"], 1)
        self.assertAlmostEqual(d["ids_per_s_per_client_1"], 310.0)
        self.assertEqual(d["clients_many"], 8)

    def test_without_real_data_the_row_says_not_measured(self):
        bench = testdata("bench.json")
        del bench["real_systems"]
        rows, col, _ = table(bench)
        row = rows["AUTO_INCREMENT"]
        self.assertEqual(row[col[REAL]], "not measured")
        self.assertIn(LOWER_BOUND, row[5])
        self.assertTrue(any("carries no real_systems" in p
                            for p in results(bench).problems()))

    def test_a_scheme_only_a_real_system_measured_gets_a_row_of_its_own(self):
        rows, col, _ = table(bench_with_real())
        self.assertNotIn("mariadb-sequence", rows["AUTO_INCREMENT"][col[REAL]])
        self.assertIn("mariadb-sequence: 900 IDs/s per client", rows["SEQUENCE"][col[REAL]])
        self.assertEqual(rows["SEQUENCE"][4], decision.REAL_SCHEME_WORDS["SEQUENCE"].pick_when)
        self.assertTrue(rows["SEQUENCE"][5].startswith(decision.REAL_ONLY), rows["SEQUENCE"][5])

    def test_only_lower_bound_variants_are_labelled(self):
        rows, col, _ = table(bench_with_real())
        self.assertNotIn(LOWER_BOUND, rows["UUIDv7"][5])
        self.assertEqual(rows["UUIDv7"][col[REAL]], "not measured")

    def test_a_failed_cell_is_marked_not_shown_as_a_figure(self):
        rows, col, _ = table(bench_with_real())
        real = rows["ticket server"][col[REAL]]
        self.assertIsInstance(real, tuple)
        text, css = real
        self.assertEqual(css, BAD)
        self.assertIn("1.2 k IDs/s per client", text)
        self.assertIn("at 8 clients: failed (adapter: deadlock", text)

    def test_the_flush_2_figure_is_shown_only_when_flush_1_did_not_run(self):
        bench = bench_with_real()
        bench["real_systems"]["cells"] = [c for c in bench["real_systems"]["cells"]
                                          if c["durability"]["innodb_flush_log_at_trx_commit"] == 2]
        rows, col, _ = table(bench)
        self.assertIn("1.24 k IDs/s per client", rows["AUTO_INCREMENT"][col[REAL]])
        self.assertIn("flush_log_at_trx_commit=2", rows["AUTO_INCREMENT"][col[REAL]])


def with_own_share(bench: dict) -> dict:
    """The flush-1 AUTO_INCREMENT cells at 1 ID/request as timed inside the adapter (twice the
    end-to-end rate, p99 half), the 1-client one with a direct client, and the harness's hop."""
    for c in bench["real_systems"]["cells"]:
        if (c["system"] == "mariadb-auto-increment" and c["request_size"] == 1
                and c["durability"]["innodb_flush_log_at_trx_commit"] == 1):
            c["system_side"] = {"ids_per_s": 2 * c["ids_per_s"],
                                "ids_per_s_per_client": 2 * c["ids_per_s_per_client"],
                                "latency_ns": {"p50": 100_000.0, "p99": 1_620_000.0,
                                               "p999": 2e6, "max": 3e6}}
            if c["clients"] == 1:
                c["direct"] = {"ids_per_s": 640.0, "ids_per_s_per_client": 640.0,
                               "latency_ns": {"p50": 90_000.0, "p99": 1_500_000.0},
                               "error": None}
    bench["real_systems"]["harness_hop"] = [
        {"system": "harness hop", "clients": 1, "request_size": 1, "ids_per_s": 31_000.0,
         "ids_per_s_per_client": 31_000.0, "latency_ns": {"p50": 29_000.0, "p99": 60_000.0},
         "error": None}]
    return bench


# The schemes people run that only real systems stand for, as `idbench real` describes them.
REAL_ONLY_SYSTEMS = (("postgres-sequence", "SEQUENCE", "auto-increment", "postgres"),
                     ("postgres-instagram-next-id", "Instagram next_id()", "", "postgres"),
                     ("redis-incr", "Redis INCR", "auto-increment", "redis"),
                     ("python-uuid1", "UUIDv1", "", ""),
                     ("node-ulid", "ULID", "", ""))
DURABILITY = {"postgres": {"fsync": True, "synchronous_commit": "on"},
              "redis": {"appendfsync": "always", "appendonly": True}, "": None}


def bench_with_real_only() -> dict:
    """The testdata bench with the real-only schemes' systems described and measured (1 and 8
    clients, 1 ID per request), each at its server's own durability settings."""
    bench = testdata("bench.json")
    cells = []
    for name, scheme, lower, kind in REAL_ONLY_SYSTEMS:
        for clients in (1, 8):
            c = cell(name, scheme, lower, clients, 1, 1, 5000.0 * clients, 400_000.0)
            c["durability"] = DURABILITY[kind]
            cells.append(c)
    bench["real_systems"] = {
        "context": {}, "complete": True, "planned": len(cells), "config": {}, "cells": cells,
        "systems": [{"name": n, "scheme": sc, "lower_bound_variant": lo, "server_kind": k,
                     "servers": 1 if k else 0, "summary": n}
                    for n, sc, lo, k in REAL_ONLY_SYSTEMS]}
    return bench


class RealOnlySchemeTest(unittest.TestCase):
    """A scheme that only real systems stand for has its words like the classic ones, and one
    phrase, with one note, where the in-process figures of a variant would be."""

    def test_each_real_only_scheme_has_its_words(self):
        rows, col, _ = table(bench_with_real_only())
        for _, scheme, _, _ in REAL_ONLY_SYSTEMS:
            w = decision.REAL_SCHEME_WORDS[scheme]
            row = rows[scheme]
            self.assertTrue(row[col["sortable"]].startswith(w.sortable), row)
            self.assertEqual(row[col["made where"]], w.made_where)
            self.assertTrue(row[col["ops burden"]].startswith(w.ops_burden), row)
            self.assertEqual(row[col["pick when"]], w.pick_when)
            self.assertNotEqual(w.pick_when, decision.NOT_IN_THE_TABLE.pick_when)

    def test_in_process_columns_say_real_system_only_with_one_shared_note(self):
        rows, col, _, notes = raw_table(bench_with_real_only())
        speed = next(h for h in col if h.startswith("IDs/s 1 · 2"))
        splits = next(h for h in col if h.startswith("splits/1k"))
        fill = next(h for h in col if h.startswith("leaf fill"))
        refs = set()
        for _, scheme, _, _ in REAL_ONLY_SYSTEMS:
            row = rows[scheme]
            self.assertRegex(row[col[speed]], rf"^{decision.REAL_ONLY} \[\d+\]$")
            refs.add(row[col[speed]])
            self.assertEqual(row[col["p99 · p99.9, 2 threads"]], "–")
            self.assertEqual(row[col[splits]], "–")
            self.assertEqual(row[col[fill]], "–")  # no locality pass of its real IDs
        self.assertEqual(len(refs), 1, refs)  # one note for every such row
        n = int(refs.pop().split("[")[1].rstrip("]"))
        self.assertIn("exist only for a scheme with an idbench variant", notes[n - 1])
        # A classic scheme without a variant that ran still says "not measured".
        self.assertEqual(rows["UUIDv7"][col[REAL]], "not measured")

    def test_each_real_system_of_a_row_has_a_note_of_its_own(self):
        # npm's Snowflake packages, peers of the Snowflake row: one note, one line, each.
        bench = bench_with_real_only()
        packages = ["node-snowflake-id", "node-nodejs-snowflake", "node-flake-idgen"]
        for name in packages:
            for clients in (1, 8):
                c = cell(name, "Snowflake", "", clients, 1, 1, 30_000.0 * clients, 50_000.0)
                c["durability"] = None
                bench["real_systems"]["cells"].append(c)
        rows, col, _, notes = raw_table(bench)
        real = next(r for k, r in rows.items() if k.startswith("Snowflake"))[col[REAL]]
        self.assertRegex(real, r"^3 systems: 30 k IDs/s per client \[\d+\]\[\d+\]\[\d+\]$")
        self.assertEqual([n.split(":")[0] for n in decision.cell_notes(real, notes)], packages)

    def test_a_server_s_own_durability_settings_are_named(self):
        rows, col, _ = table(bench_with_real_only())
        self.assertIn("fsync=on, synchronous_commit=on", rows["SEQUENCE"][col[REAL]])
        self.assertIn("appendfsync=always, appendonly=on", rows["Redis INCR"][col[REAL]])
        self.assertNotIn("flush_log_at_trx_commit=?", rows["SEQUENCE"][col[REAL]])


class OwnShareTest(unittest.TestCase):
    def test_the_decision_row_shows_the_systems_own_share_then_the_harness_figure(self):
        rows, col, data = table(with_own_share(bench_with_real()))
        real = rows["AUTO_INCREMENT"][col[REAL]]
        # Own: 2 × 310 per client, p99 1.62 ms; end to end 310 through the harness.
        self.assertIn("mariadb-auto-increment: 620 IDs/s per client, p99 1.62 ms (the system's "
                      "own; 310 through the harness)", real)
        self.assertIn("4.96 k IDs/s at 8 clients", real)
        d = data["AUTO_INCREMENT"]["real"][0]
        self.assertAlmostEqual(d["ids_per_s_per_client_1"], 620.0)
        self.assertTrue(d["systems_own"])

    def test_the_cell_table_has_the_own_share_and_the_direct_client_and_the_hop_its_table(self):
        res = results(with_own_share(bench_with_real()))
        section = next(s for s in content.build_report(res).sections if s.id == "real")
        tables = [x for kind, x in section.blocks if kind == "table"]
        cells, hop = tables[0], tables[1]
        h = {name: i for i, name in enumerate(cells.header)}
        first = cells.rows[0]  # flush 1, 1 client, 1 ID/request
        self.assertEqual(first[h["own IDs/s"]], "620")
        self.assertEqual(first[h["own p99"]], "1.62 ms")
        self.assertEqual(first[h["IDs/s"]], "310")
        self.assertEqual(first[h["direct IDs/s"]], "640")
        self.assertEqual(cells.rows[1][h["own IDs/s"]], "–")  # 1000 IDs/request: not timed
        self.assertEqual(hop.header[:3], ["clients", "IDs/request", "IDs/s"])
        self.assertEqual(hop.rows[0][2], "31 k")
        self.assertIn("harness's own cost", hop.caption)

    def test_without_an_own_share_the_end_to_end_figure_stays(self):
        rows, col, data = table(bench_with_real())
        self.assertNotIn("the system's own", rows["AUTO_INCREMENT"][col[REAL]])
        self.assertFalse(data["AUTO_INCREMENT"]["real"][0]["systems_own"])


class TestdataTest(unittest.TestCase):
    def test_the_measured_run_fills_both_rows_it_measured(self):
        rows, col, data = table(testdata("bench.json"))
        for scheme in ("AUTO_INCREMENT", "ticket server"):
            self.assertRegex(rows[scheme][col[REAL]], r"IDs/s per client.*IDs/s at 8 clients")
        self.assertIn(LOWER_BOUND, rows["AUTO_INCREMENT"][5])
        # The trimmed testdata has no ticket-pair bench run: no label before "not measured".
        self.assertEqual(rows["ticket server"][5], "not measured")
        self.assertIn("mariadb-ticket-pair-myisam", rows["ticket server"][col[REAL]])
        self.assertIn("mariadb-ticket-pair-innodb", rows["ticket server"][col[REAL]])


class SectionTest(unittest.TestCase):
    def test_the_section_lists_every_cell(self):
        res = results(bench_with_real())
        report = content.build_report(res)
        section = next(s for s in report.sections if s.id == "real")
        tables = [x for kind, x in section.blocks if kind == "table"]
        self.assertEqual(len(tables[0].rows), len(real_systems()["cells"]))
        self.assertEqual(len(report.summary["real_systems"]["cells"]), len(tables[0].rows))

    def test_a_partial_run_is_named(self):
        bench = bench_with_real()
        bench["real_systems"]["complete"] = False
        bench["real_systems"]["planned"] = 30
        probs = results(bench).problems()
        self.assertTrue(any("11 of 30 cells ran" in p for p in probs), probs)

    def test_a_broken_real_systems_key_is_a_sentence(self):
        bench = bench_with_real()
        bench["real_systems"] = copy.deepcopy([1, 2])
        probs = results(bench).problems()
        self.assertTrue(any("real_systems is not a JSON object" in p for p in probs), probs)
        rows, col, _ = table(bench)
        self.assertEqual(rows["AUTO_INCREMENT"][col[REAL]], "not measured")


if __name__ == "__main__":
    unittest.main(verbosity=2)
