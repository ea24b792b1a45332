#!/usr/bin/python3
"""compare.py — the regression gate: did NEW get worse than BASE?

    /usr/bin/python3 reports/compare.py BASE_DIR NEW_DIR      # what reports/compare.sh runs

Each directory holds a run's results (bench.json, locality.json, chaos.json; see inputs.py).
Prints a Markdown table of the changes and a verdict, and exits

    0  no regression;
    1  a regression: correctness got worse, or performance got worse beyond noise;
    2  bad usage (a directory that does not exist).

Correctness (chaos.json), cell by cell — a cell is (scenario, variant, policy, persisted mark):
  * any broken promise in NEW (promise_kept false), whatever BASE said;
  * new duplicates: more duplicates than BASE in a cell where none are expected
    (duplicates_expected false; when the field is missing, any policy but `unsafe`);
  * a cell that ran in BASE and could not run in NEW.
  A cell whose expected duplicates vanished (the unsafe policy stopped producing them) is a
  warning: the harness may have lost its teeth, but no ID was duplicated.

Real systems under faults (real_chaos.json, reports/gate_real.py): any duplicate a real system
  issued in NEW fails, naming the fault and the system, even when BASE had it too; another
  failed verdict fails when it passed in BASE.

Instructions per ID (icount.json, reports/gate_icount.py): a variant's 1-thread next() costing
  more than 1 % more instructions fails (the count does not move between runs of one binary).

Interleaved performance (NEW_DIR/interleaved.json from reports/interleave.py, as `./run.sh
  compare --revs` writes it): each benchmark judged on the paired differences of its rounds,
  against a threshold derived from measured A/A noise that widens, with its reason, when the
  machine was busy (reports/gate_paired.py). When it is there, bench.json is not needed.

Performance (bench.json), benchmark by benchmark, over the repetitions of each:
  * generate/ and baseline/: IDs per second (counter ids_per_s; 1 / real_time without it);
  * load/: p99 latency (counter p99_ns) — the offered rate is fixed, so the tail is the figure.
  A metric regresses when the Mann–Whitney U test (scipy.stats.mannwhitneyu, two-sided, the
  test Google Benchmark's tools/compare.py runs) finds BASE and NEW differ with p < alpha AND
  the median moved the wrong way by more than the threshold: a U test alone flags a 1 % shift
  on a quiet machine, and a threshold alone flags noise. Fewer than 9 repetitions on either
  side: the change is shown but not gated (fewer repetitions cannot tell a change from noise;
  `./run.sh bench --full` runs 9).
  Google Benchmark's own view of real_time (gbench.report from libbenchmark-tools, with its
  U test) is printed beside each row when the package is installed.

  Defaults, overridable by flags or the environment:
    --alpha                 IDBENCH_GATE_ALPHA       0.01
    --throughput-threshold  IDBENCH_GATE_THROUGHPUT  0.10  (10 % fewer IDs/s)
    --latency-threshold     IDBENCH_GATE_LATENCY     0.20  (20 % higher p99)
    --min-repetitions       IDBENCH_GATE_MIN_REPS    9
    --icount-threshold      IDBENCH_GATE_ICOUNT      0.01  (1 % more instructions per ID)
    --paired-floor-1t       IDBENCH_GATE_PAIRED_1T   0.06  (interleaved, 1 thread; A/A-derived)
    --paired-floor-mt       IDBENCH_GATE_PAIRED_MT   0.12  (interleaved, more threads)

Missing inputs: a file BASE has and NEW lacks fails the gate (nothing shows NEW is not worse)
unless --allow-missing; a file missing from BASE is not compared, and said so.

Locality (locality.json) is deterministic model output: its changes are listed, never gated.
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import statistics
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gate_icount  # noqa: E402
import gate_paired  # noqa: E402
import gate_real  # noqa: E402
import units as u  # noqa: E402
from inputs import (Bench, BenchRun, Chaos, Results, cell_key, load_results,  # noqa: E402
                    locality_generator, number, payload_of)

GBENCH_DIR = "/usr/share/benchmark"  # Debian's libbenchmark-tools: gbench/report.py


def _env_float(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, default))
    except ValueError:
        return default


@dataclass
class Finding:
    area: str  # "correctness" | "performance" | "inputs"
    what: str
    regression: bool


# ---------------------------------------------------------------------------------------------
# correctness


def _dups_expected(cell: dict) -> bool:
    e = cell.get("duplicates_expected")
    if isinstance(e, bool):
        return e
    return str(cell.get("policy", "")).split(":")[0] == "unsafe"


def _cell_name(key) -> str:
    scenario, variant, policy, persist, gen = key
    return (f"{scenario} · {variant} · {policy}" + (f" gen={gen}" if gen else "")
            + (" + persisted mark" if persist else ""))


def compare_chaos(base: Chaos, new: Chaos) -> tuple[list[list], list[Finding], int]:
    """Rows for the table, findings, and the number of cells compared."""
    rows, findings = [], []
    base_cells = {cell_key(c): c for c in base.cells}
    compared = 0
    for c in new.cells:
        key = cell_key(c)
        b = base_cells.get(key)
        name = _cell_name(key)
        if c.get("skipped"):
            continue
        compared += 1
        bd = number(b.get("duplicates")) if b else None
        nd = number(c.get("duplicates"))
        reasons, warns = [], []
        if c.get("error"):
            if b is not None and not b.get("error") and not b.get("skipped"):
                reasons.append(f"could not run: {c['error']}")
            elif b is None:
                warns.append(f"could not run: {c['error']}")
        if c.get("promise_kept") is False:
            why = c.get("verdict") or "promise broken"
            also = " (also broken in BASE)" if b and b.get("promise_kept") is False else ""
            reasons.append(f"broken promise{also}: {why}")
        elif nd is not None and not _dups_expected(c) and nd > (bd or 0):
            reasons.append(f"{u.count(nd - (bd or 0))} new duplicate"
                           f"{'s' if nd - (bd or 0) != 1 else ''} where none are expected")
        if (b is not None and _dups_expected(c) and bd and not nd and not c.get("error")
                and not reasons):
            warns.append("expected duplicates no longer appear (BASE had "
                         f"{u.count(bd)}): has the planted defect or the checker changed?")
        for r in reasons:
            findings.append(Finding("correctness", f"{name}: {r}", True))
        for w in warns:
            findings.append(Finding("correctness", f"{name}: {w}", False))
        if reasons or warns or (bd != nd and b is not None):
            verdict = ("REGRESSION: " + "; ".join(reasons)) if reasons else (
                "warning: " + "; ".join(warns) if warns else "changed, within the promise")
            rows.append([name, u.count(bd) if b else "not in BASE", u.count(nd),
                         _kept(b) if b else u.DASH, _kept(c), verdict])
    new_keys = {cell_key(c) for c in new.cells}
    lost = [k for k in base_cells if k not in new_keys]
    if lost:
        findings.append(Finding("correctness", f"{len(lost)} cells of BASE are not in NEW (a "
                                               "smaller or partial matrix): not compared", False))
    return rows, findings, compared


def _kept(c: dict) -> str:
    if c.get("error"):
        return "could not run"
    k = c.get("promise_kept")
    if k is True and number(c.get("duplicates")):
        return "caught"
    return "kept" if k is True else "BROKEN" if k is False else u.DASH


# ---------------------------------------------------------------------------------------------
# performance


@dataclass
class Metric:
    key: str  # counter or field
    name: str
    higher_is_better: bool
    threshold: float


def metric_for(run: BenchRun, base: BenchRun, tput: float, lat: float) -> Metric:
    if run.kind == "load":
        return Metric("p99_ns", "p99", False, lat)
    if run.values("ids_per_s") and base.values("ids_per_s"):
        return Metric("ids_per_s", "IDs/s", True, tput)
    return Metric("real_time", "real time", False, tput)


def mann_whitney_p(a: list[float], b: list[float]) -> float | None:
    if len(a) < 2 or len(b) < 2:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0  # identical samples: no difference to find
    from scipy.stats import mannwhitneyu  # Debian's python3-scipy
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def gbench_real_time_pvalues(base_doc, new_doc) -> dict[str, tuple[float, float | None]]:
    """name → (relative real_time change of the first repetition pair as Google Benchmark's
    report computes it, its U-test p-value over all repetitions), from gbench.report."""
    if not os.path.isdir(os.path.join(GBENCH_DIR, "gbench")):
        return {}
    sys.path.insert(0, GBENCH_DIR)
    try:
        from gbench import report as gb  # type: ignore
    except Exception:  # noqa: BLE001 — optional tooling; the gate does not depend on it
        return {}

    def iterations(doc):
        return {"benchmarks": [e for e in doc.get("benchmarks", []) if isinstance(e, dict)
                               and e.get("run_type", "iteration") == "iteration"
                               and not e.get("error_occurred")]}
    try:
        diff = gb.get_difference_report(iterations(base_doc), iterations(new_doc), utest=True)
    except Exception:  # noqa: BLE001
        return {}
    out = {}
    for d in diff:
        ms = d.get("measurements") or []
        if not ms or d.get("name") == "OVERALL_GEOMEAN":
            continue
        times = [m["time"] for m in ms]
        p = (d.get("utest") or {}).get("time_pvalue")
        out[d["name"]] = (statistics.median(times), p)
    return out


def load_at_start(b: Bench) -> float | None:
    """The 1-minute load average when the bench started, from its run-context block (else
    Google Benchmark's own context)."""
    load = number((b.run_context or {}).get("load_avg_1m"))
    if load is not None:
        return load
    la = b.context.get("load_avg")
    return number(la[0]) if isinstance(la, list) and la else None


def _cpus(b: Bench) -> float | None:
    return number((b.run_context or {}).get("cpus")) or number(b.context.get("num_cpus"))


def busy(b: Bench) -> str | None:
    """A sentence when the machine was busy at the start (load above half its CPUs)."""
    load, cpus = load_at_start(b), _cpus(b)
    if load is not None and cpus and load > 0.5 * cpus:
        return f"load {load:.2f} on {cpus:.0f} CPUs"
    return None


@dataclass
class _Judged:
    row: list
    verdict: str  # "regression", "improvement", "control moved", "not gated", "gated", ""
    finding: Finding | None = None
    change: str = ""


def _judge(name: str, n, b, gbc, alpha: float, tput: float, lat: float,
           min_reps: int) -> _Judged | None:
    """One benchmark of both runs; None when there is nothing to compare."""
    control = n.kind == "baseline"
    if n.error:
        if not b.error and not control:
            return _Judged([name, "", "", "", "", "", "", f"REGRESSION: error: {n.error}", ""],
                           "", Finding("performance", f"{name}: NEW recorded an error: "
                                                      f"{n.error}", True))
        return None
    if b.error:
        return None
    m = metric_for(n, b, tput, lat)
    bv, nv = b.values(m.key), n.values(m.key)
    if not bv or not nv:
        return None
    bm, nm = statistics.median(bv), statistics.median(nv)
    change = (nm - bm) / bm if bm else None
    worse = change is not None and ((change < 0) if m.higher_is_better else (change > 0))
    p = mann_whitney_p(bv, nv)
    gated = len(bv) >= min_reps and len(nv) >= min_reps
    gb_text = (f"{u.change(gbc[0])} (p {gbc[1]:.2g})" if gbc and gbc[1] is not None else
               u.change(gbc[0]) if gbc else u.DASH)
    big = change is not None and abs(change) > m.threshold
    significant = p is not None and p < alpha
    kind, finding = ("gated" if gated and not control else ""), None
    if control:
        moved = gated and significant and big
        kind = "control moved" if moved else ""
        verdict = ("control moved: the machine changed" if moved else
                   "control: same within noise" if gated else "control")
    elif not gated:
        kind = "not gated"
        verdict = "not gated (< %d repetitions)" % min_reps
        if big and worse:
            verdict += f"; {u.change(change)} beyond the {m.threshold:.0%} threshold"
    elif significant and big and worse:
        kind, verdict = "regression", "REGRESSION"
        finding = Finding("performance", f"{name}: {m.name} {u.change(change)} (median "
                                         f"{_fmt(m, bm)} → {_fmt(m, nm)}; U test p = {p:.2g})",
                          True)
    elif significant and big:
        kind, verdict = "improvement", "improved"
    else:
        verdict = f"shifted (within {m.threshold:.0%})" if significant else "same within noise"
    return _Judged([name, m.name, _fmt(m, bm), _fmt(m, nm), u.change(change),
                    f"{p:.2g}" if p is not None else u.DASH, f"{len(bv)} vs {len(nv)}", verdict,
                    gb_text], kind, finding, u.change(change))


def _machine_findings(base: Bench, new: Bench, moved_controls: list[str]) -> list[Finding]:
    """Notes when the machine, not the code, may explain the figures."""
    findings = []
    if _host(base) != _host(new):
        findings.append(Finding("performance", f"BASE ran on {_host(base)}, NEW on {_host(new)}:"
                                               " a different machine moves every figure", False))
    busy_runs = [f"{which} started on a busy machine ({why})"
                 for which, why in (("BASE", busy(base)), ("NEW", busy(new))) if why]
    if moved_controls or busy_runs:
        parts = busy_runs + ([f"{len(moved_controls)} control benchmarks without idbench code "
                              "moved beyond noise (" + ", ".join(moved_controls[:4])
                              + (", …" if len(moved_controls) > 4 else "") + ")"]
                             if moved_controls else [])
        lead = ("the machine, not only the code, differs between the runs" if moved_controls
                else "the performance figures come from a busy machine")
        findings.append(Finding(
            "performance", f"{lead}: {'; '.join(parts)}. Any regression listed above may be "
                           "the machine's; rerun BASE and NEW back to back on a quiet machine "
                           "to tell", False))
    return findings


def compare_bench(base: Bench, new: Bench, base_doc, new_doc, alpha: float, tput: float,
                  lat: float, min_reps: int) -> tuple[list[list], list[Finding], dict]:
    """One row per benchmark in both runs. idbench's own benchmarks (generate/, load/, and
    the harness's floor/ and reference/ ones: the bench's loop and interface, the reference's
    sequencer) are gated; baseline/ ones (libuuid, Boost, clock_gettime, a bare fetch_add: no
    idbench code) are controls, shown and never gated. When a control moves beyond noise, the machine
    moved between the two runs, and the notes say so beside any regression."""
    rows, findings = [], []
    counted = {"regression": "regressions", "improvement": "improvements",
               "not gated": "not_gated", "control moved": "controls_moved", "gated": "gated"}
    stats = {"compared": 0, "gated": 0, "regressions": 0, "improvements": 0, "not_gated": 0,
             "controls_moved": 0}
    gb = gbench_real_time_pvalues(base_doc or {}, new_doc or {})
    moved_controls = []
    for name, n in new.runs.items():
        b = base.runs.get(name)
        if b is None:
            continue
        stats["compared"] += 1
        j = _judge(name, n, b, gb.get(name), alpha, tput, lat, min_reps)
        if j is None:
            continue
        rows.append(j.row)
        if j.finding:
            findings.append(j.finding)
        if j.verdict in counted:
            stats[counted[j.verdict]] += 1
        if j.verdict in ("regression", "improvement"):
            stats["gated"] += 1
        if j.verdict == "control moved":
            moved_controls.append(f"{name} {j.change}")
    if stats["not_gated"] and stats["compared"]:
        findings.append(Finding("performance",
                                f"{stats['not_gated']} benchmarks have fewer than {min_reps} "
                                "repetitions: their changes are shown, not gated (run "
                                "./run.sh bench --full for the gate)", False))
    gone = [k for k in base.runs if k not in new.runs]
    if gone:
        findings.append(Finding("performance", f"{len(gone)} benchmarks of BASE are not in "
                                               "NEW: not compared", False))
    findings += _machine_findings(base, new, moved_controls)
    stats["machine_noise"] = bool(moved_controls or any(busy(x) for x in (base, new)))
    return rows, findings, stats


def _host(b: Bench) -> str:
    rc = b.run_context
    if rc:
        return f"{rc.get('host', '?')} ({rc.get('cpus', '?')} × {rc.get('cpu_model', '?')})"
    c = b.context
    return f"{c.get('host_name', '?')} ({c.get('num_cpus', '?')} CPUs @ {c.get('mhz_per_cpu', '?')} MHz)"


def _fmt(m: Metric, v: float) -> str:
    if m.key.endswith("_ns"):
        return u.duration_ns(v)
    if m.key == "real_time":
        return f"{v:.4g}"
    return u.si(v)


# ---------------------------------------------------------------------------------------------
# locality (information only)


def compare_locality(base, new) -> list[list]:
    def index(loc):
        return {(locality_generator(m), (m.get("stream") or {}).get("writers"),
                 m.get("key_type"), m.get("rows"), payload_of(m)): m for m in loc.matrix}
    rows = []
    bi = index(base)
    for k, n in index(new).items():
        b = bi.get(k)
        if not b:
            continue
        for key, name in (("leaf_pages", "leaf pages"), ("avg_leaf_fill", "leaf fill"),
                          ("splits_per_1k", "splits/1k"), ("pool_miss_rate", "pool miss")):
            bv, nv = number(b.get(key)), number(n.get(key))
            if bv is None or nv is None or bv == nv:
                continue
            ch = (nv - bv) / bv if bv else None
            if ch is None or abs(ch) > 0.01:
                rows.append([f"{k[0]} · {k[1]} writer{'s' if k[1] != 1 else ''}", name,
                             f"{bv:.4g}", f"{nv:.4g}", u.change(ch)])
    return rows


# ---------------------------------------------------------------------------------------------


def md_table(header, rows) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return out


def _input_findings(base: Results, new: Results, allow_missing: bool) -> list[Finding]:
    findings = []
    for name, bp, np_ in (("bench.json", base.bench.present, new.bench.present),
                          ("locality.json", base.locality.present, new.locality.present),
                          ("chaos.json", base.chaos.present, new.chaos.present),
                          (gate_real.FILE, base.real_faults.present, new.real_faults.present),
                          (gate_icount.FILE, base.icount.present, new.icount.present)):
        if bp and not np_:
            findings.append(Finding("inputs", f"{name} is in BASE but missing from NEW: nothing "
                                              "shows NEW is not worse", not allow_missing))
        elif not bp and np_:
            findings.append(Finding("inputs", f"{name} is missing from BASE: NEW's is judged "
                                              "on its own (chaos) or not compared", False))
        elif not bp and not np_ and name in ("bench.json", "locality.json", "chaos.json"):
            findings.append(Finding("inputs", f"{name} is in neither: not compared", False))
    return findings


def _correctness_part(base: Results, new: Results, findings: list[Finding]) -> list[str]:
    out = ["## Correctness (chaos.json)", ""]
    if not new.chaos.present:
        return out + ["chaos.json: not compared.", ""]
    rows, f, compared = compare_chaos(base.chaos if base.chaos.present else Chaos(), new.chaos)
    findings += f
    if new.chaos.complete is False:
        findings.append(Finding("correctness", "NEW's chaos matrix is partial (complete: "
                                               "false): only the cells it has are judged", False))
    bad = sum(1 for r in rows if str(r[-1]).startswith("REGRESSION"))
    out += [f"{compared} cells judged; {bad} with a correctness regression.", ""]
    if rows:
        out += md_table(["cell", "BASE duplicates", "NEW duplicates", "BASE", "NEW", "verdict"],
                        rows)
        out.append("")
    return out


def _real_faults_part(base: Results, new: Results, findings: list[Finding]) -> list[str]:
    out = ["## Real systems under faults (real_chaos.json)", ""]
    if not new.real_faults.present:
        return out + [f"{gate_real.FILE}: not compared.", ""]
    judged = gate_real.judge_real_faults(base.real_faults, new.real_faults)
    findings += [Finding("correctness", f"real systems: {what}", bad) for what, bad in judged]
    findings += [Finding("inputs", p, False) for p in new.real_faults.problems]
    parts = len(new.real_faults.parts())
    bad = sum(1 for _, b in judged if b)
    return out + [f"{parts} real-system fault runs judged; {bad} fail the gate (any duplicate "
                  "fails, whatever BASE had).", ""]


def _icount_part(base: Results, new: Results, threshold: float,
                 findings: list[Finding]) -> list[str]:
    out = ["## Instructions per ID, 1-thread next() (icount.json)", ""]
    if not (base.icount.present and new.icount.present):
        return out + [f"{gate_icount.FILE}: not compared.", ""]
    rows, why_not = gate_icount.compare_icount(base.icount, new.icount, threshold)
    findings += [Finding("inputs", p, False) for p in base.icount.problems + new.icount.problems]
    if why_not:
        findings.append(Finding("performance", f"instruction counts not gated: {why_not}", False))
    for r in rows:
        if r.verdict == "REGRESSION":
            ratio = (f"; {_ratio(r.base_ratio)} → {_ratio(r.new_ratio)} its floor {r.floor}"
                     if r.new_ratio else "")
            findings.append(Finding("performance", f"{r.variant}: instructions per ID "
                                    f"{u.change(r.change)} ({r.base:.1f} → {r.new:.1f}{ratio}; "
                                    f"the gate allows {threshold:.0%})", True))
    ctx = new.icount.context
    plant = ctx.get("plant")
    if plant:
        findings.append(Finding("inputs", f"NEW is a planted build ({plant})", False))
    out += [f"{len(rows)} variants counted ({ctx.get('tool', '?')}, {ctx.get('calls', '?')} calls "
            f"after a warm-up; clock: {ctx.get('clock', '?')}). Gate: more than {threshold:.0%} "
            "more instructions per ID. Each variant's floor is the minimal design of its scheme "
            "(one layout, one policy), counted in the same run; ratio = instr/ID ÷ the floor's.",
            ""]
    out += md_table(["variant", "BASE instr/ID", "NEW instr/ID", "change", "floor", "BASE ratio",
                     "NEW ratio", "verdict"],
                    [[r.variant, f"{r.base:.1f}", f"{r.new:.1f}", u.change(r.change),
                      r.floor or "—", _ratio(r.base_ratio), _ratio(r.new_ratio), r.verdict]
                     for r in rows])
    return out + [""]


def _ratio(value: float | None) -> str:
    return f"{value:.2f}×" if value is not None else "—"


def _paired_note(rows: list, doc) -> Finding | None:
    widened = [r for r in rows if r.widened and r.verdict != "not gated"]
    noisy = [r for r in rows if r.verdict == "too noisy"]
    if not (widened or noisy):
        return None
    med, top = gate_paired.load_during(doc)
    load = (f"load average {med:.1f} (up to {top:.1f}) on {doc['context'].get('cpus', '?')} CPUs "
            "during the rounds" if med is not None else "load not recorded")
    text = (f"the machine was busy ({load}): the rounds disagreed, so {len(widened)} thresholds "
            "were widened beyond their A/A floor (see the threshold column)")
    if noisy:
        text += (f"; {len(noisy)} benchmarks too noisy to judge at all (threshold above "
                 f"{gate_paired.Thresholds().cap:.0%}): " + ", ".join(r.name for r in noisy[:4])
                 + (", …" if len(noisy) > 4 else ""))
    return Finding("performance", text, False)


def _paired_part(new_dir: str, t: "gate_paired.Thresholds",
                 findings: list[Finding]) -> list[str] | None:
    """The interleaved comparison, or None when NEW_DIR holds no interleaved.json."""
    from inputs import read_json
    path = os.path.join(new_dir, gate_paired.FILE)
    if not os.path.exists(path):
        return None
    out = ["## Performance, interleaved (interleaved.json)", ""]
    doc, err = read_json(path)
    if err or not isinstance(doc, dict):
        findings.append(Finding("inputs", f"{err or 'interleaved.json is not an object'}: no "
                                          "performance gate", True))
        return out + [str(err), ""]
    if doc.get("complete") is False:
        findings.append(Finding("inputs", "interleaved.json is partial (complete: false): "
                                          "only its rounds are judged", False))
    rows = gate_paired.judge_all(doc, t)
    for r in rows:
        if r.verdict == "REGRESSION":
            findings.append(Finding("performance", f"{r.name}: IDs/s {u.change(r.change)} "
                                    f"(paired median of {r.n} interleaved rounds; the gate "
                                    f"allows −{r.allowed:.1%})", True))
    moved = [f"{r.name} {u.change(r.change)}" for r in rows if r.verdict == "control moved"]
    if moved:
        findings.append(Finding("performance", "controls without idbench code moved although "
                                "the runs were interleaved: " + ", ".join(moved), False))
    note = _paired_note(rows, doc)
    if note:
        findings.append(note)
    ctx = doc.get("context") or {}
    out += [f"{len(rows)} benchmarks, {len(doc.get('rounds') or [])} rounds of BASE and NEW run "
            f"alternately (--benchmark_min_time {ctx.get('min_time', '?')} s, seed "
            f"{ctx.get('seed', '?')}). Gate: the paired median log-ratio below −max(A/A floor, "
            f"{gate_paired.Z:g} × its standard error); floors {t.floor_1t:g} at 1 thread, "
            f"{t.floor_mt:g} at more (log units: {1 - math.exp(-t.floor_1t):.1%} and "
            f"{1 - math.exp(-t.floor_mt):.1%} fewer IDs/s).", ""]
    out += md_table(["benchmark", "BASE IDs/s", "NEW IDs/s", "paired change", "± SE", "rounds",
                     "slowdown allowed", "verdict"],
                    [[r.name, u.si(r.base_median), u.si(r.new_median), u.change(r.change),
                      f"{r.se:.1%}", r.n, f"−{r.allowed:.1%}" + (" (widened)" if r.widened
                                                                   else ""),
                      ("control: " if r.control else "") + r.verdict] for r in rows])
    return out + [""]


def _quiet(verdict: str) -> bool:
    return (verdict in ("same within noise", "control", "control: same within noise")
            or verdict.startswith("shifted")
            or (verdict.startswith("not gated") and "beyond" not in verdict))


def _performance_part(base: Results, new: Results, gate: dict, show_all: bool,
                      findings: list[Finding]) -> tuple[list[str], bool]:
    """The bench comparison, and whether the machine was noisy."""
    out = ["## Performance (bench.json)", ""]
    if not (base.bench.present and new.bench.present):
        return out + ["bench.json: not compared.", ""], False
    from inputs import BENCH_FILE, read_json
    bdoc, _ = read_json(os.path.join(base.directory, BENCH_FILE))
    ndoc, _ = read_json(os.path.join(new.directory, BENCH_FILE))
    rows, f, stats = compare_bench(base.bench, new.bench, bdoc, ndoc, **gate)
    findings += f
    out += [f"{stats['compared']} benchmarks compared, {stats['gated']} gated "
            f"(≥ {gate['min_reps']} repetitions each side): {stats['regressions']} regressed, "
            f"{stats['improvements']} improved beyond noise; {stats['controls_moved']} of the "
            f"baseline/ controls moved. Gate: Mann–Whitney U p < {gate['alpha']:g} and a median "
            f"change worse than {gate['tput']:.0%} (IDs/s) or {gate['lat']:.0%} (load p99).", ""]
    shown = rows if show_all else [r for r in rows if not _quiet(str(r[7]))]
    if shown:
        out += md_table(["benchmark", "metric", "BASE median", "NEW median", "change",
                         "U test p", "repetitions", "verdict", "GB real_time Δ (p)"], shown)
        out.append("")
    if len(shown) < len(rows):
        out += [f"{len(rows) - len(shown)} more rows unchanged within noise or not gated (--all "
                "shows them).", ""]
    return out, stats["machine_noise"]


def _locality_part(base: Results, new: Results) -> list[str]:
    if not (base.locality.present and new.locality.present):
        return []
    rows = compare_locality(base.locality, new.locality)
    out = ["## Locality (locality.json; information, not gated)", ""]
    out += (md_table(["generator", "metric", "BASE", "NEW", "change"], rows) if rows
            else ["No model figure moved by more than 1 %."])
    return out + [""]


def _verdict_part(findings: list[Finding], machine_noise: bool) -> list[str]:
    regressions = [f for f in findings if f.regression]
    notes = [f for f in findings if not f.regression]
    out = ["## Verdict", ""]
    if regressions:
        out.append(f"**FAIL**: {len(regressions)} regression{'s' if len(regressions) != 1 else ''}."
                   + (" The machine was busy or differed between the runs (see the notes): rerun "
                      "on a quiet machine before blaming the code." if machine_noise else ""))
        out += [f"- {f.area}: {f.what}" for f in regressions]
    else:
        out.append("**PASS**: no correctness regression, no performance regression beyond "
                   "noise.")
    if notes:
        out += ["", "Notes:"] + [f"- {f.area}: {f.what}" for f in notes]
    return out


def _load(directory: str) -> Results:
    """load_results, plus icount.json (bench/run_icount.py) when the directory has one."""
    from inputs import read_json
    results = load_results(directory)
    results.icount = gate_icount.Icount()
    if os.path.exists(os.path.join(directory, gate_icount.FILE)):
        doc, err = read_json(os.path.join(directory, gate_icount.FILE))
        results.icount = (gate_icount.load_icount(doc) if err is None else
                          gate_icount.Icount(present=True, problems=[err]))
    return results


def run(base_dir: str, new_dir: str, alpha: float, tput: float, lat: float, min_reps: int,
        allow_missing: bool, show_all: bool, icount: float = 0.01,
        paired_t: "gate_paired.Thresholds | None" = None) -> tuple[int, str]:
    base, new = _load(base_dir), _load(new_dir)
    out = ["# idbench compare", "", f"BASE `{base_dir}` → NEW `{new_dir}`", ""]
    findings = _input_findings(base, new, allow_missing)
    out += _correctness_part(base, new, findings)
    out += _real_faults_part(base, new, findings)
    out += _icount_part(base, new, icount, findings)
    paired = _paired_part(new_dir, paired_t or gate_paired.Thresholds(), findings)
    if paired is not None:
        out += paired
        machine_noise = False
        findings[:] = [f for f in findings if not f.what.startswith("bench.json is in neither")]
    else:
        perf, machine_noise = _performance_part(
            base, new, {"alpha": alpha, "tput": tput, "lat": lat, "min_reps": min_reps},
            show_all, findings)
        out += perf
    out += _locality_part(base, new) + _verdict_part(findings, machine_noise)
    return (1 if any(f.regression for f in findings) else 0), "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Regression gate: exit 1 when NEW is worse than "
                                             "BASE.")
    ap.add_argument("base_dir")
    ap.add_argument("new_dir")
    ap.add_argument("--alpha", type=float, default=_env_float("IDBENCH_GATE_ALPHA", 0.01))
    ap.add_argument("--throughput-threshold", type=float,
                    default=_env_float("IDBENCH_GATE_THROUGHPUT", 0.10))
    ap.add_argument("--latency-threshold", type=float,
                    default=_env_float("IDBENCH_GATE_LATENCY", 0.20))
    ap.add_argument("--min-repetitions", type=int,
                    default=int(_env_float("IDBENCH_GATE_MIN_REPS", 9)))
    ap.add_argument("--icount-threshold", type=float,
                    default=_env_float("IDBENCH_GATE_ICOUNT", 0.01))
    ap.add_argument("--paired-floor-1t", type=float,
                    default=_env_float("IDBENCH_GATE_PAIRED_1T", gate_paired.Thresholds.floor_1t))
    ap.add_argument("--paired-floor-mt", type=float,
                    default=_env_float("IDBENCH_GATE_PAIRED_MT", gate_paired.Thresholds.floor_mt))
    ap.add_argument("--allow-missing", action="store_true",
                    help="a result file missing from NEW is a note, not a failure")
    ap.add_argument("--all", action="store_true", help="list every benchmark, changed or not")
    args = ap.parse_args(argv)
    try:
        importlib.import_module("scipy.stats")  # checked up front: the U test is the gate
    except ImportError:
        print("compare: python3-scipy is missing (apt-get install python3-scipy; run with "
              "/usr/bin/python3): no U test, no gate", file=sys.stderr)
        return 2
    for d in (args.base_dir, args.new_dir):
        if not os.path.isdir(d):
            print(f"compare: {d} is not a directory", file=sys.stderr)
            return 2
    status, text = run(args.base_dir, args.new_dir, args.alpha, args.throughput_threshold,
                       args.latency_threshold, args.min_repetitions, args.allow_missing,
                       args.all, args.icount_threshold,
                       gate_paired.Thresholds(args.paired_floor_1t, args.paired_floor_mt))
    sys.stdout.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
