"""gate_paired.py — the regression gate's rule for interleaved runs (interleaved.json from
reports/interleave.py): benchmarks judged on paired differences, round by round.

For a benchmark, round i gives d_i = ln(NEW_i / BASE_i) of its IDs/s, two runs made seconds
apart on the same machine. The estimate is the median of the d_i (robust to the round a build
started beside), shown as a change exp(median) − 1; its standard error is taken robustly from
the same rounds, se = 1.2533 · 1.4826 · MAD(d) / √n (the normal-theory SE of a median, with
the MAD standing in for σ).

A benchmark regresses when NEW is slower by more than its threshold:

    median(d) < −T,  T = max(T_floor, z · se)     (log units; the report shows T as the
                                                   slowdown it allows, 1 − exp(−T))

  * T_floor, per class, from measured A/A noise (README "Regression gate", derivation): the
    largest |median(d)| seen in the A/A pilot of that class, rounded up, so an unchanged
    revision on this kind of machine stays inside it. 1 thread: 6 %; 2 and more threads
    (contended, the scheduler decides who runs): 12 %. Flags: --paired-floor-1t,
    --paired-floor-mt (IDBENCH_GATE_PAIRED_1T, IDBENCH_GATE_PAIRED_MT).
  * z · se widens T when this run's own rounds disagree, i.e. the machine was busy while it
    ran: z = 3 (one-sided 0.13 % per benchmark, about 2 % over the 16 gated benchmarks).
    The report says it widened, by how much and why (the load average during the rounds),
    instead of failing.
  * T above 50 % (--paired-cap): the rounds are too noisy to judge the benchmark at all; it is
    listed as not judged, with the reason, not failed.
  * fewer than 4 paired rounds: shown, not gated.
baseline/ benchmarks contain no idbench code: they are controls. Interleaving cancels drift,
so a control that moves past its threshold means the two runs did not see the same machine
(a note beside any regression), never a failure.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from typing import Any

FILE = "interleaved.json"
Z = 3.0
MIN_ROUNDS = 4
_THREADS = re.compile(r"/threads:(\d+)$")


@dataclass
class Thresholds:
    floor_1t: float = 0.06
    floor_mt: float = 0.12
    cap: float = 0.50


@dataclass
class PairedRow:
    name: str
    control: bool
    n: int
    base_median: float
    new_median: float
    change: float  # exp(median d) − 1: −0.10 is 10 % fewer IDs/s
    se: float
    floor: float
    threshold: float
    verdict: str  # "REGRESSION", "improved", "same", "too noisy", "not gated", "control moved"

    @property
    def allowed(self) -> float:
        """The threshold as a change of IDs/s: the slowdown NEW may show and pass (0.058 for a
        threshold of 0.06 in log units)."""
        return 1 - math.exp(-self.threshold)

    @property
    def widened(self) -> bool:
        return self.threshold > self.floor + 1e-12


def threads_of(name: str) -> int:
    m = _THREADS.search(name)
    return int(m.group(1)) if m else 1


def measure_of(name: str) -> str:
    """"cpu" for 1-thread benchmarks (IDs per second of CPU time: a build beside that takes the
    CPU away does not count), "real" for more threads (contention is what they measure)."""
    return "cpu" if threads_of(name) == 1 else "real"


def pairs(doc: Any) -> dict[str, list[tuple[float, float]]]:
    """benchmark → [(BASE, NEW) IDs/s of each round that measured both], by measure_of()."""
    out: dict[str, list[tuple[float, float]]] = {}
    for r in (doc or {}).get("rounds") or []:
        if not isinstance(r, dict):
            continue
        names = set(r.get("new") or {}) | set(r.get("new_cpu") or {})
        for name in sorted(names):
            suffix = "_cpu" if measure_of(name) == "cpu" and "new_cpu" in r else ""
            base, new = r.get("base" + suffix) or {}, r.get("new" + suffix) or {}
            nv = new.get(name)
            bv = base.get(name)
            if isinstance(bv, (int, float)) and isinstance(nv, (int, float)) and bv > 0 and nv > 0:
                out.setdefault(name, []).append((float(bv), float(nv)))
    return out


def judge(name: str, values: list[tuple[float, float]], t: Thresholds) -> PairedRow:
    d = [math.log(nv / bv) for bv, nv in values]
    n = len(d)
    m = statistics.median(d)
    mad = statistics.median(abs(x - m) for x in d)
    se = 1.2533 * 1.4826 * mad / math.sqrt(n)
    control = name.startswith("baseline/")
    floor = t.floor_1t if threads_of(name) == 1 else t.floor_mt
    threshold = max(floor, Z * se)
    change = math.exp(m) - 1
    if n < MIN_ROUNDS:
        verdict = "not gated"
    elif threshold > t.cap:
        verdict = "too noisy"
    elif control:
        verdict = "control moved" if abs(m) > threshold else "same"
    elif m < -threshold:
        verdict = "REGRESSION"
    elif m > threshold:
        verdict = "improved"
    else:
        verdict = "same"
    return PairedRow(name, control, n, statistics.median(b for b, _ in values),
                     statistics.median(v for _, v in values), change, se, floor, threshold,
                     verdict)


def judge_all(doc: Any, t: Thresholds) -> list[PairedRow]:
    return [judge(name, values, t) for name, values in sorted(pairs(doc).items())]


def load_during(doc: Any) -> tuple[float | None, float | None]:
    """(median, max) of the 1-minute load average at the start of each round."""
    loads = [r.get("load_1m") for r in (doc or {}).get("rounds") or []
             if isinstance(r, dict) and isinstance(r.get("load_1m"), (int, float))]
    return (statistics.median(loads), max(loads)) if loads else (None, None)
