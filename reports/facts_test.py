#!/usr/bin/python3
"""facts_test.py — the one table of facts every view reads: what becomes a subject, that every
fact names its source, and that a missing or malformed input is a sentence, not a crash."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import facts as F  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")


class FactsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="facts-test.")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy(self, *names):
        for n in names:
            shutil.copy(os.path.join(TESTDATA, n), self.tmp)

    def test_every_fact_names_a_file_and_a_cell(self):
        f = F.load_facts(TESTDATA)
        self.assertGreater(len(f.facts), 100)
        files = ("bench.json ", "locality.json ", "chaos.json ", "real_chaos.json ")
        for x in f.facts:
            self.assertTrue(x.source.startswith(files), x)
            self.assertRegex(x.source, r"\S+ \S+", x)

    def test_a_stand_in_is_no_subject_when_its_real_system_was_measured(self):
        f = F.load_facts(TESTDATA)
        # auto-increment is the in-process lower bound of MariaDB's AUTO_INCREMENT, which the
        # real bench measured: the system is the subject, the stand-in only lends its keys.
        self.assertIn("mariadb-auto-increment", f.subjects)
        self.assertNotIn("AUTO_INCREMENT", f.subjects)
        self.assertEqual(f.subjects["mariadb-auto-increment"].stand_in, "auto-increment")
        self.assertTrue(f.where(variant="auto-increment", metric="leaf_fill"))
        self.assertEqual(f.subjects["mariadb-auto-increment"].family, "counter")

    def test_without_the_real_bench_the_stand_in_is_a_subject(self):
        self.copy("locality.json", "chaos.json")
        doc = json.load(open(os.path.join(TESTDATA, "bench.json")))
        del doc["real_systems"]
        json.dump(doc, open(os.path.join(self.tmp, "bench.json"), "w"))
        f = F.load_facts(self.tmp)
        self.assertIn("AUTO_INCREMENT", f.subjects)
        self.assertIn("lower bound", f.subjects["AUTO_INCREMENT"].summary)

    def test_a_real_system_is_ranked_on_its_own_figure_not_the_harness_hop(self):
        # The adapter times the system itself (system_side); the end-to-end figure carries the
        # harness's pipe hop, which no application pays. The matrix and advise ranked on the
        # latter and so put every real system about a third slower than it is.
        self.copy("locality.json", "chaos.json")
        doc = json.load(open(os.path.join(TESTDATA, "bench.json")))
        cell = doc["real_systems"]["cells"][0]
        cell["system_side"] = {"ids_per_s": 2 * cell["ids_per_s"],
                               "ids_per_s_per_client": 2 * cell["ids_per_s"],
                               "latency_ns": {"p50": 1000, "p99": 2000, "p999": 3000,
                                              "max": 4000}}
        json.dump(doc, open(os.path.join(self.tmp, "bench.json"), "w"))
        f = F.load_facts(self.tmp)
        src = "bench.json real_systems.cells[0]"
        rate = [x for x in f.where(metric="ids_per_s") if x.source == src]
        p99 = [x for x in f.where(metric="p99_ns") if x.source == src]
        self.assertEqual([x.value for x in rate], [2 * cell["ids_per_s"]])
        self.assertEqual([x.value for x in p99], [2000])
        self.assertIn("own", rate[0].note)
        other = [x for x in f.where(metric="ids_per_s")
                 if x.source == "bench.json real_systems.cells[2]"]
        self.assertEqual([x.value for x in other], [doc["real_systems"]["cells"][2]["ids_per_s"]])
        self.assertIn("end to end", other[0].note)

    def test_each_variant_keeps_its_own_description(self):
        f = F.load_facts(TESTDATA)
        self.assertEqual(f.described["uuidv4"].ordering, "none")
        self.assertEqual(f.described["cas"].width_bits, 64)
        self.assertEqual(f.subjects["Snowflake"].variants[:2], ["mutex", "cas"])

    def test_index_facts_carry_their_point(self):
        f = F.load_facts(TESTDATA)
        fills = f.where(variant="cas", metric="leaf_fill", engine=F.MODEL)
        self.assertEqual({(x.row_bytes, x.writers) for x in fills},
                         {(0, 1), (0, 8), (100, 1), (100, 8)})
        pg = f.where(variant="uuidv4", metric="leaf_fill", engine="postgresql")
        self.assertTrue(pg and all(x.source.startswith("locality.json validation[")
                                   for x in pg))

    def test_a_missing_input_is_one_sentence_each(self):
        self.copy("bench.json", "chaos.json")
        f = F.load_facts(self.tmp)
        self.assertEqual(len(f.missing), 1)
        self.assertIn("locality.json", f.missing[0])
        self.assertFalse([x for x in f.where(metric="leaf_fill", engine=F.MODEL)
                          if x.source.startswith("locality.json")])
        self.assertTrue(f.where(metric="ids_per_s"))

    def test_an_empty_directory_gives_no_facts_and_no_exception(self):
        f = F.load_facts(self.tmp)
        self.assertEqual(f.facts, [])
        self.assertGreaterEqual(len(f.missing), 3)

    def test_a_malformed_input_is_a_sentence(self):
        self.copy("bench.json", "chaos.json")
        with open(os.path.join(self.tmp, "locality.json"), "w") as out:
            out.write('{"matrix": [')
        f = F.load_facts(self.tmp)
        self.assertTrue(any("locality.json" in m for m in f.missing + f.problems))

    def test_the_step_back_that_was_measured_is_said(self):
        f = F.load_facts(TESTDATA)
        self.assertIn("5 s", f.step_back)
        self.assertIn("time scale 0.5", f.step_back)


if __name__ == "__main__":
    unittest.main()
