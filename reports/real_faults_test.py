#!/usr/bin/python3
"""real_faults_test.py — the real systems under faults in the report: a restored ticket
server's duplicates are shown as the finding (marked bad, with the evidence), every part gets a
timeline, the clock injector of the real-chaos and chaos runs is one line under each heading,
and a missing or malformed real_chaos.json is a sentence, never a crash or a pass.

    /usr/bin/python3 reports/real_faults_test.py
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import tempfile
import unittest

import content
import inputs
import real_faults
from document import BAD, GOOD

HERE = os.path.dirname(os.path.abspath(__file__))


def testdata() -> dict:
    with open(os.path.join(HERE, "testdata", real_faults.FILE)) as f:
        return json.load(f)


def report_of(doc, chaos_config: dict | None = None) -> tuple:
    d = tempfile.mkdtemp(prefix="idbench-report-test-")
    try:
        for name in ("bench.json", "locality.json", "chaos.json"):
            shutil.copy(os.path.join(HERE, "testdata", name), d)
        if chaos_config is not None:  # chaos.json's config replaced
            with open(os.path.join(HERE, "testdata", "chaos.json")) as f:
                chaos = json.load(f)
            chaos["config"] = chaos_config
            with open(os.path.join(d, "chaos.json"), "w") as f:
                json.dump(chaos, f)
        if doc is not None:
            with open(os.path.join(d, real_faults.FILE), "w") as f:
                f.write(doc if isinstance(doc, str) else json.dumps(doc))
        results = inputs.load_results(d)
        report = content.build_report(results)
        section = next(s for s in report.sections if s.id == "real-faults")
        return results, report, section
    finally:
        shutil.rmtree(d)


def blocks(section, kind):
    return [x for k, x in section.blocks if k == kind]


class RealFaultsTest(unittest.TestCase):
    def test_restored_ticket_server_duplicates_are_the_finding(self):
        _, report, section = report_of(testdata())
        rows = blocks(section, "table")[0].rows
        self.assertEqual(len(rows), 2)
        for r in rows:
            self.assertEqual(r[0], "ticket-restore")
            self.assertEqual(r[2], ("DUPLICATES", BAD))
            self.assertNotEqual(r[4], "0")
            self.assertIn("the restored counter went back", r[7])
        self.assertEqual(len(blocks(section, "figure")), 2)  # one timeline per fault and system
        self.assertEqual([p["passed"] for p in report.summary["real_faults"]], [False, False])

    def test_the_ticket_server_row_carries_the_restore_verdict(self):
        import decision
        results, _, _ = report_of(testdata())
        t, data, notes = decision.decision_table(results)
        row = next(r for r in t.rows if r[0].lower().startswith("ticket server"))
        cell = row[-1]
        self.assertIsInstance(cell, tuple)
        self.assertEqual(cell[1], BAD)
        self.assertIn("DUPLICATES", cell[0])  # the verdict in the cell, the systems in its note
        self.assertIn("ticket-restore DUPLICATES (mariadb-ticket-pair-myisam)",
                      decision.expanded(cell, notes))
        d = next(x for x in data if x["scheme"].lower() == "ticket server")
        self.assertIn("ticket-restore", d["real_faults"])
        # A scheme no real system under faults belongs to keeps its cell as it was.
        auto = next(r for r in t.rows if r[0].startswith("AUTO_INCREMENT"))
        self.assertNotIn("real systems under faults", str(auto[-1]))

    def test_a_kept_part_is_marked_good(self):
        doc = copy.deepcopy(testdata())
        doc["scenarios"][0]["parts"][0]["verdict"] = {"verdict": "kept", "passed": True,
                                                      "evidence": "no duplicate"}
        _, _, section = report_of(doc)
        self.assertEqual(blocks(section, "table")[0].rows[0][2], ("kept", GOOD))

    def test_the_clock_injector_is_one_line_under_the_heading(self):
        doc = copy.deepcopy(testdata())
        doc["config"] = {"clock_injector": "ptrace"}
        _, report, section = report_of(doc)
        first = blocks(section, "p")[0]
        self.assertTrue(first.startswith("Clock injector: ptrace (idbench-inject"), first)
        # A file written before the option names none: said so, never guessed silently.
        _, _, older = report_of(testdata())
        self.assertIn("Clock injector: not recorded in real_chaos.json", blocks(older, "p")[0])
        # The chaos section says its own, from chaos.json's config.
        chaos = next(s for s in report.sections if s.id == "chaos")
        self.assertTrue(blocks(chaos, "p")[0].startswith("Clock injector: "), blocks(chaos, "p"))

    def test_the_chaos_section_names_its_runs_injector(self):
        for name, words in (("ptrace", "ptrace (idbench-inject"), ("libfaketime", "libfaketime (")):
            _, report, _ = report_of(testdata(), chaos_config={"clock_injector": name})
            chaos = next(s for s in report.sections if s.id == "chaos")
            self.assertTrue(blocks(chaos, "p")[0].startswith("Clock injector: " + words),
                            blocks(chaos, "p"))
        # One run's JSON (idbench chaos --json) carries its config too.
        one = inputs.load_chaos({"scenario": "ntp-step-back",
                                 "config": {"clock_injector": "ptrace"}})
        self.assertEqual(one.config.get("clock_injector"), "ptrace")

    def test_missing_file_says_not_run(self):
        results, _, section = report_of(None)
        self.assertFalse(results.real_faults.present)
        # One sentence, the section's opening; nothing folded under it.
        self.assertIn(f"{real_faults.FILE} is missing (written by ./run.sh real-chaos",
                      section.takeaway)
        self.assertEqual(section.blocks, [])

    def test_malformed_file_is_a_problem_sentence(self):
        for doc in ("{not json", {"scenarios": "x"}, [1, 2]):
            results, _, section = report_of(doc)
            self.assertTrue(results.problems(), doc)
            self.assertFalse(blocks(section, "figure"), doc)
            self.assertIn(real_faults.FILE, section.takeaway, doc)

    def test_a_part_without_a_timeline_says_so(self):
        doc = copy.deepcopy(testdata())
        del doc["scenarios"][0]["parts"][0]["timeline"]
        _, _, section = report_of(doc)
        figures = blocks(section, "figure")
        self.assertEqual(figures[0].error, "no timeline recorded")


def part(system: str, verdict: str, passed: bool | None, label: str = "",
         clock: bool = False) -> dict:
    """One system through one planted fault; a fault on the server's clock probes it."""
    return {"system": system, "label": label, "settings": label or "planted",
            "verdict": {"verdict": verdict, "passed": passed, "evidence": "planted"},
            "figures": {"ids": 1000, "duplicates": 0 if passed is not False else 9},
            "events": [], "timeline": None,
            "probes": [{"t_ms": 10.0, "server_minus_true_ms": -1000.0}] if clock else []}


