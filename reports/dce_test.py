#!/usr/bin/python3
"""dce_test.py — the DCE rule in the report (a clock sequence that changes at each backward
step, 1994): the decision table's DCE row, with its real peer apart, and the clock-sequence
timelines beside refuse/wait/borrow.

Every test plants its data: variants no file in reports/ names, described with scheme "DCE"
(one of them `own_clock`, the real peer), copies of the testdata's runs and chaos cells.

    /usr/bin/python3 reports/dce_test.py
"""
from __future__ import annotations

import copy
import json
import os
import unittest

import content
import decision
import inputs
from document import BAD, expanded_cell

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
RULE, PEER = "scratch-dce", "scratch-peer"  # the rule's variant and its real peer
CLOCK, REAL = -1, 7  # the decision table's clock-faults and real-system columns
GEN2 = "ts=41,node=8,gen=2,seq=12,epoch=1288834974657"
GEN1 = "ts=41,node=9,gen=1,seq=12,epoch=1288834974657"


def testdata(name: str) -> dict:
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return json.load(f)


def planted_bench() -> dict:
    """The testdata bench with RULE and PEER described (scheme DCE; PEER with own_clock) and
    measured (copies of another variant's generate/ runs)."""
    bench = testdata("bench.json")
    variants = json.loads(bench["context"]["idbench_variants"])["variants"]
    source = variants[1]["name"]
    for name, own in ((RULE, False), (PEER, True)):
        v = copy.deepcopy(variants[1])
        v.update(name=name, scheme="DCE", own_clock=own, summary="planted")
        variants.append(v)
        bench["benchmarks"] += [
            dict(copy.deepcopy(e), name=e["name"].replace(f"/{source}/", f"/{name}/"),
                 run_name=e["run_name"].replace(f"/{source}/", f"/{name}/"))
            for e in bench["benchmarks"] if e["name"].startswith(f"generate/{source}/")]
    bench["context"]["idbench_variants"] = json.dumps({"variants": variants})
    return bench


def chaos_cell(variant: str, policy: str, layout: str = "", persist: bool = False,
               **fields) -> dict:
    """A copy of the testdata's ntp-step-back refuse cell (it has a timeline) as another cell."""
    c = copy.deepcopy(next(x for x in testdata("chaos.json")["cells"]
                           if x["scenario"] == "ntp-step-back" and x["policy"] == "refuse"))
    c.update(variant=variant, policy=policy, persist=persist, **fields)
    c["config"] = dict(c.get("config") or {}, layout=layout or "twitter")  # as a cell that ran
    return c


def planted_chaos(peer_broken: bool = False) -> dict:
    doc = testdata("chaos.json")
    doc["cells"] += [
        chaos_cell(RULE, "clock-sequence", availability=0.97, refusals=0),
        chaos_cell(RULE, "clock-sequence", persist=True, availability=0.98, refusals=0),
        chaos_cell("cas", "clock-sequence", GEN2, availability=0.99, refusals=0),
        chaos_cell("cas", "clock-sequence", GEN1, availability=0.6, refusals=0),
        chaos_cell(PEER, "refuse", availability=0.9,
                   **({"promise_kept": False, "duplicates": 7} if peer_broken else {}))]
    return doc


def results(bench: dict | None = None, chaos: dict | None = None) -> inputs.Results:
    return inputs.Results("testdata", inputs.load_bench(bench or planted_bench()),
                          inputs.load_locality(testdata("locality.json")),
                          inputs.load_chaos(chaos or planted_chaos()))


def dce_row(res: inputs.Results) -> tuple[str, list, dict]:
    """The DCE row's name, its cells each with its notes after it (what the cell says in
    full, its mark kept), and its data."""
    table, data, notes = decision.decision_table(res)
    for row, d in zip(table.rows, data):
        if d["scheme"] == "DCE":
            return row[0], [expanded_cell(c, notes) for c in row], d
    raise AssertionError(f"no DCE row in {[r[0] for r in table.rows]}")


def text(cell) -> str:
    return cell[0] if isinstance(cell, tuple) else cell


class DceRowTest(unittest.TestCase):
    def test_the_dce_row_is_there_without_variants(self):
        bench = testdata("bench.json")  # described before the DCE variants existed
        name, row, d = dce_row(results(bench, testdata("chaos.json")))
        self.assertEqual(name, "DCE")
        self.assertEqual(d["variants"], [])
        self.assertIn("clock", row[4])  # the seeds' words: pick when the clock steps back

    def test_the_row_shows_the_rule_and_its_real_peer_apart(self):
        name, row, d = dce_row(results())
        self.assertEqual(d["variants"], [RULE, PEER])
        self.assertEqual(d["real_peers"], [PEER])
        self.assertEqual(d["shown"], RULE)  # the peer never stands for the rule's speed
        self.assertEqual(name, "DCE")
        self.assertRegex(row[5], r"^\d")  # the rule's own IDs/s
        self.assertIn(f"{PEER} (real peer, in-process", text(row[REAL]))
        self.assertIn(PEER, d["real_peer_bench"])

    def test_the_clock_column_has_the_clock_sequence_cells_then_the_peer(self):
        _, row, d = dce_row(results())
        clock = text(row[CLOCK])
        self.assertEqual(d["chaos"]["cells"], 2)  # the rule's cells only
        self.assertIn("ntp-step-back availability 97 % (clock-sequence)", clock)
        self.assertIn(f"real peer {PEER}: 0 duplicates in 1 cells", clock)
        self.assertLess(clock.index("clock-sequence"), clock.index("real peer"))

    def test_a_peer_s_broken_promise_marks_the_row(self):
        _, row, _ = dce_row(results(chaos=planted_chaos(peer_broken=True)))
        self.assertEqual(row[CLOCK][1], BAD)
        self.assertIn(f"real peer {PEER}: 1 broken promise", row[CLOCK][0])

    def test_without_the_own_clock_field_the_peer_is_one_of_the_rule_s_variants(self):
        bench = planted_bench()
        variants = json.loads(bench["context"]["idbench_variants"])["variants"]
        for v in variants:
            v.pop("own_clock", None)
        bench["context"]["idbench_variants"] = json.dumps({"variants": variants})
        _, row, d = dce_row(results(bench))
        self.assertEqual(d["real_peers"], [])
        self.assertNotIn(f"real peer {PEER}", text(row[CLOCK]))


