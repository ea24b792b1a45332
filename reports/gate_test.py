#!/usr/bin/python3
"""gate_test.py — the regression gate's rules, each against planted data: the
instruction-count rule (icount.json), the real systems under faults (real_chaos.json), the
interleaved paired rule (interleaved.json), the interleaved runner and the --revs driver.

Each test writes a BASE and a NEW results directory, plants one change, runs reports/compare.sh
as ./run.sh compare does, and checks its exit status and what it names.

    /usr/bin/python3 reports/gate_test.py
    /usr/bin/python3 reports/gate_test.py IcountGateTest
"""
from __future__ import annotations

import copy
import json
import math
import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

from testsupport import require

require("scipy")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTDATA = os.path.join(HERE, "testdata")
COMPARE = os.path.join(HERE, "compare.sh")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))

ICOUNT = {"context": {"method": "callgrind", "tool": "valgrind-3.19.0 callgrind (Ir)",
                      "calls": 20000, "layout": "twitter", "plant": "",
                      "clock": "stepping: +1 us per reading (deterministic; no vDSO read)"},
          "floors": [{"name": "floor/cas", "calls": 20000, "instructions": 1100000,
                      "instructions_per_id": 55.0},
                     {"name": "floor/uuidv7", "calls": 20000, "instructions": 2840000,
                      "instructions_per_id": 142.0}],
          "variants": [{"name": "cas", "calls": 20000, "instructions": 3020000,
                        "instructions_per_id": 151.0, "floor": "floor/cas"},
                       {"name": "uuidv7", "calls": 20000, "instructions": 5442000,
                        "instructions_per_id": 272.1, "floor": "floor/uuidv7"},
                       {"name": "uuidv4", "calls": 20000, "instructions": 3292000,
                        "instructions_per_id": 164.6, "floor": None}]}


def interleaved(seed: int, rounds: int = 10, noise: float = 0.02, slow: dict | None = None,
                control_noise: float | None = None, load: float = 0.5) -> dict:
    """An interleaved.json: per round, BASE and NEW IDs/s of a few benchmarks drawn around
    fixed rates with multiplicative `noise` each (the same round's drift on both sides), NEW
    divided by slow[name]."""
    rng = random.Random(seed)
    names = {"baseline/clock_gettime": 40e6, "generate/cas/twitter/threads:1": 4.0e6,
             "generate/uuidv7/twitter/threads:1": 12e6, "generate/uuidv7/twitter/threads:2": 3e6,
             "generate/cas/twitter/threads:2": 2e6}
    out = []
    for i in range(rounds):
        drift = math.exp(rng.gauss(0, 0.2))  # the machine's speed this round: lands on both
        row = {"index": i, "order": "AB" if i % 2 else "BA", "load_1m": load, "seconds": 2.0}
        for side in ("base", "new"):
            for suffix in ("", "_cpu"):
                vals = {}
                for n, rate in names.items():
                    sd = control_noise if control_noise is not None and n.startswith(
                        "baseline/") else noise
                    v = rate * drift * math.exp(rng.gauss(0, sd))
                    if side == "new":
                        v /= (slow or {}).get(n, 1.0)
                    vals[n] = v
                row[side + suffix] = vals
        out.append(row)
    return {"context": {"rounds": rounds, "min_time": 0.01, "seed": seed, "cpus": 2},
            "complete": True, "rounds": out}


class Tail(str):
    def __repr__(self):
        return repr(str(self)[-2500:])


class GateCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="idbench-gate-test-")
        self.base = os.path.join(self.tmp, "base")
        self.new = os.path.join(self.tmp, "new")
        os.makedirs(self.base)
        os.makedirs(self.new)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def write(d, name, doc):
        with open(os.path.join(d, name), "w") as f:
            json.dump(doc, f)

    def gate(self, *extra):
        p = subprocess.run([COMPARE, self.base, self.new, *extra], capture_output=True,
                           text=True, timeout=120)
        return p.returncode, Tail(p.stdout + p.stderr)