def planted(*scenarios: tuple[str, list[dict]]) -> dict:
    return {"config": {"clock_injector": "libfaketime"},
            "scenarios": [{"scenario": name, "description": "planted", "parts": parts,
                           "verdict": {"verdict": "planted", "passed": None}}
                          for name, parts in scenarios]}


def decision_table(doc: dict | None):
    """The decision table over the real-only schemes' systems and MariaDB's AUTO_INCREMENT,
    with `doc` as real_chaos.json (None: absent)."""
    import decision
    import real_systems_test as rs
    from decision_test import testdata as decision_testdata
    bench = rs.bench_with_real_only()
    bench["real_systems"]["cells"] += [c for c in rs.real_systems()["cells"]
                                       if c["system"] == "mariadb-auto-increment"]
    bench["real_systems"]["systems"].append(
        {"name": "mariadb-auto-increment", "scheme": "AUTO_INCREMENT",
         "lower_bound_variant": "auto-increment", "server_kind": "mariadb", "servers": 1})
    res = inputs.Results("testdata", inputs.load_bench(bench),
                         inputs.load_locality(decision_testdata("locality.json")),
                         inputs.load_chaos(decision_testdata("chaos.json")),
                         real_faults=None if doc is None else inputs.load_real_faults(doc))
    return decision.decision_table(res)[0]