class ClockSequenceTimelineTest(unittest.TestCase):
    def test_policy_labels_name_the_gen_bits_and_the_persisted_mark(self):
        self.assertEqual(inputs.policy_label(chaos_cell("cas", "clock-sequence", GEN1)),
                         "clock-sequence gen=1")
        self.assertEqual(inputs.policy_label(chaos_cell(RULE, "clock-sequence", persist=True)),
                         "clock-sequence + persisted mark")
        self.assertEqual(inputs.policy_label({"policy": "refuse"}), "refuse")
        # A cell that could not run has its layout at the top level (chaos/matrix_json.cpp).
        self.assertEqual(inputs.policy_label({"policy": "clock-sequence", "layout": GEN2}),
                         "clock-sequence gen=2")

    def test_the_clock_sequence_cells_have_timelines_beside_the_other_policies(self):
        groups = content._timeline_groups(results().chaos)
        snowflake = [inputs.policy_label(c) for c in groups[("ntp-step-back", "cas")]]
        self.assertIn("clock-sequence gen=2", snowflake)
        self.assertIn("clock-sequence gen=1", snowflake)
        self.assertIn("refuse", snowflake)
        self.assertEqual(len(groups[("ntp-step-back", RULE)]), 2)
        # The rule's own figure follows the Snowflake figure of the same scenario.
        keys = list(groups)
        self.assertEqual(keys.index(("ntp-step-back", RULE)),
                         keys.index(("ntp-step-back", "cas")) + 1)

    def test_the_chaos_section_has_the_rule_s_figure_and_table_rows(self):
        report = content.build_report(results())
        figures = {f.id: f for f in report.figures()}
        self.assertIn(f"timeline-ntp-step-back-{RULE}", figures)
        self.assertIn("clock-sequence", figures[f"timeline-ntp-step-back-{RULE}"].caption)
        chaos = next(s for s in report.sections if s.id == "chaos")
        table = next(t for kind, t in chaos.blocks if kind == "table")
        self.assertIn("clock-sequence gen=1", [r[2] for r in table.rows])
        cells = report.summary["chaos"]["cells"]
        self.assertEqual(sorted(str(c["gen_bits"]) for c in cells
                                if c["variant"] == "cas" and c["policy"] == "clock-sequence"),
                         ["1", "2"])


class ClockSequenceGateTest(unittest.TestCase):
    def test_each_gen_layout_is_compared_with_its_own_base_cell(self):
        import compare
        ran, failed = {"promise_kept": True, "duplicates": 0}, {"error": "node 1 exited"}
        base = inputs.load_chaos({"cells": [
            chaos_cell("cas", "clock-sequence", GEN2, **ran),
            dict(chaos_cell("cas", "clock-sequence", GEN1), **failed)]})
        new = inputs.load_chaos({"cells": [
            dict(chaos_cell("cas", "clock-sequence", GEN2), **failed),
            dict(chaos_cell("cas", "clock-sequence", GEN1), **failed)]})
        _, findings, compared = compare.compare_chaos(base, new)
        self.assertEqual(compared, 2)
        self.assertEqual([f.what for f in findings if f.regression],
                         ["ntp-step-back · cas · clock-sequence gen=2: could not run: "
                          "node 1 exited"])


class ClockSequencePanelTest(unittest.TestCase):
    def setUp(self):
        try:
            import charts  # noqa: F401
        except ImportError:
            self.skipTest("python3-matplotlib is missing")

    def test_panels_put_clock_sequence_after_borrow_and_name_its_gen_bits(self):
        import charts
        cells = [chaos_cell("cas", p) for p in ("unsafe", "borrow", "refuse")] + [
            chaos_cell("cas", "clock-sequence", GEN1), chaos_cell("cas", "clock-sequence", GEN2)]
        order = [inputs.policy_label(c) for c in sorted(cells, key=charts._policy_rank)]
        self.assertEqual(order, ["refuse", "borrow", "clock-sequence gen=1",
                                 "clock-sequence gen=2", "unsafe"])
        svg = charts.timeline_chart("ntp-step-back", cells)
        self.assertIn("clock-sequence gen=1:", svg)
        self.assertIn("clock-sequence gen=2:", svg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
