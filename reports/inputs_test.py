#!/usr/bin/python3
"""inputs_test.py — the tolerant readers (inputs.py) and the number formats (units.py).

    /usr/bin/python3 reports/inputs_test.py
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import unittest

import inputs
import units as u


class BenchNameTest(unittest.TestCase):
    def test_variant_benchmarks_parse_into_their_parts(self):
        self.assertEqual(inputs.parse_bench_name("generate/cas/twitter/threads:8", 8),
                         ("generate", "cas", "twitter", 8))
        self.assertEqual(inputs.parse_bench_name("load/uuidv7-random/wide/threads:2", 2),
                         ("load", "uuidv7-random", "wide", 2))

    def test_real_time_suffix_is_ignored(self):
        self.assertEqual(inputs.parse_bench_name("generate/cas/wide/threads:2/real_time", 2),
                         ("generate", "cas", "wide", 2))

    def test_baselines_take_threads_from_the_name_or_the_entry(self):
        self.assertEqual(inputs.parse_bench_name("baseline/fetch_add/threads:4", 4),
                         ("baseline", "fetch_add", None, 4))
        self.assertEqual(inputs.parse_bench_name("baseline/clock_gettime", 1),
                         ("baseline", "clock_gettime", None, 1))

    def test_unknown_names_are_not_guessed(self):
        self.assertIsNone(inputs.parse_bench_name("BM_Something/64", 1))


class BenchLoadTest(unittest.TestCase):
    def entry(self, name, **kw):
        e = {"name": name, "run_name": name, "run_type": "iteration", "threads": 1,
             "real_time": 10.0, "time_unit": "ns"}
        e.update(kw)
        return e

    def test_median_over_repetitions_and_aggregates_are_kept_apart(self):
        doc = {"context": {}, "benchmarks": [
            self.entry("generate/cas/twitter/threads:1", ids_per_s=v) for v in (1.0, 3.0, 2.0)
        ] + [dict(self.entry("generate/cas/twitter/threads:1", ids_per_s=99.0),
                  name="generate/cas/twitter/threads:1_median", run_type="aggregate",
                  aggregate_name="median")]}
        b = inputs.load_bench(doc)
        r = b.runs["generate/cas/twitter/threads:1"]
        self.assertEqual(r.repetitions, 3)
        self.assertEqual(r.median("ids_per_s"), 2.0)

    def test_aggregates_only_files_fall_back_to_the_median_aggregate(self):
        doc = {"benchmarks": [dict(self.entry("baseline/clock_gettime", ids_per_s=7.0),
                                   run_type="aggregate", aggregate_name="median")]}
        b = inputs.load_bench(doc)
        self.assertEqual(b.runs["baseline/clock_gettime"].median("ids_per_s"), 7.0)
        self.assertIn("bench.json has no context block: machine, commit and date unknown",
                      b.problems)

    def test_a_skipped_benchmark_keeps_its_error(self):
        doc = {"benchmarks": [self.entry("generate/mutex/wide/threads:2", error_occurred=True,
                                         error_message="duplicate ID")]}
        self.assertEqual(inputs.load_bench(doc).runs["generate/mutex/wide/threads:2"].error,
                         "duplicate ID")

    def test_cap_per_node_comes_from_the_context(self):
        b = inputs.load_bench({"context": {"idbench_layout_twitter": "ts=41; cap 4096000 IDs/s "
                                                                     "per node id"},
                               "benchmarks": []})
        self.assertEqual(b.layout_cap_per_s("twitter"), 4096000.0)
        self.assertIsNone(b.layout_cap_per_s("wide"))


RUN_CONTEXT = {"idbench_version": 1, "commit": "a" * 40, "dirty": True, "build_type": "Release",
               "compiler": "GNU 12.2.0", "sanitizers": "", "host": "h", "os": "Linux",
               "cpu_model": "cpu", "cpus": 2, "started_utc": "2026-12-01T14:00:00Z",
               "load_avg_1m": 0.5, "clock_source": "tsc"}


class RunContextTest(unittest.TestCase):
    """One schema in all three files: bench.json as JSON text in its context (Google Benchmark
    keeps strings there), locality.json and chaos.json as their "context" object."""

    def test_the_same_block_is_read_from_every_file(self):
        b = inputs.load_bench({"context": {"idbench_run_context": json.dumps(RUN_CONTEXT)},
                               "benchmarks": []})
        loc = inputs.load_locality({"context": RUN_CONTEXT, "matrix": [], "validation": None})
        ch = inputs.load_chaos({"context": RUN_CONTEXT, "cells": []})
        self.assertEqual([b.run_context, loc.run_context, ch.run_context], [RUN_CONTEXT] * 3)

    def test_a_context_of_another_schema_is_not_guessed_from(self):
        old = {"host": "vm", "commit": "7af609932464f44fb42fcd81251d78ec9d1c613a+dirty"}
        loc = inputs.load_locality({"context": old, "matrix": [], "validation": None})
        self.assertIsNone(loc.run_context)
        self.assertIn("locality.json has no context block: machine, commit and date unknown",
                      loc.problems)
        b = inputs.load_bench({"context": {"idbench_run_context": "{not json"}, "benchmarks": []})
        self.assertIsNone(b.run_context)

    def test_the_commit_is_written_one_way(self):
        import content
        self.assertEqual(content.commit_text(RUN_CONTEXT), "a" * 12 + "-dirty")
        self.assertEqual(content.commit_text(dict(RUN_CONTEXT, dirty=False)), "a" * 12)
        self.assertEqual(content.commit_text(dict(RUN_CONTEXT, commit="unknown")), "–")


class LocalityLoadTest(unittest.TestCase):
    def test_a_partial_matrix_says_so(self):
        loc = inputs.load_locality({"context": RUN_CONTEXT, "complete": False, "matrix": []})
        self.assertTrue(any("locality.json is a partial matrix" in p for p in loc.problems))
        loc = inputs.load_locality({"context": RUN_CONTEXT, "complete": True, "matrix": [],
                                    "validation": None})
        self.assertFalse(any("partial" in p for p in loc.problems))


class DescriptionTest(unittest.TestCase):
    def test_list_json_is_read_in_registry_order_and_grouped_by_scheme(self):
        d = inputs.parse_description(json.dumps({"variants": [
            {"name": "b", "scheme": "S"}, {"name": "a", "scheme": ""}, {"name": "c", "scheme": "S"},
            {"summary": "no name: ignored"}]}))
        self.assertEqual(d.names(), ["b", "a", "c"])
        self.assertEqual(d.schemes(), {"S": ["b", "c"]})
        self.assertEqual(d.get("zzz"), {})

    def test_a_bench_without_one_says_so(self):
        b = inputs.load_bench({"context": {}, "benchmarks": []})
        self.assertIsNone(b.description)
        self.assertTrue(any("no variant description" in p for p in b.problems))


class ChaosLoadTest(unittest.TestCase):
    def test_a_single_run_json_is_one_cell(self):
        run = {"scenario": "ntp-step-back", "variant": "cas", "policy": "refuse", "nodes": 2,
               "ids": 10, "duplicates": 0, "promise_kept": True, "context": RUN_CONTEXT}
        ch = inputs.load_chaos(run)
        self.assertEqual(len(ch.cells), 1)
        self.assertEqual(ch.run_context, RUN_CONTEXT)
        self.assertTrue(any("lack" in p for p in ch.problems))

    def test_a_partial_matrix_says_how_far_it_got(self):
        ch = inputs.load_chaos({"context": {}, "config": {"cells": 100}, "complete": False,
                                "cells": [{"scenario": "skew"}]})
        self.assertIn("chaos.json is a partial matrix: 1 of 100 cells ran (complete: false)",
                      ch.problems)

    def test_cells_are_keyed_with_the_persisted_mark(self):
        a = {"scenario": "s", "variant": "v", "policy": "p"}
        self.assertNotEqual(inputs.cell_key(a), inputs.cell_key(dict(a, persist=True)))

    def test_clock_sequence_cells_are_keyed_with_their_gen_bits(self):
        # The matrix runs a Snowflake variant under clock-sequence on two layouts (gen=2, gen=1):
        # two cells, not one. A cell that ran has its layout in its config; one that could not
        # run has it at the top level: the same cell either way.
        a = {"scenario": "s", "variant": "v", "policy": "clock-sequence"}
        gen2 = dict(a, config={"layout": "ts=41,node=8,gen=2,seq=12"})
        gen1 = dict(a, config={"layout": "ts=41,node=9,gen=1,seq=12"})
        self.assertNotEqual(inputs.cell_key(gen2), inputs.cell_key(gen1))
        self.assertEqual(inputs.cell_key(gen1),
                         inputs.cell_key(dict(a, layout="ts=41,node=9,gen=1,seq=12")))
        self.assertEqual(inputs.cell_key(dict(a, config={"layout": "twitter"})),
                         inputs.cell_key(a))


class ReadJsonTest(unittest.TestCase):
    def test_missing_and_corrupt_files_are_sentences(self):
        with tempfile.TemporaryDirectory() as d:
            doc, err = inputs.read_json(os.path.join(d, "chaos.json"))
            self.assertIsNone(doc)
            self.assertIn("chaos.json is missing (written by ./run.sh chaos", err)
            with open(os.path.join(d, "bench.json"), "w") as f:
                f.write('{"benchmarks": [')
            doc, err = inputs.read_json(os.path.join(d, "bench.json"))
            self.assertIn("not valid JSON", err)
            with open(os.path.join(d, "locality.json"), "w") as f:
                json.dump({"matrix": []}, f)
            doc, err = inputs.read_json(os.path.join(d, "locality.json"))
            self.assertEqual(doc, {"matrix": []})


class UnitsTest(unittest.TestCase):
    def test_numbers_and_their_absence(self):
        self.assertIsNone(inputs.number(None))
        self.assertIsNone(inputs.number(True))
        self.assertIsNone(inputs.number(math.nan))
        self.assertEqual(inputs.number(3), 3.0)
        self.assertEqual(u.si(None), "–")
        self.assertEqual(u.si(4_096_000), "4.1 M")
        self.assertEqual(u.si(999.4), "999")
        self.assertEqual(u.duration_ns(41.2), "41 ns")
        self.assertEqual(u.duration_ns(4_051_315), "4.05 ms")
        self.assertEqual(u.percent(0.9375), "93.8 %")
        self.assertEqual(u.count(1234567), "1\u2009234\u2009567")
        self.assertEqual(u.change(-0.3), "−30.0 %")
        self.assertEqual(u.duration_ms(999.96), "1 s")
        self.assertEqual(u.duration_ms(2.5), "2.5 ms")


if __name__ == "__main__":
    unittest.main(verbosity=2)