class IcountGateTest(GateCase):
    def setUp(self):
        super().setUp()
        self.write(self.base, "icount.json", ICOUNT)

    def with_new_count(self, variant, per_id, **context):
        doc = copy.deepcopy(ICOUNT)
        doc["context"].update(context)
        for v in doc["variants"]:
            if v["name"] == variant:
                v["instructions_per_id"] = per_id
        self.write(self.new, "icount.json", doc)

    def test_same_counts_pass(self):
        self.write(self.new, "icount.json", ICOUNT)
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("| uuidv7 | 272.1 | 272.1 | +0.0 % | floor/uuidv7 | 1.92× | 1.92× | same |",
                      out)
        self.assertIn("| uuidv4 | 164.6 | 164.6 | +0.0 % | — | — | — | same |", out)
        self.assertIn("| floor/cas | 55.0 | 55.0 | +0.0 % | — | — | — | same |", out)

    def test_planted_five_percent_more_instructions_fails(self):
        self.with_new_count("uuidv7", 272.1 * 1.05)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("- performance: uuidv7: instructions per ID +5.0 % (272.1 → 285.7; 1.92× → "
                      "2.01× its floor floor/uuidv7;", out)
        self.assertIn("| uuidv7 | 272.1 | 285.7 | +5.0 % | floor/uuidv7 | 1.92× | 2.01× | "
                      "REGRESSION |", out)

    def test_a_slower_floor_fails_too(self):
        doc = copy.deepcopy(ICOUNT)
        doc["floors"][0]["instructions_per_id"] = 55.0 * 1.05
        self.write(self.new, "icount.json", doc)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("- performance: floor/cas: instructions per ID +5.0 %", out)
        self.assertIn("| cas | 151.0 | 151.0 | +0.0 % | floor/cas | 2.75× | 2.61× | same |", out)

    def test_a_file_without_floors_is_still_gated(self):
        doc = copy.deepcopy(ICOUNT)
        del doc["floors"]
        for v in doc["variants"]:
            del v["floor"]
        self.write(self.base, "icount.json", doc)
        self.with_new_count("uuidv7", 272.1 * 1.05)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("| uuidv7 | 272.1 | 285.7 | +5.0 % | floor/uuidv7 | — | 2.01× | REGRESSION |",
                      out)

    def test_half_a_percent_passes(self):
        self.with_new_count("cas", 151.0 * 1.005)
        status, out = self.gate()
        self.assertEqual(status, 0, out)

    def test_counts_of_different_methods_are_not_gated(self):
        self.with_new_count("uuidv7", 400.0, method="perf_event")
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("instruction counts not gated: BASE counted with method 'callgrind'", out)

    def test_missing_from_new_fails_unless_allowed(self):
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("icount.json is in BASE but missing from NEW", out)


class RealFaultsGateTest(GateCase):
    def setUp(self):
        super().setUp()
        with open(os.path.join(TESTDATA, "real_chaos.json")) as f:
            self.doc = json.load(f)

    def clean(self) -> dict:
        doc = copy.deepcopy(self.doc)
        for s in doc["scenarios"]:
            for p in s["parts"]:
                p["figures"]["duplicates"] = 0
                p["verdict"] = {"verdict": "PASSED", "passed": True, "evidence": "no duplicate"}
        return doc

    def test_duplicates_fail_naming_fault_and_system_even_when_base_had_them(self):
        self.write(self.base, "real_chaos.json", self.doc)
        self.write(self.new, "real_chaos.json", self.doc)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("- correctness: real systems: ticket-restore · mariadb-ticket-pair-myisam: "
                      "DUPLICATES — 1584 duplicate IDs issued (also in BASE)", out)

    def test_new_duplicates_fail(self):
        self.write(self.base, "real_chaos.json", self.clean())
        doc = self.clean()
        doc["scenarios"][0]["parts"][1]["figures"]["duplicates"] = 1
        self.write(self.new, "real_chaos.json", doc)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("ticket-restore · mariadb-ticket-update: DUPLICATES — 1 duplicate ID "
                      "issued:", out)
        self.assertNotIn("(also in BASE)", out)

    def test_no_duplicates_pass(self):
        self.write(self.base, "real_chaos.json", self.clean())
        self.write(self.new, "real_chaos.json", self.clean())
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("real-system fault runs judged; 0 fail the gate", out)

    def test_other_failure_fails_only_when_new(self):
        failed = self.clean()
        failed["scenarios"][0]["parts"][0]["verdict"] = {"verdict": "FAULT NOT APPLIED",
                                                         "passed": False}
        self.write(self.base, "real_chaos.json", self.clean())
        self.write(self.new, "real_chaos.json", failed)
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("FAULT NOT APPLIED (passed in BASE)", out)
        self.write(self.base, "real_chaos.json", failed)
        status, out = self.gate()
        self.assertEqual(status, 0, out)


    def test_a_starved_machine_is_not_judged_and_fails_nothing(self):
        # "machine starved": the clients issued nothing before the fault, after every retry.
        # It says nothing about the system, so it is no regression; it was counted as one
        # whenever BASE passed, and a loaded runner failed the gate.
        starved = self.clean()
        part = starved["scenarios"][0]["parts"][0]
        part["verdict"] = {"verdict": "machine starved", "passed": False,
                           "evidence": "all 3 attempts starved, no verdict about the system"}
        self.write(self.base, "real_chaos.json", self.clean())
        self.write(self.new, "real_chaos.json", starved)
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn(f"{starved['scenarios'][0]['scenario']} · {part['system']}: not judged, "
                      "the machine starved its clients; run it again", out)

