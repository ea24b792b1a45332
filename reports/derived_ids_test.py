#!/usr/bin/python3
"""derived_ids_test.py — the worker-id model with planted cases: derivations known to collide
are found colliding, those known not to are not, the exact probabilities fall inside the
simulation's interval (and a planted wrong formula falls outside it), the claim policies run
out of ids exactly when the closed forms say, and derived_ids_run.py's bad input is one line
and exit 2.

    /usr/bin/python3 reports/derived_ids_test.py
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import testsupport  # noqa: E402

testsupport.require("scipy", "numpy")

import numpy as np  # noqa: E402

import derived_ids as w  # noqa: E402
import id_claims as c  # noqa: E402
import derived_ids_run as run  # noqa: E402

PLAN = {p.name: p for p in w.PLANS}
D = 30  # pods per node


def rng(*key: int) -> np.random.Generator:
    return np.random.default_rng([15, *key])


class DerivationTest(unittest.TestCase):
    def test_pid_collides_in_every_trial_from_two_containers(self):
        self.assertEqual(w.simulate("pid", None, 2, [10, 16], 200, D, rng(1)), {10: 200, 16: 200})
        self.assertEqual(w.exact("pid", None, 10, 2, D), 1.0)

    def test_fresh_nodes_collide_at_ten_bits_once_a_fifth_node_joins(self):
        # Nodes 0 and 4 of a /16 cluster differ only above bit 9: both hand out .2 first.
        plan = PLAN["k8s-/16-fresh"]
        self.assertEqual(w.simulate("ip", plan, 120, [10], 100, D, rng(2)), {10: 0})  # 4 nodes
        self.assertEqual(w.simulate("ip", plan, 121, [10], 100, D, rng(3)), {10: 100})  # 5
        self.assertEqual(w.exact("ip", plan, 10, 120, D), 0.0)
        self.assertEqual(w.exact("ip", plan, 10, 121, D), 1.0)

    def test_sonyflake_default_never_collides_on_a_slash_16_cluster(self):
        # sony/sonyflake#63: a /16 pod CIDR makes the low 16 bits unique, even full.
        plan = PLAN["k8s-/16"]
        full = plan.max_nodes() * D
        self.assertEqual(w.simulate("ip", plan, full, [16], 100, D, rng(4)), {16: 0})
        self.assertEqual(w.exact("ip", plan, 16, full, D), 0.0)
        self.assertIsNone(w.crossing("ip", plan, 16, 0.01, D, full))

    def test_sonyflake_default_collides_past_256_nodes_of_a_slash_14(self):
        plan = PLAN["k8s-/14"]
        self.assertEqual(w.crossing("ip", plan, 16, 0.01, D, 1024 * D), 256 * D + 1)

    def test_lease_never_duplicates_and_refuses_past_the_space(self):
        self.assertEqual(w.simulate("lease", None, 1024, [10], 100, D, rng(5)), {10: 0})
        self.assertEqual(w.simulate("lease", None, 2000, [10], 100, D, rng(6)), {10: 0})
        self.assertEqual(w.lease_ids(np.arange(2000)[None, :], 10).shape, (1, 1024))
        self.assertEqual(w.exact("lease", None, 10, 2000, D), 0.0)


class ExactAgainstSimulationTest(unittest.TestCase):
    def inside(self, deriv, plan, bits, n, trials, seed):
        hits = w.simulate(deriv, plan, n, [bits], trials, D, rng(seed))[bits]
        lo, hi = w.clopper_pearson(hits, trials)
        return lo, w.exact(deriv, plan, bits, n, D), hi

    def test_birthday_bound_matches_random_macs(self):
        lo, e, hi = self.inside("mac", None, 10, 38, 2000, 7)
        self.assertGreater(e, 0.4)  # the case is near 50 %, where the interval is widest
        self.assertTrue(lo <= e <= hi, (lo, e, hi))

    def test_a_wrong_birthday_bound_falls_outside_the_interval(self):
        # Planted: the bound for one bit too many (2,048 ids) must be rejected.
        hits = w.simulate("mac", None, 38, [10], 2000, D, rng(7))[10]
        lo, hi = w.clopper_pearson(hits, 2000)
        wrong = w.birthday(38, 2 ** 11)
        self.assertFalse(lo <= wrong <= hi, (lo, wrong, hi))

    def test_node_classes_match_churned_nodes(self):
        lo, e, hi = self.inside("ip", PLAN["k8s-/16"], 10, 121, 1000, 8)
        self.assertTrue(0.05 < e < 0.999 and lo <= e <= hi, (lo, e, hi))

    def test_flat_block_matches(self):
        for plan, bits, n in (("vpc-/16", 10, 39), ("flat-/12", 16, 312)):
            lo, e, hi = self.inside("ip", PLAN[plan], bits, n, 1000, 9)
            self.assertTrue(0.3 < e < 0.7 and lo <= e <= hi, (plan, lo, e, hi))

    def test_crossing_is_the_first_fleet_past_the_target(self):
        n = w.crossing("mac", None, 16, 0.5, D, 10 ** 5)
        self.assertLess(w.birthday(n - 1, 2 ** 16), 0.5)
        self.assertGreaterEqual(w.birthday(n, 2 ** 16), 0.5)
        self.assertEqual(n, 302)  # the textbook 1.1774 * sqrt(65536) = 301.4


class ClaimPolicyTest(unittest.TestCase):
    def test_never_released_runs_out_after_space_minus_fleet_restarts(self):
        first_refused = c.run_restarts(1000, 1024, "never", 100, 1.0, crash_every=10 ** 9)
        self.assertEqual(first_refused, c.restarts_until_exhausted("never", 1000, 1024, 0) + 1)

    def test_clean_exit_release_leaks_only_crashes(self):
        first_refused = c.run_restarts(1000, 1024, "clean", 2000, 1.0, crash_every=20)
        expected = c.restarts_until_exhausted("clean", 1000, 1024, 1 / 20)  # 480
        self.assertEqual(first_refused, expected + 20)  # the 25th crash, at restart 500
        self.assertIsNone(c.run_restarts(1000, 1024, "clean", 2000, 1.0, crash_every=10 ** 9))

    def test_lease_exhausts_only_above_the_closed_form_rate(self):
        rate_per_s = c.lease_exhausting_rate_per_h(1000, 1024, 1.0, 10.0) / 3600  # 2.4 / s
        self.assertAlmostEqual(rate_per_s, 2.4)
        self.assertIsNone(c.run_restarts(1000, 1024, "lease", 3000, 1 / 2.0, 1, ttl_s=10.0))
        self.assertIsNotNone(c.run_restarts(1000, 1024, "lease", 3000, 1 / 2.5, 1, ttl_s=10.0))

    def test_renewals_and_generation_bits(self):
        self.assertEqual(c.renewals_per_s(1000, 30), 100)
        self.assertEqual(c.generation_cost(10, 3), {"gen_bits": 3, "node_ids": 128,
                                                    "claims_before_gen_repeats": 8})
        with self.assertRaises(ValueError):
            c.ClaimTable(1024, "sometimes")


DESCRIPTION = {"layouts": [{"name": "twitter", "max_node": 1023},
                           {"name": "sonyflake", "max_node": 65535}]}


class RunTest(unittest.TestCase):
    def main(self, *argv) -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = run.main(list(argv))
        return code, err.getvalue()

    def layouts(self, d: str, doc) -> str:
        path = os.path.join(d, "list.json")
        with open(path, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return path

    def test_bad_input_is_one_line_and_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "w.json")
            good = self.layouts(d, DESCRIPTION)
            cases = [("--layouts", good, "--out", out, "--trials", "5"),
                     ("--layouts", good, "--out", out, "--pods-per-node", "300"),
                     ("--layouts", os.path.join(d, "missing.json"), "--out", out),
                     ("--layouts", good),
                     ("--out", out),
                     ("--layouts", self.layouts(d, "{no json"), "--out", out),
                     ("--layouts", self.layouts(d, {"variants": []}), "--out", out),
                     ("--layouts", self.layouts(d, {"layouts": [{"name": "x", "max_node": 1000}]}),
                      "--out", out)]
            for argv in cases:
                code, err = self.main(*argv)
                self.assertEqual(code, 2, argv)
                self.assertEqual(len(err.strip().splitlines()), 1, (argv, err))
                self.assertTrue(err.startswith("derived-ids: "), err)
            self.assertFalse(os.path.exists(out))

    def test_a_missing_idbench_is_exit_4(self):
        code, err = self.main("--idbench", "/nonexistent/idbench", "--out", "/tmp/x.json")
        self.assertEqual(code, 4)
        self.assertIn("not an executable", err)

    def test_a_small_run_is_written_whole_and_reproducible(self):
        with tempfile.TemporaryDirectory() as d:
            docs = []
            for name in ("a.json", "b.json"):
                out = os.path.join(d, name)
                code, err = self.main("--layouts", self.layouts(d, DESCRIPTION), "--out", out,
                                      "--trials", "100", "--max-n", "64")
                self.assertEqual(code, 0, err)
                with open(out) as f:
                    docs.append(json.load(f))
            self.assertEqual(docs[0]["schema"], run.SCHEMA)
            self.assertEqual([x["bits"] for x in docs[0]["widths"]], [10, 16])
            self.assertEqual(docs[0]["curves"], docs[1]["curves"])  # seeded
            self.assertEqual(sorted(os.listdir(d)), ["a.json", "b.json", "list.json"])
            pid = next(x for x in docs[0]["curves"] if x["derivation"] == "pid")
            self.assertEqual(pid["n_1pct"], {"n": 2, "basis": "exact"})
            self.assertTrue(all(p["agrees"] is not False for x in docs[0]["curves"]
                                for p in x["points"]))


if __name__ == "__main__":
    unittest.main()
