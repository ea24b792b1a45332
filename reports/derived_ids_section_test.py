#!/usr/bin/python3
"""derived_ids_section_test.py — the worker-id section of the report: where each derivation
breaks is shown (the pid's collision at two processes marked bad, the lease never), one chart
per derivation is drawn, the etcd column waits for its measurement, and a missing or malformed
derived_ids.json is a sentence, never a crash.

    /usr/bin/python3 reports/derived_ids_section_test.py
"""
from __future__ import annotations

import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import testsupport  # noqa: E402

testsupport.require("matplotlib", "scipy")

import content  # noqa: E402
import inputs  # noqa: E402
import derived_ids_section as ws  # noqa: E402
from document import BAD, GOOD  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def testdata() -> dict:
    with open(os.path.join(HERE, "testdata", ws.FILE)) as f:
        return json.load(f)


class Run:
    """A results directory with the small real inputs, and derived_ids.json as given."""

    def __init__(self, doc):
        self.dir = tempfile.mkdtemp(prefix="idbench-derived-ids-test-")
        for name in ("bench.json", "locality.json", "chaos.json"):
            shutil.copy(os.path.join(HERE, "testdata", name), self.dir)
        if doc is not None:
            with open(os.path.join(self.dir, ws.FILE), "w") as f:
                f.write(doc if isinstance(doc, str) else json.dumps(doc))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir)

    def section(self):
        report = content.build_report(inputs.load_results(self.dir))
        return report, next(s for s in report.sections if s.id == "derived-ids")

    def drawn(self) -> tuple[dict, dict]:
        """The section alone, its figures drawn: ({figure id: "drawn" or why not}, summary)."""
        import charts
        summary: dict = {}
        results = inputs.load_results(self.dir)
        section = ws.derived_ids_section(results.derived_ids,
                                         results.unread.get(ws.FILE),
                                         content.Figures(charts, ""), summary)
        out = {}
        for f in blocks(section, "figure"):
            try:
                out[f.id] = "drawn" if f.draw and f.draw().startswith("<svg") else f.error
            except Exception as e:  # noqa: BLE001 — the report's _draw catches these too
                out[f.id] = f"{type(e).__name__}: {e}"
        return out, summary


def blocks(section, kind):
    return [x for k, x in section.blocks if k == kind]


def row(table, derivation, plan, bits):
    return next(r for r in table.rows
                if r[0] == derivation and r[1] == plan and r[2].startswith(f"{bits} "))


class WorkerIdSectionTest(unittest.TestCase):
    def test_where_each_derivation_breaks(self):
        with Run(testdata()) as run:
            report, section = run.section()
        breaks = blocks(section, "table")[0]
        self.assertEqual(row(breaks, "pid", "any", 10)[3], ("2", BAD))
        self.assertEqual(row(breaks, "lease", "any", 10)[3][1], GOOD)
        self.assertIn("never", row(breaks, "lease", "any", 10)[3][0])
        # Sonyflake's default on a /16 cluster: never, while the plan has room.
        self.assertEqual(row(breaks, "ip", "k8s-/16", 16)[3][1], GOOD)
        self.assertEqual(row(breaks, "mac", "any", 10)[4], "38")  # the birthday bound
        self.assertTrue(all(r[5][1] == GOOD for r in breaks.rows if isinstance(r[5], tuple)))
        pid = next(b for b in report.summary["derived_ids"]["breaks"]
                   if b["derivation"] == "pid" and b["bits"] == 10)
        self.assertEqual(pid["n_1pct"], 2)

    def test_claim_costs_and_the_etcd_column_waiting_for_its_measurement(self):
        with Run(testdata()) as run:
            _, section = run.section()
        claims = blocks(section, "table")[1]
        n1000 = next(r for r in claims.rows if r[0] == "1\u2009000")
        self.assertEqual(n1000[1], "24")  # never released: 1,024 - 1,000 restarts
        self.assertEqual(n1000[6], "300")  # renewals/s at TTL 10 s
        self.assertEqual(n1000[7], ws.ETCD_PENDING)
        doc = copy.deepcopy(testdata())
        doc["claims"]["rows"][-1]["etcd_writes_per_s_measured"] = 12345.0
        with Run(doc) as run:
            _, section = run.section()
        self.assertEqual(blocks(section, "table")[1].rows[-1][7], "12.3 k")

    def test_one_chart_per_derivation_is_drawn(self):
        with Run(testdata()) as run:
            drawn, _ = run.drawn()
        self.assertEqual(sorted(drawn), ["derived-ids-ip", "derived-ids-lease", "derived-ids-mac",
                                         "derived-ids-pid"])
        self.assertEqual(set(drawn.values()), {"drawn"})

    def test_missing_file_says_not_run(self):
        with Run(None) as run:
            report, section = run.section()
        # One sentence, the section's opening; nothing folded under it.
        self.assertIn(f"{ws.FILE} is missing (written by ./run.sh derived-ids)", section.takeaway)
        self.assertEqual(section.blocks, [])
        self.assertFalse(report.summary["derived_ids"]["present"])

    def test_malformed_file_is_a_sentence(self):
        for doc in ("{not json", [1, 2], {"schema": "other"},
                    {"schema": ws.SCHEMA, "curves": "x"}):
            with Run(doc) as run:
                _, section = run.section()
            self.assertFalse(blocks(section, "figure"), doc)
            self.assertIn(ws.FILE, section.takeaway, doc)

    def test_malformed_fields_are_dashes_not_crashes(self):
        doc = copy.deepcopy(testdata())
        doc["curves"][0]["n_1pct"] = "soon"
        doc["curves"][0]["points"][0] = {"n": "x", "p": None, "ci": "wide"}
        doc["curves"].append("junk")
        doc["claims"]["rows"][0] = {"n": "ten"}
        doc["claims"]["crash_share"] = "some"
        doc["widths"] = None
        with Run(doc) as run:
            _, section = run.section()
            drawn, summary = run.drawn()
        self.assertEqual(blocks(section, "table")[1].rows[0][0], "–")
        self.assertEqual(drawn["derived-ids-ip"], "drawn")
        self.assertIsNone(summary["derived_ids"]["breaks"][0]["n_1pct"])


if __name__ == "__main__":
    unittest.main()