class PairedGateTest(GateCase):
    def test_unchanged_revision_passes(self):
        for seed in range(5):
            self.write(self.new, "interleaved.json", interleaved(seed))
            status, out = self.gate()
            self.assertEqual(status, 0, out)
            self.assertIn("## Performance, interleaved", out)
            self.assertNotIn("bench.json is in neither", out)

    def test_planted_ten_percent_slowdown_fails(self):
        self.write(self.new, "interleaved.json",
                   interleaved(1, slow={"generate/uuidv7/twitter/threads:1": 1.10}))
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertRegex(out, r"- performance: generate/uuidv7/twitter/threads:1: IDs/s −\d+\.\d %"
                              r" \(paired median of 10 interleaved rounds")

    def test_busy_machine_widens_instead_of_failing(self):
        # Rounds that disagree by 10 % each: a 10 % slowdown is inside the widened interval.
        self.write(self.new, "interleaved.json",
                   interleaved(2, noise=0.10, load=7.5,
                               slow={"generate/uuidv7/twitter/threads:1": 1.10}))
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("the machine was busy (load average 7.5 (up to 7.5) on 2 CPUs during the "
                      "rounds)", out)
        self.assertIn("(widened)", out)

    def test_too_noisy_is_not_judged(self):
        self.write(self.new, "interleaved.json",
                   interleaved(3, noise=0.40, slow={"generate/cas/twitter/threads:2": 1.5}))
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("too noisy to judge at all", out)
        self.assertRegex(out, r"generate/cas/twitter/threads:2 \|.*\| too noisy \|")

    def test_moved_control_is_a_note(self):
        self.write(self.new, "interleaved.json",
                   interleaved(4, slow={"baseline/clock_gettime": 1.3}))
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("controls without idbench code moved although the runs were interleaved",
                      out)

    def test_fewer_than_four_rounds_are_not_gated(self):
        self.write(self.new, "interleaved.json",
                   interleaved(5, rounds=3, slow={"generate/uuidv7/twitter/threads:1": 1.5}))
        status, out = self.gate()
        self.assertEqual(status, 0, out)
        self.assertIn("| not gated |", out)

    def test_half_written_file_fails(self):
        with open(os.path.join(self.new, "interleaved.json"), "w") as f:
            f.write('{"rounds": [')
        status, out = self.gate()
        self.assertEqual(status, 1, out)
        self.assertIn("interleaved.json is not valid JSON", out)


FAKE_BENCH = """#!/usr/bin/python3
import json, os, sys
rate = float(os.environ.get("FAKE_RATE_" + os.path.basename(os.path.dirname(sys.argv[0])), "1e6"))
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(os.path.dirname(sys.argv[0]) + "\\n")
print(json.dumps({"context": {}, "benchmarks": [
    {"name": "generate/v/twitter/threads:1", "run_type": "iteration", "time_unit": "ns",
     "real_time": 1e9 / rate, "cpu_time": 1e9 / rate, "ids_per_s": rate}]}))
"""


