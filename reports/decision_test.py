#!/usr/bin/python3
"""decision_test.py — the decision table and the chart colours come from the variant description
the results carry (each variant's `scheme`, `time_based`, and the registry order), not from names
written into reports/.

Each test edits the description embedded in the testdata's bench.json (context key
idbench_variants) and checks that the table or the charts follow it.

    /usr/bin/python3 reports/decision_test.py
"""
from __future__ import annotations

import copy
import json
import os
import unittest

import decision
import inputs

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata")
SCRATCH = "scratch-variant"
CLOCK = -1  # the clock-faults column, the last


def testdata(name: str) -> dict:
    with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
        return json.load(f)


def results(bench: dict) -> inputs.Results:
    return inputs.Results("testdata", inputs.load_bench(bench),
                          inputs.load_locality(testdata("locality.json")),
                          inputs.load_chaos(testdata("chaos.json")))


def description(bench: dict) -> list[dict]:
    return json.loads(bench["context"]["idbench_variants"])["variants"]


def set_description(bench: dict, variants: list[dict]) -> None:
    bench["context"]["idbench_variants"] = json.dumps({"variants": variants})


def with_scratch_variant(scheme: str, first: bool = False) -> dict:
    """The testdata bench with a variant no file in reports/ names: described (scheme `scheme`,
    reads a clock) and measured (a copy of another variant's generate/ runs)."""
    bench = testdata("bench.json")
    variants = description(bench)
    template = copy.deepcopy(variants[1])
    template.update(name=SCRATCH, scheme=scheme, summary="a scratch variant")
    set_description(bench, [template] + variants if first else variants + [template])
    source = variants[1]["name"]
    bench["benchmarks"] += [dict(copy.deepcopy(e), name=e["name"].replace(f"/{source}/",
                                                                        f"/{SCRATCH}/"),
                                 run_name=e["run_name"].replace(f"/{source}/", f"/{SCRATCH}/"))
                            for e in bench["benchmarks"]
                            if e["name"].startswith(f"generate/{source}/")]
    return bench


def rows(bench: dict) -> dict[str, list]:
    table, _, _ = decision.decision_table(results(bench))
    return {r[0]: r for r in table.rows}


class DecisionTableTest(unittest.TestCase):
    def test_the_testdata_description_gives_the_seeds_five_rows_and_dce(self):
        # DCE: the row of the 1994 clock-sequence rule, there even before its variants ran.
        self.assertEqual(list(rows(testdata("bench.json"))),
                         ["AUTO_INCREMENT", "UUIDv4", "ticket server", "Snowflake (thread-local)",
                          "UUIDv7", "DCE"])

    def test_rows_group_variants_by_their_scheme_field(self):
        # Move every variant of one scheme to another: the rows follow the description.
        bench = testdata("bench.json")
        variants = description(bench)
        moved = [v["name"] for v in variants if v["scheme"] == "UUIDv7"]
        self.assertTrue(moved)
        for v in variants:
            if v["scheme"] == "UUIDv7":
                v["scheme"] = "Snowflake"
        set_description(bench, variants)
        t, data, _ = decision.decision_table(results(bench))
        by_scheme = {d["scheme"]: d["variants"] for d in data}
        self.assertTrue(set(moved) <= set(by_scheme["Snowflake"]), by_scheme)
        self.assertEqual(by_scheme["UUIDv7"], [])
        self.assertEqual(rows(bench)["UUIDv7"][5], "not measured")

    def test_a_variant_only_the_description_names_gets_its_scheme_s_row(self):
        r = rows(with_scratch_variant("Scratch scheme"))
        self.assertIn("Scratch scheme", r)
        row = r["Scratch scheme"]
        self.assertEqual(row[4], decision.NOT_IN_THE_TABLE.pick_when)
        self.assertRegex(row[5], r"^\d")  # IDs/s measured, from the bench's runs
        self.assertEqual(row[CLOCK], "not in this chaos matrix")  # it reads a clock

    def test_a_variant_joining_a_seeds_scheme_competes_for_its_row(self):
        r = rows(with_scratch_variant("UUIDv7"))
        self.assertNotIn("Scratch scheme", r)
        self.assertTrue(any(name.startswith("UUIDv7 (") for name in r), list(r))

    def test_without_a_description_each_measured_variant_has_a_row_of_its_own(self):
        bench = testdata("bench.json")
        del bench["context"]["idbench_variants"]
        res = results(bench)
        self.assertTrue(any("no variant description" in p for p in res.problems()))
        r = rows(bench)
        self.assertIn("(cas)", r)
        self.assertEqual(r["Snowflake"][5], "not measured")

    def test_no_clock_comes_from_time_based(self):
        bench = testdata("bench.json")
        self.assertEqual(rows(bench)["UUIDv4"][CLOCK], "no clock: not in the chaos matrix")
        variants = description(bench)
        for v in variants:
            if v["scheme"] == "UUIDv4":
                v["time_based"] = True
        set_description(bench, variants)
        self.assertEqual(rows(bench)["UUIDv4"][CLOCK], "not in this chaos matrix")


