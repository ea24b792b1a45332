#!/usr/bin/python3
"""advise_test.py — advise.py on planted results (testdata/planted) and testdata.

What is pinned down: the planted leaf fills decide the ranking (the 8-writer Snowflake above
UUIDv4 with key-only rows, below it with 1,000 B rows); a promise rules a subject out with the
measured reason and its source, a measured failure before a "not measured"; the rate and the
engine rule subjects out; a workload between measured points says which point answered it;
answers() carries what the page needs (engine_rules, a ranking per point); bad input exits 2
with one line.

    cd reports && /usr/bin/python3 advise_test.py
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import advise  # noqa: E402
from facts import load_facts  # noqa: E402

TESTDATA = os.path.join(HERE, "testdata")
PLANTED = os.path.join(TESTDATA, "planted")
ADVISE = os.path.join(HERE, "advise.py")

_FACTS = {}


def facts(directory=PLANTED):
    if directory not in _FACTS:
        _FACTS[directory] = load_facts(directory)
    return _FACTS[directory]


def answer(engine, row=0, writers=1, rate=0.0, musts=(), directory=PLANTED):
    return advise.advise(facts(directory),
                         advise.Workload(engine, row, writers, rate, list(musts)))


def labels(a):
    return [c.label for c, _ in a.ranked]


def ruled(a):
    return {label: (reason, source) for label, reason, source in a.ruled_out}


def run(*args):
    return subprocess.run([sys.executable, ADVISE, *args], capture_output=True, text=True,
                          timeout=120)


class RankingTest(unittest.TestCase):
    def test_planted_fills_rank_snowflake_above_uuidv4_only_with_key_only_rows(self):
        key_only = labels(answer("mariadb", 0, 8))
        wide = labels(answer("mariadb", 1000, 8))
        self.assertLess(key_only.index("Snowflake (cas)"), key_only.index("UUIDv4"))
        self.assertGreater(wide.index("Snowflake (cas)"), wide.index("UUIDv4"))
        # The whole 1,000 B order: highest fill at the point first (the planted 93 %, 66 %,
        # 48 %, 45 %), then fills measured elsewhere, then nothing measured.
        self.assertEqual(wide[:4], ["mariadb-auto-increment", "UUIDv4", "Snowflake (cas)",
                                    "UUIDv7"])
        self.assertEqual(wide[-1], "mariadb-ticket-update")

    def test_each_figure_names_its_source(self):
        a = answer("mariadb", 1000, 8)
        c, figs = a.ranked[2]
        self.assertEqual(c.label, "Snowflake (cas)")
        self.assertEqual([(f.label.split(" (")[0], f.text, f.source, f.at_point)
                          for f in figs[:2]],
                         [("leaf fill", "48 %", "locality.json matrix[11]", True),
                          ("splits / 1k inserts", "21.0", "locality.json matrix[11]", True)])
        for _, figs in a.ranked:
            self.assertTrue(3 <= len(figs) <= 5)
            self.assertTrue(all(f.source for f in figs))

    def test_each_subject_once(self):
        a = answer("mariadb", 0, 8)  # no promise, no rate: every subject placed
        subjects = [c.subject for c, _ in a.ranked]
        self.assertEqual(len(subjects), len(set(subjects)))
        self.assertEqual(sorted(subjects), sorted(facts().subjects))


class RuledOutTest(unittest.TestCase):
    def test_a_promise_rules_a_subject_out_with_its_measured_reason(self):
        a = answer("mariadb", 0, 8, musts=["64-bit"])
        self.assertEqual(ruled(a)["UUIDv4"],
                         ("64-bit: 128-bit", "bench.json context idbench_variants uuidv4"))
        self.assertNotIn("UUIDv4", labels(a))
        self.assertIn("Snowflake (cas)", labels(a))

    def test_a_measured_failure_is_given_before_not_measured(self):
        # Snowflake's mutex and thread-local never ran the clock step back (not measured); cas
        # did and stalled: that is the reason given, with its chaos cell.
        a = answer("none", 0, 8, musts=["clock-step-back"])
        reasons = {r: (why, src) for r, why, src in a.ruled_out}
        self.assertEqual(reasons["Snowflake (cas)"],
                         ("clock-step-back: stalls: 60 % issuing at best (borrow)",
                          "chaos.json cells[3]"))
        self.assertEqual(labels(a), ["UUIDv4"])  # reads no clock
        self.assertEqual(reasons["UUIDv7"], ("clock-step-back: not measured", "./run.sh chaos"))
        self.assertIn("duplicates", reasons["mariadb-ticket-pair-myisam"][0])

    def test_the_rate_rules_a_slow_system_out(self):
        a = answer("mariadb", 0, 8, rate=5000)
        self.assertEqual(ruled(a)["mariadb-ticket-pair-innodb"],
                         ("1.28 k IDs/s measured (IDs/s, 8 clients, flush=1) < 5 k/s asked",
                          "bench.json real_systems.cells[18]"))
        self.assertIn("mariadb-auto-increment", labels(a))  # 6.59 k ≥ 5 k

    def test_a_system_on_another_engine_is_ruled_out(self):
        a = answer("postgresql", 0, 1)
        self.assertEqual(ruled(a)["mariadb-auto-increment"][0],
                         "runs on mariadb, not PostgreSQL (not measured there)")
        a = answer("none", 0, 1)
        self.assertEqual(ruled(a)["mariadb-auto-increment"][0],
                         "needs a mariadb server (the workload has no database)")
        self.assertIn("mariadb-auto-increment", labels(answer("mariadb", 0, 1)))


    def test_a_rate_asked_of_a_system_whose_speed_was_not_measured_rules_it_out(self):
        # mariadb-ticket-update ran only under faults: nothing says it can keep up.
        a = answer("mariadb", 0, 8, rate=5000)
        self.assertEqual(ruled(a)["mariadb-ticket-update"],
                         ("IDs/s not measured (a rate was asked)",
                          "./run.sh bench (idbench real --system quick)"))
        self.assertIn("mariadb-ticket-update", labels(answer("mariadb", 0, 8)))  # no rate asked

    def test_a_broken_promise_is_the_reason_before_the_rate(self):
        # The InnoDB ticket pair is both too slow and unordered: the promise is named.
        a = answer("mariadb", 0, 8, rate=5000, musts=["k-sorted"])
        self.assertEqual(ruled(a)["mariadb-ticket-pair-innodb"][0], "k-sorted: unordered")

    def test_the_unsafe_policy_is_never_the_way_a_scheme_survives_a_step_back(self):
        # A UUIDv7 under `unsafe` (reset and carry on) issued through the step with no
        # duplicate, its random bits aside: a planted defect's luck, not a policy to deploy.
        # Its deployable policies stalled, and that is the verdict.
        from facts import Fact, Facts, Subject
        v7 = Subject("UUIDv7", "scheme", "UUIDv7", ["uuidv7"], 128, "k_sorted", True, "uuid",
                     "none", source="planted")
        f = Facts("planted", subjects={"UUIDv7": v7}, described={"uuidv7": v7})
        for i, (policy, avail) in enumerate((("refuse", 0.16), ("unsafe", 1.0))):
            for metric, value in (("availability", avail), ("duplicates", 0)):
                f.facts.append(Fact("UUIDv7", metric, value, f"chaos.json cells[{i}]",
                                    variant="uuidv7", fault="ntp-step-back", policy=policy))
        judged = advise.judge(f, v7, "uuidv7", "clock-step-back")
        self.assertEqual((judged.ok, judged.source), (False, "chaos.json cells[0]"))
        self.assertIn("refuse", judged.why)

    def test_a_clock_step_back_workload_is_told_which_step_was_measured(self):
        a = answer("none", 0, 8, musts=["clock-step-back"])
        self.assertEqual(len([u for u in a.used if u.startswith("clock step back as measured")]),
                         1)
        self.assertIn("5 s", a.used[-1])


    def test_with_no_engine_equal_speeds_rank_by_the_p99_number_not_its_text(self):
        # "30 ns" sorts after "2.14 µs" as text; 30 ns is the shorter tail.
        F = advise.Figure
        fast_tail = [F("IDs/s", "1 M", "s", value=1e6), F("p99", "30 ns", "s", value=30.0)]
        slow_tail = [F("IDs/s", "1 M", "s", value=1e6), F("p99", "2.14 µs", "s", value=2140.0)]
        self.assertLess(advise._rank_key(fast_tail, "none"), advise._rank_key(slow_tail, "none"))


class PointTest(unittest.TestCase):
    def test_a_workload_between_points_says_which_point_answered(self):
        a = answer("mariadb", 250, 40)
        self.assertEqual(a.used, ["250 B rows asked: 0 B, the nearest measured row size",
                                  "40 writers asked: 8, the most measured"])
        self.assertEqual(labels(a), labels(answer("mariadb", 0, 8)))
        a = answer("mariadb", 700, 6)
        self.assertEqual(a.used, ["700 B rows asked: 1000 B, the nearest measured row size",
                                  "6 writers asked: 8, the nearest measured"])
        self.assertEqual(answer("mariadb", 1000, 8).used, [])
        # A tie goes to the larger point; no database: no row size is said.
        self.assertEqual(answer("mariadb", 500, 8).used,
                         ["500 B rows asked: 1000 B, the nearest measured row size"])
        self.assertEqual(answer("none", 500, 8).used, [])

    def test_points(self):
        self.assertEqual(advise.points(facts(), "mariadb"), ([0, 1000], [1, 8]))
        self.assertEqual(advise.points(facts(TESTDATA), "mariadb"), ([0, 100], [1, 8]))
        self.assertEqual(advise.nearest([0, 1000], 500), 1000)
        self.assertIsNone(advise.nearest([], 5))


class AnswersTest(unittest.TestCase):
    def test_answers_hold_every_point_and_the_engine_rules(self):
        ans = advise.answers(facts())
        json.dumps(ans, allow_nan=False)  # the page embeds it: strict JSON
        self.assertEqual(ans["schema"], "idbench-answers/1")
        for e in advise.ENGINES:
            pts = ans["points"][e]
            for r in pts["rows"]:
                for w in pts["writers"]:
                    ids = [x["id"] for x in ans["rankings"][f"{e}|{r}|{w}"]]
                    self.assertEqual(sorted(ids), sorted(ans["candidates"]))
        auto = ans["candidates"]["mariadb-auto-increment"]
        self.assertEqual(auto["server"], "mariadb")
        self.assertEqual(set(auto["engine_rules"]), {"postgresql", "sqlite", "none"})
        self.assertEqual(auto["engine_rules"]["sqlite"]["source"],
                         "bench.json real_systems.systems mariadb-auto-increment")
        self.assertEqual(ans["candidates"]["cas"]["engine_rules"], {})
        cap = ans["candidates"]["cas"]["capacity"]["8"]
        # The measured number itself (8 × the 1-thread rate), not its 3-digit text read back.
        self.assertEqual(cap["text"], "31.5 M")
        self.assertAlmostEqual(cap["value"], 8 * facts().where(
            variant="cas", metric="ids_per_s", threads=1)[0].value)

    def test_the_ranking_embedded_is_advise_ranking(self):
        ans = advise.answers(facts())
        self.assertEqual(
            [ans["candidates"][x["id"]]["label"] for x in ans["rankings"]["mariadb|1000|8"]
             if x["id"] in ("cas", "uuidv4")], ["UUIDv4", "Snowflake (cas)"])


class CliTest(unittest.TestCase):
    def test_the_documented_command_answers(self):
        p = run(TESTDATA, "--engine", "mariadb", "--writers", "40", "--row-bytes", "250",
                "--rate", "5000", "--must", "64-bit")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Workload: MariaDB (InnoDB), 40 writers, 250 B rows, 5 k IDs/s; "
                      "must: 64-bit", p.stdout)
        self.assertIn("Point used: 40 writers asked: 8, the most measured", p.stdout)
        self.assertRegex(p.stdout, r"\n 1\. mariadb-auto-increment\n")
        self.assertIn("  - UUIDv4: 64-bit: 128-bit  [bench.json context idbench_variants "
                      "uuidv4]", p.stdout)

    def test_json(self):
        p = run(PLANTED, "--engine", "mariadb", "--writers", "8", "--row-bytes", "1000",
                "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["schema"], "idbench-advise/1")
        self.assertEqual([r["label"] for r in doc["ranked"]][:3],
                         ["mariadb-auto-increment", "UUIDv4", "Snowflake (cas)"])

    def test_bad_input_exits_2_with_one_line(self):
        for args in ([PLANTED],  # no --engine
                     [PLANTED, "--engine", "oracle"],
                     [PLANTED, "--engine", "mariadb", "--writers", "0"],
                     [PLANTED, "--engine", "mariadb", "--writers", "many"],
                     [PLANTED, "--engine", "mariadb", "--row-bytes", "-1"],
                     [PLANTED, "--engine", "mariadb", "--rate", "-5"],
                     [PLANTED, "--engine", "mariadb", "--rate", "nan"],
                     [PLANTED, "--engine", "mariadb", "--must", "fast"],
                     [PLANTED, "--engine", "mariadb", "--bogus"],
                     [os.path.join(HERE, "no-such-results"), "--engine", "mariadb"]):
            p = run(*args)
            self.assertEqual(p.returncode, 2, (args, p.stdout, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))
            self.assertTrue(p.stderr.startswith("advise: "), p.stderr)
            self.assertEqual(p.stdout, "", args)


if __name__ == "__main__":
    unittest.main()