class InterleaveTest(GateCase):
    def fake(self, name):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        path = os.path.join(d, "idbench-bench")
        with open(path, "w") as f:
            f.write(FAKE_BENCH)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return d

    def test_rounds_alternate_in_balanced_blocks(self):
        a, b = self.fake("a"), self.fake("b")
        log = os.path.join(self.tmp, "log")
        out = os.path.join(self.new, "interleaved.json")
        env = dict(os.environ, FAKE_LOG=log, FAKE_RATE_b="9e5")
        p = subprocess.run([os.path.join(HERE, "interleave.py"), a, b, out, "--rounds", "6",
                            "--seed", "7"], env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            doc = json.load(f)
        self.assertTrue(doc["complete"])
        orders = [r["order"] for r in doc["rounds"]]
        for k in range(0, 6, 2):
            self.assertEqual(sorted(orders[k:k + 2]), ["AB", "BA"])
        with open(log) as f:
            ran = [os.path.basename(line.strip()) for line in f]
        self.assertEqual("".join(ran), "".join(o.replace("A", "a").replace("B", "b")
                                               for o in orders))
        self.assertEqual(doc["rounds"][0]["new_cpu"]["generate/v/twitter/threads:1"], 9e5)
        status, text = self.gate()
        self.assertEqual(status, 1, text)  # 10 % slower, no noise
        self.assertIn("generate/v/twitter/threads:1: IDs/s −10.0 %", text)

    def test_missing_binary_exits_2(self):
        p = subprocess.run([os.path.join(HERE, "interleave.py"), self.tmp, self.tmp,
                            os.path.join(self.tmp, "x.json")], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


class IcountDumpTest(unittest.TestCase):
    def test_counts_are_read_per_variant_from_callgrind_dumps(self):
        import run_icount
        with tempfile.TemporaryDirectory() as d:
            for i, (name, total) in enumerate((("cas", 3020000), ("uuidv7", 5442000))):
                with open(os.path.join(d, f"callgrind.out.{i + 1}"), "w") as f:
                    f.write(f"version: 1\ncreator: callgrind-3.19.0\npid: 1\ncmd: x\npart: {i + 1}"
                            f"\n\ndesc: I1 cache: \ndesc: Trigger: Client Request: {name}\n\n"
                            f"positions: line\nevents: Ir\nsummary: {total}\n\nfl=(1) a.cpp\n"
                            f"fn=(1) f\n1 {total}\n\ntotals: {total}\n")
            self.assertEqual(run_icount.parse_dumps(d), {"cas": 3020000, "uuidv7": 5442000})

    def test_each_variant_gets_its_floor_and_ratio(self):
        import run_icount
        floors, rows = run_icount.rows_with_floors(
            {"calls": 1000, "floors": [{"name": "floor/cas", "instructions": 50000}],
             "variants": [{"name": "cas", "floor": "floor/cas", "instructions": 75000},
                          {"name": "uuidv4", "floor": None, "instructions": 160000}]})
        self.assertEqual(floors, [{"name": "floor/cas", "calls": 1000, "instructions": 50000,
                                   "instructions_per_id": 50.0}])
        self.assertEqual(rows[0]["floor_instructions_per_id"], 50.0)
        self.assertEqual(rows[0]["ratio"], 1.5)
        self.assertEqual((rows[1]["floor"], rows[1]["ratio"]), (None, None))


class RevsDriverTest(unittest.TestCase):
    def test_bad_revision_exits_2_and_stale_temp_dirs_are_swept(self):
        with tempfile.TemporaryDirectory() as tmp:
            stale = os.path.join(tmp, "idbench-gate.stale")
            os.makedirs(os.path.join(stale, "base"))
            with open(os.path.join(stale, "owner.pid"), "w") as f:
                f.write("999999999\n")  # no such process
            p = subprocess.run([os.path.join(HERE, "compare_revs.sh"), "no-such-rev-xyz", "HEAD"],
                               env=dict(os.environ, TMPDIR=tmp), capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("BASE 'no-such-rev-xyz' is not a commit", p.stderr)
            self.assertFalse(os.path.exists(stale))


if __name__ == "__main__":
    unittest.main(verbosity=2)