def program_cell(system: str, scenario: str, word: str) -> dict:
    """A chaos cell of a real system's program (chaos --matrix --systems), as the matrix
    writes it: its verdict a finding about the program."""
    return {"scenario": scenario, "variant": system, "policy": "its own", "nodes": 2,
            "ids": 1000, "duplicates": 0 if word == "kept" else 9, "order_violations": 0,
            "refusals": 0, "availability": 1.0, "max_stall_ms": 0, "ksort_bound_ms": 0,
            "promise_kept": word == "kept", "system": system, "scheme": "Snowflake",
            "fault_verdict": {"verdict": word, "passed": word == "kept"}}


class ProgramsUnderClockFaultsTest(unittest.TestCase):
    """A real system's program in the chaos matrix joins its scheme's clock-faults cell, and
    only there: the chaos sections and the gate read idbench's own variants."""

    def test_a_scheme_s_programs_are_counted_in_its_clock_cell(self):
        doc = testdata("chaos.json")
        own = len(doc["cells"])
        doc["cells"] += [program_cell("node-a", "ntp-step-back", "BROKEN"),
                         program_cell("node-b", "ntp-step-back", "kept")]
        r = inputs.Results("testdata", inputs.load_bench(testdata("bench.json")),
                           inputs.load_locality(testdata("locality.json")),
                           inputs.load_chaos(doc))
        self.assertEqual(len(r.chaos.cells), own)
        self.assertEqual([c["system"] for c in r.chaos.programs], ["node-a", "node-b"])
        table, data, notes = decision.decision_table(r)
        row = {x[0]: x for x in table.rows}["Snowflake (thread-local)"]
        clock = row[CLOCK][0] if isinstance(row[CLOCK], tuple) else row[CLOCK]
        self.assertIn("real programs: 1 of 2 not kept", clock)
        self.assertIsInstance(row[CLOCK], tuple, "a program not kept marks the cell bad")
        # One note per program, peers of the row: each fault's verdict and its figures.
        lines = [n for n in decision.cell_notes(row[CLOCK], notes) if n.startswith("node-")]
        self.assertEqual(lines, [
            "node-a, the library in its own process, under clock faults: ntp-step-back BROKEN "
            "(9 duplicates in 1\u2009000 IDs, availability 100 %)",
            "node-b, the library in its own process, under clock faults: ntp-step-back kept "
            "(0 duplicates in 1\u2009000 IDs, availability 100 %)"])
        snow = [d for d in data if d.get("programs_under_clock_faults")]
        self.assertEqual(snow[0]["programs_under_clock_faults"],
                         {"node-a": {"ntp-step-back": "BROKEN"},
                          "node-b": {"ntp-step-back": "kept"}})
        for other, x in {k: v for k, v in rows(testdata("bench.json")).items()}.items():
            self.assertNotIn("real programs", str(x[CLOCK]), other)


class ColourTest(unittest.TestCase):
    def setUp(self):
        try:
            __import__("charts")
        except ImportError:
            self.skipTest("python3-matplotlib is missing")

    def test_colours_follow_the_description_s_order(self):
        import charts
        bench = with_scratch_variant("Scratch scheme", first=True)
        res = results(bench)
        charts.set_variant_order(res.description.names())
        self.assertEqual(charts.colour_of(SCRATCH), charts._PALETTE[0])
        second = res.description.names()[1]
        self.assertEqual(charts.colour_of(second), charts._PALETTE[1])
        svg = charts.throughput_chart(res.bench)
        self.assertIn(SCRATCH, svg)
        self.assertIn(charts._PALETTE[0], svg)


if __name__ == "__main__":
    unittest.main(verbosity=2)
