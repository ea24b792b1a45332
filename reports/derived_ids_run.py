#!/usr/bin/python3
"""derived_ids_run.py — computes the worker-id figures and writes derived_ids.json: for each
derivation (derived_ids.py) and address plan, P(two live processes share an id) against the
fleet size, exactly and simulated, at every node width the layouts of `idbench list --json`
have; where each crosses 1 % and 50 %; and the claim policies' costs (id_claims.py).

    /usr/bin/python3 reports/derived_ids_run.py --idbench build/bin/idbench \\
        --out reports/latest/derived_ids.json [--trials 1000] [--seed 15] [--pods-per-node 30]
    /usr/bin/python3 reports/derived_ids_run.py --layouts list.json --out F   # a saved list --json

The simulation is seeded: one numpy Generator per (seed, derivation, plan, fleet size), so a
rerun with the same arguments writes the same numbers. This is a model, not a measurement of
this machine; it runs in Python because it is arithmetic over address plans (SciPy for the
exact binomial intervals) that only the report reads, with no hot path to measure.

Exit: 0 written; 2 bad input (one line on stderr); 4 the idbench binary is missing.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import derived_ids as w  # noqa: E402
import id_claims as c  # noqa: E402

SCHEMA = "idbench-derived-ids/1"
FILE = "derived_ids.json"
N_MAX = 32768
# Fleet sizes simulated: two per octave, 2 .. 32,768.
GRID = sorted({round(2 ** (k / 2)) for k in range(2, 31)})
TTLS_S = (5, 10, 30, 60)
FLEETS = (10, 100, 500, 1000)
CRASH_SHARE = 0.05  # of exits that skip the shutdown hook (SIGKILL, OOM kill, lost node)
HORIZON_H = 24.0


class BadInput(Exception):
    """One line for stderr, exit 2."""


def widths_from(description: object) -> list[dict]:
    """The node widths of the layouts `idbench list --json` describes: [{bits, layouts}]."""
    layouts = description.get("layouts") if isinstance(description, dict) else None
    if not isinstance(layouts, list) or not layouts:
        raise BadInput("the layout description has no 'layouts' list (idbench list --json)")
    by_bits: dict[int, list[str]] = {}
    for lay in layouts:
        ids = lay.get("max_node") if isinstance(lay, dict) else None
        if not isinstance(ids, int) or isinstance(ids, bool) or ids < 1 or (ids + 1) & ids:
            raise BadInput(f"layout {lay.get('name') if isinstance(lay, dict) else lay!r}: "
                           "max_node is not 2^k - 1")
        by_bits.setdefault((ids + 1).bit_length() - 1, []).append(str(lay.get("name", "?")))
    return [{"bits": b, "layouts": names} for b, names in sorted(by_bits.items())]


def capacity(plan: w.Plan | None, pods_per_node: int, max_n: int = N_MAX) -> int:
    """The largest fleet shown: max_n, or fewer where the plan has no room for more."""
    if plan is None:
        return max_n
    if plan.kind == "flat":
        return min(max_n, plan.size())
    return min(max_n, plan.max_nodes() * pods_per_node)


def _cells() -> list[tuple[w.Derivation, w.Plan | None]]:
    return [(d, p) for d in w.DERIVATIONS for p in (w.PLANS if d.per_plan else [None])]


def simulated_points(deriv: str, plan: w.Plan | None, bits_list: list[int], trials: int,
                     seed: int, pods_per_node: int, max_n: int) -> dict[int, list[dict]]:
    """Per width, one point per fleet size of GRID the plan has room for."""
    points: dict[int, list[dict]] = {b: [] for b in bits_list}
    d_index = [d.name for d in w.DERIVATIONS].index(deriv)
    p_index = w.PLANS.index(plan) + 1 if plan else 0
    for n in GRID:
        if n > capacity(plan, pods_per_node, max_n) or not w.applicable(plan, n, pods_per_node):
            break
        t = w.trials_for(deriv, plan, n, trials, pods_per_node)
        rng = np.random.default_rng([seed, d_index, p_index, n])
        hits = w.simulate(deriv, plan, n, bits_list, t, pods_per_node, rng)
        for b in bits_list:
            e = w.exact(deriv, plan, b, n, pods_per_node)
            lo, hi = w.clopper_pearson(hits[b], t)
            points[b].append({"n": n, "nodes": len(w.placement(n, pods_per_node)),
                              "exact": e, "trials": t, "collided": hits[b], "p": hits[b] / t,
                              "ci": [lo, hi],
                              "agrees": None if e is None else bool(lo - 1e-12 <= e <= hi + 1e-12)})
    return points


def exact_line(deriv: str, plan: w.Plan | None, bits: int, pods_per_node: int,
               max_n: int) -> list:
    """[[n, P]] on ~100 log-spaced fleet sizes, where a closed form exists."""
    top = capacity(plan, pods_per_node, max_n)
    ns = sorted({int(round(x)) for x in np.geomspace(2, top, 120)})
    line = []
    for n in ns:
        if w.applicable(plan, n, pods_per_node):
            e = w.exact(deriv, plan, bits, n, pods_per_node)
            if e is not None:
                line.append([n, e])
    return line


def threshold(deriv: str, plan: w.Plan | None, bits: int, target: float, pods_per_node: int,
              points: list[dict], max_n: int) -> dict:
    """The smallest fleet with P >= target: exact where the closed form covers it, else the
    first simulated fleet size past it."""
    if any(p["exact"] is None for p in points):
        first = next((p["n"] for p in points if p["p"] >= target), None)
        return {"n": first, "basis": "simulated"}
    return {"n": w.crossing(deriv, plan, bits, target, pods_per_node,
                            capacity(plan, pods_per_node, max_n)), "basis": "exact"}


def curves(widths: list[dict], trials: int, seed: int, pods_per_node: int,
           max_n: int = N_MAX) -> list[dict]:
    bits_list = [x["bits"] for x in widths]
    cells = _cells()
    out, started = [], time.monotonic()
    for i, (d, plan) in enumerate(cells, 1):
        points = simulated_points(d.name, plan, bits_list, trials, seed, pods_per_node, max_n)
        for b in bits_list:
            out.append({"derivation": d.name, "plan": plan.name if plan else None, "bits": b,
                        "capacity": capacity(plan, pods_per_node, max_n), "points": points[b],
                        "exact_line": exact_line(d.name, plan, b, pods_per_node, max_n),
                        "n_1pct": threshold(d.name, plan, b, 0.01, pods_per_node, points[b],
                                            max_n),
                        "n_50pct": threshold(d.name, plan, b, 0.5, pods_per_node, points[b],
                                             max_n)})
        spent = time.monotonic() - started
        print(f"derived-ids: [{i}/{len(cells)}] {d.name} {plan.name if plan else ''} "
              f"({spent:.0f} s, about {spent / i * (len(cells) - i):.0f} s left)", file=sys.stderr)
    return out


def claims_tables(twitter_bits: int = 10) -> dict:
    space = 2 ** twitter_bits
    rows = []
    for n in FLEETS:
        rows.append({
            "n": n,
            "restarts_until_exhausted": {p: c.restarts_until_exhausted(p, n, space, CRASH_SHARE)
                                         for p in ("never", "clean")},
            "restarts_per_h_exhausting": {
                "never": c.restarts_per_hour_exhausting("never", n, space, HORIZON_H, 1, 10),
                "clean": c.restarts_per_hour_exhausting("clean", n, space, HORIZON_H,
                                                        CRASH_SHARE, 10),
                **{f"lease_ttl_{t}s": c.lease_exhausting_rate_per_h(n, space, 1.0, t)
                   for t in TTLS_S}},
            "renewals_per_s": {f"ttl_{t}s": c.renewals_per_s(n, t) for t in TTLS_S},
            "etcd_writes_per_s_measured": None,  # filled from idbench worker-ids --rates
        })
    return {"node_bits": twitter_bits, "space": space, "crash_share": CRASH_SHARE,
            "horizon_h": HORIZON_H, "ttls_s": list(TTLS_S), "rows": rows,
            "generation_bits": [c.generation_cost(b, g) | {"node_bits": b}
                                for b in (10, 16) for g in range(0, 5)]}


def _commit() -> str | None:
    """<12 hex>, with -dirty for a modified tree (as plumbing/run_context.hpp writes it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain",
                                "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return (head + ("-dirty" if dirty else "")) or None
    except (OSError, subprocess.SubprocessError):
        return None


def build(description: object, trials: int, seed: int, pods_per_node: int,
          max_n: int = N_MAX) -> dict:
    widths = widths_from(description)
    return {
        "schema": SCHEMA,
        "context": {"generated_utc": dt.datetime.now(dt.timezone.utc).strftime(
                        "%Y-%m-%dT%H:%M:%SZ"),
                    "host": platform.node(), "commit": _commit(), "seed": seed,
                    "trials": trials, "pods_per_node": pods_per_node, "max_n": max_n,
                    "confidence": 0.999, "kind": "model (not a measurement of this machine)"},
        "widths": widths,
        "plans": [{"name": p.name, "summary": p.summary} for p in w.PLANS],
        "derivations": [{"name": d.name, "summary": d.summary, "source": d.source}
                        for d in w.DERIVATIONS],
        "curves": curves(widths, trials, seed, pods_per_node, max_n),
        "claims": claims_tables(),
    }


def read_description(args) -> object:
    if args.layouts:
        try:
            with open(args.layouts, encoding="utf-8") as f:
                return json.load(f)
        except OSError as e:
            raise BadInput(f"cannot read {args.layouts}: {e.strerror}")
        except ValueError as e:
            raise BadInput(f"{args.layouts} is not JSON: {e}")
    out = subprocess.run([args.idbench, "list", "--json"], capture_output=True, text=True,
                         timeout=60)
    if out.returncode != 0:
        raise BadInput(f"{args.idbench} list --json failed (exit {out.returncode})")
    try:
        return json.loads(out.stdout)
    except ValueError as e:
        raise BadInput(f"{args.idbench} list --json is not JSON: {e}")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        raise BadInput(message)


def main(argv=None) -> int:
    ap = _Parser(description="Write derived_ids.json: worker-id collision probabilities.")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--idbench", help="the idbench binary (its `list --json` gives the layouts)")
    src.add_argument("--layouts", help="a saved `idbench list --json`")
    ap.add_argument("--out", required=True, help="where to write derived_ids.json")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--pods-per-node", type=int, default=30)
    ap.add_argument("--max-n", type=int, default=N_MAX, help="the largest fleet (default 32768)")
    try:
        args = ap.parse_args(argv)
        if args.trials < 100:
            raise BadInput(f"--trials {args.trials}: at least 100")
        if not 1 <= args.pods_per_node <= w.HOSTS_PER_NODE:
            raise BadInput(f"--pods-per-node {args.pods_per_node}: 1 .. {w.HOSTS_PER_NODE} "
                           "(a node's /24)")
        if not 2 <= args.max_n <= N_MAX:
            raise BadInput(f"--max-n {args.max_n}: 2 .. {N_MAX}")
        if args.seed < 0:
            raise BadInput(f"--seed {args.seed}: not negative")
        if args.idbench and not (os.path.isfile(args.idbench) and os.access(args.idbench, os.X_OK)):
            print(f"derived-ids: {args.idbench} is not an executable (build it: "
                  "./run.sh build)", file=sys.stderr)
            return 4
        doc = build(read_description(args), args.trials, args.seed, args.pods_per_node,
                    args.max_n)
    except BadInput as e:
        print(f"derived-ids: {e}", file=sys.stderr)
        return 2
    from render import write_atomically
    try:
        write_atomically(args.out, json.dumps(finite(doc), indent=1, allow_nan=False) + "\n")
    except OSError as e:
        print(f"derived-ids: cannot write {args.out}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"derived-ids: wrote {args.out}", file=sys.stderr)
    return 0


def finite(x):
    """JSON has no infinity: a limit that is never reached is written null ("never")."""
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [finite(v) for v in x]
    return x


if __name__ == "__main__":
    sys.exit(main())