def decision_rows(doc: dict | None) -> tuple[dict, list[str]]:
    """`decision_table(doc)`'s rows by their first cell, and its notes."""
    t = decision_table(doc)
    return {r[0]: r for r in t.rows}, t.notes


def clock_of(rows: dict, scheme: str) -> str:
    cell = rows[scheme][-1]
    return cell[0] if isinstance(cell, tuple) else cell


class DecisionRowFaultsTest(unittest.TestCase):
    """The clock-faults cell of a row gives one verdict per real-chaos fault of the row's own
    systems, naming the fault; a scheme with no variant says whether it reads a clock."""

    def test_kill9_without_duplicates_is_not_marked_duplicates(self):
        import decision
        doc = planted(
            ("auto-increment-kill9", [part("mariadb-auto-increment", "kept", True, "flush=1")]),
            ("postgres-kill9", [part("postgres-sequence", "kept", True, "synchronous_commit=on"),
                                part("postgres-sequence", "kept", True,
                                     "synchronous_commit=off")]),
            ("redis-kill9", [part("redis-incr", "kept", True, "appendfsync=always"),
                             part("redis-incr", "DUPLICATES", False, "rdb")]))
        rows, notes = decision_rows(doc)
        # SEQUENCE and Redis name AUTO_INCREMENT's variant as their lower bound: their
        # faults are theirs, not AUTO_INCREMENT's.
        auto = rows["AUTO_INCREMENT"][-1]
        self.assertNotIsInstance(auto, tuple, auto)
        self.assertIn("auto-increment-kill9: kept", auto)
        self.assertNotIn("DUPLICATES", decision.expanded(auto, notes))
        self.assertNotIn("redis", decision.expanded(auto, notes))
        seq = rows["SEQUENCE"][-1]
        self.assertNotIsInstance(seq, tuple, seq)
        self.assertRegex(seq, r"^no clock; postgres-kill9: kept \[\d+\]$")
        redis = rows["Redis INCR"][-1]
        self.assertEqual(redis[1], BAD)
        self.assertRegex(redis[0], r"^no clock; redis-kill9: DUPLICATES with rdb \[\d+\]$")
        self.assertIn("redis-kill9 kept (redis-incr appendfsync=always); redis-kill9 DUPLICATES "
                      "(redis-incr rdb)", decision.expanded(redis, notes))

    def test_a_system_that_ran_under_faults_only_joins_its_schemes_row(self):
        # postgres-sequence-cache50 was never benched (no bench cell or description); its
        # part names its scheme, so its DUPLICATES reach the SEQUENCE row, and not the row of
        # AUTO_INCREMENT, whose variant it names as its lower bound.
        import decision
        alone = part("postgres-sequence-cache50", "DUPLICATES", False, "synchronous_commit=off")
        alone.update({"scheme": "SEQUENCE", "lower_bound_variant": "auto-increment",
                      "server_kind": "postgres"})
        rows, notes = decision_rows(planted(("postgres-kill9", [alone])))
        self.assertIn("postgres-kill9: DUPLICATES", clock_of(rows, "SEQUENCE"))
        self.assertIn("postgres-sequence-cache50",
                      decision.expanded(rows["SEQUENCE"][-1], notes))
        self.assertNotIn("postgres-kill9", decision.expanded(rows["AUTO_INCREMENT"][-1], notes))

    def test_the_settings_a_fault_failed_at_are_named(self):
        doc = planted(
            ("postgres-kill9", [part("postgres-sequence", "kept", True,
                                     "synchronous_commit=on, fsync=on"),
                                part("postgres-sequence", "DUPLICATES", False,
                                     "synchronous_commit=off, fsync=on")]),
            ("postgres-restore", [part("postgres-sequence", "DUPLICATES", False)]))
        rows, _ = decision_rows(doc)
        self.assertIn("postgres-kill9: DUPLICATES with synchronous_commit=off · "
                      "postgres-restore: DUPLICATES", clock_of(rows, "SEQUENCE"))

    def test_a_clock_scheme_without_a_clock_fault_says_not_run_never_kept(self):
        for doc in (None, planted()):
            rows, notes = decision_rows(doc)
            self.assertRegex(clock_of(rows, "Instagram next_id()"),
                             r"^clock faults: not run \(real-chaos --full\) \[\d+\]$")
            # A library without a server: its clock faults are chaos --systems'.
            self.assertRegex(clock_of(rows, "ULID"), r"^clock faults: not run \(chaos --systems\)")
            self.assertEqual(clock_of(rows, "SEQUENCE"), "no clock")
        ig = "postgres-instagram-next-id"
        rows, _ = decision_rows(planted(("postgres-restore", [part(ig, "DUPLICATES", False)])))
        self.assertRegex(clock_of(rows, "Instagram next_id()"),
                         r"^postgres-restore: DUPLICATES; clock faults: not run \(real-chaos")
        rows, _ = decision_rows(planted(("postgres-clock-back", [part(ig, "kept", True,
                                                                       clock=True)])))
        self.assertRegex(clock_of(rows, "Instagram next_id()"), r"^postgres-clock-back: kept \[")
        rows, _ = decision_rows(planted(("postgres-clock-back",
                                         [part(ig, "fault not applied", None, clock=True)])))
        cell = rows["Instagram next_id()"][-1]
        self.assertNotIsInstance(cell, tuple)
        self.assertRegex(cell, r"^postgres-clock-back: fault not applied \[")

    def test_many_faults_keep_the_ones_not_passed_in_the_cell(self):
        import decision
        many = [(f"fault-{i}", [part("postgres-sequence", "kept", True)]) for i in range(5)]
        doc = planted(*many, ("postgres-kill9", [part("postgres-sequence", "DUPLICATES", False)]))
        rows, notes = decision_rows(doc)
        text = clock_of(rows, "SEQUENCE")
        self.assertRegex(text, r"^no clock; postgres-kill9: DUPLICATES · 5 more passed \[")
        self.assertLessEqual(len(text.split()), decision.MAX_WORDS)
        self.assertIn("fault-4 kept (postgres-sequence)",
                      decision.expanded(rows["SEQUENCE"][-1], notes))

    def test_many_failed_faults_keep_each_faults_verdict_without_its_settings(self):
        import decision
        redis = "redis-incr"
        doc = planted(
            ("redis-kill9", [part(redis, "kept", True, "appendfsync=always"),
                             part(redis, "DUPLICATES", False, "rdb")]),
            ("redis-kill9-disk-busy", [part(redis, "kept", True, "appendfsync=always, stalled"),
                                       part(redis, "DUPLICATES", False,
                                            "appendfsync=everysec, stalled")]),
            ("redis-replica-promotion", [part(redis, "DUPLICATES", False, "rdb")]))
        rows, notes = decision_rows(doc)
        text = clock_of(rows, "Redis INCR")
        self.assertRegex(text, r"^no clock; redis-kill9: DUPLICATES · redis-kill9-disk-busy: "
                               r"DUPLICATES · redis-replica-promotion: DUPLICATES \[")
        self.assertLessEqual(len(text.split()), decision.MAX_WORDS)
        self.assertIn("redis-kill9 DUPLICATES (redis-incr rdb)",
                      decision.expanded(rows["Redis INCR"][-1], notes))


if __name__ == "__main__":
    unittest.main()
