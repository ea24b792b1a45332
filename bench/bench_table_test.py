#!/usr/bin/python3
"""bench_table_test.py — bench_table.py's targets follow the variant description in bench.json,
not names written into the script.

    /usr/bin/python3 bench/bench_table_test.py
"""
import copy
import json
import os
import unittest

import bench_table

TESTDATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reports", "testdata",
                        "bench.json")


def bench():
    with open(TESTDATA, encoding="utf-8") as f:
        return json.load(f)


def targets(doc):
    rows = {b.get("run_name", b["name"]): b for b in doc["benchmarks"]}
    results, info = bench_table.check_targets(rows, bench_table.described(doc["context"]),
                                              doc["context"])
    return {text: ok for text, ok, _ in results}, info


class TargetsTest(unittest.TestCase):
    def test_a_scratch_variant_described_with_a_layout_gets_the_cap_target(self):
        doc = bench()
        desc = json.loads(doc["context"]["idbench_variants"])
        snowflake = next(v for v in desc["variants"] if v["id_time"] == "layout")
        desc["variants"].append(dict(copy.deepcopy(snowflake), name="scratch"))
        doc["context"]["idbench_variants"] = json.dumps(desc)
        source = snowflake["name"]
        doc["benchmarks"] += [dict(copy.deepcopy(b), name=b["name"].replace(f"/{source}/", "/scratch/"),
                                   run_name=b["run_name"].replace(f"/{source}/", "/scratch/"))
                              for b in doc["benchmarks"] if f"/{source}/" in b["name"]]
        found, _ = targets(doc)
        self.assertIn("scratch 1 thread twitter cap_ratio >= 0.99", found)
        # The wide layout's cap is out of reach by design: no cap target there.
        self.assertNotIn("scratch 1 thread wide cap_ratio >= 0.99", found)

    def test_without_a_description_no_variant_target_is_checked(self):
        doc = bench()
        del doc["context"]["idbench_variants"]
        found, info = targets(doc)
        self.assertEqual(found, {})
        self.assertTrue(any("fetch_add" in line for line in info))

    def test_a_described_variant_that_did_not_run_is_left_out(self):
        doc = bench()
        found, _ = targets(doc)
        names = {v["name"] for v in json.loads(doc["context"]["idbench_variants"])["variants"]}
        measured = {n.split("/")[1] for n in (b["name"] for b in doc["benchmarks"])
                    if n.startswith("generate/")}
        for text in found:
            self.assertIn(text.split()[0], measured | {"fetch_add"}, text)
        self.assertTrue(names - measured)  # the testdata leaves some out


if __name__ == "__main__":
    unittest.main(verbosity=2)
