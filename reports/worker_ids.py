#!/usr/bin/python3
"""worker_ids.py — the worker-id section from `idbench worker-ids --out` JSON:
one timeline per behaviour and scenario (which node held which worker id when, fence stalls
shaded, other stops hatched, duplicates marked, faults as lines) and the table of behaviours
against faults (the verdict and its duplicates, per-node unavailability, lease churn,
worker-id space). Results written before runs carried a "verdict" show the duplicates alone.

    /usr/bin/python3 reports/worker_ids.py reports/latest/worker_ids.json OUT_DIR

Writes OUT_DIR/worker_ids.md and OUT_DIR/timeline-<scenario>-<behaviour>.png. Reporting only:
every figure comes from the JSON. A missing or malformed input is one sentence (exit 2).
"""
from __future__ import annotations

import json
import os
import sys

BEHAVIOURS = ["unfenced", "deadline", "in-id"]


class InputError(Exception):
    pass


def load(path: str) -> list:
    try:
        with open(path) as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise InputError(f"{path} does not exist: run ./run.sh worker-ids first")
    except (OSError, ValueError) as e:
        raise InputError(f"{path} is not a worker-ids JSON file: {e}")
    runs = doc.get("runs") if isinstance(doc, dict) else None
    if not isinstance(runs, list) or not runs:
        raise InputError(f"{path} has no runs")
    for r in runs:
        for key in ("scenario", "behaviour", "duplicates", "nodes", "holdings", "faults"):
            if key not in r:
                raise InputError(f"{path}: a run has no '{key}'")
    return runs


INTRO = ("Each node leases its worker id from a private 3-member etcd cluster "
         "(`idbench worker-ids`). Behaviours: **unfenced** keeps issuing with the id it "
         "holds; **deadline** stops once TTL − margin has passed since its last answered "
         "keep-alive and re-claims; **in-id** also carries the claim counter in the ID's "
         "generation bits.")


def verdict_word(run: dict) -> str | None:
    """The run's verdict word ("kept", "DUPLICATES", "no evidence"), or None in results written
    before worker_ids.json carried the verdict."""
    v = run.get("verdict")
    return str(v["verdict"]) if isinstance(v, dict) and v.get("verdict") else None


def failed(run: dict) -> bool:
    """The run's verdict failed; in results without a verdict, the run issued duplicates."""
    v = run.get("verdict")
    if isinstance(v, dict) and isinstance(v.get("passed"), bool):
        return not v["passed"]
    return bool(run["duplicates"])


def cell_parts(run: dict) -> tuple[str, list[str]]:
    """One table cell: the verdict (its word, then the duplicates), then the costs."""
    dups = run["duplicates"]
    word = verdict_word(run)
    if word is None:
        verdict = f"{dups:,} DUPLICATES" if dups else "0 duplicates"
    else:
        verdict = f"{word}: {dups:,} duplicates"
    worst = max(run["nodes"], key=lambda n: n["unavailable_ms"])
    stalled = sum(n["stalled_ms"] for n in run["nodes"])
    claims = sum(n["claims"] for n in run["nodes"])
    zombie = sum(n["zombie_ids"] for n in run["nodes"])
    costs = [f"zombie IDs {zombie:,}" if zombie else None,
             f"fence stall {stalled:.0f} ms" if stalled else None,
             f"worst node n{worst['node']} stopped {worst['unavailable_ms']:.0f} ms",
             f"{claims} claims / {len(run['nodes'])} nodes",
             f"ids used {run['workers_claimed']} (0..{run['worker_space_used'] - 1})"]
    return verdict, [c for c in costs if c]


def cell(run: dict) -> str:
    """The cell in Markdown: a failed verdict (duplicates, in results without one) in bold."""
    verdict, costs = cell_parts(run)
    return "; ".join([f"**{verdict}**" if failed(run) else verdict] + costs)


def table_rows(runs: list, cell_of) -> list[list]:
    """One row per fault, one column per behaviour (BEHAVIOURS); `cell_of(run)` fills a cell."""
    scenarios = list(dict.fromkeys(r["scenario"] for r in runs))
    by = {(r["scenario"], r["behaviour"]): r for r in runs}
    return [[s] + [cell_of(by[(s, b)]) if (s, b) in by else "not run" for b in BEHAVIOURS]
            for s in scenarios]


def table(runs: list) -> str:
    lines = ["| fault | " + " | ".join(BEHAVIOURS) + " |",
             "|---|" + "---|" * len(BEHAVIOURS)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(runs, cell)]
    return "\n".join(lines)


def timeline(run: dict, path: str) -> None:
    fig = timeline_figure(run)
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt
    plt.close(fig)


def timeline_figure(run: dict):
    """Which node held which worker id when: a matplotlib figure (the caller saves and closes
    it)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nodes = [n["node"] for n in run["nodes"]]
    fig, ax = plt.subplots(figsize=(10, 0.6 * len(nodes) + 1.6))
    _holdings(ax, run, plt.get_cmap("tab10"))
    _duplicates_and_faults(ax, run, len(nodes))
    ax.set_yticks(nodes)
    ax.set_yticklabels([f"node {n}" for n in nodes])
    ax.set_ylim(-0.6, len(nodes) + 0.3)
    ax.set_xlabel("ms since every node was ready (grey: fence stall or injected pause; "
                  "hatched: no ID issued)")
    ax.set_title(f"{run['scenario']} — {run['behaviour']} (TTL {run['ttl_s']} s, "
                 f"margin {run['margin_ms']} ms, {run['variant']})", fontsize=10)
    fig.tight_layout()
    return fig


def _holdings(ax, run: dict, colours) -> None:
    """The ids each node held (bars), its gaps (hatched) and stalls (grey)."""
    for h in run["holdings"]:
        y = h["node"]
        ax.broken_barh([(h["from_ms"], h["to_ms"] - h["from_ms"])], (y - 0.3, 0.6),
                       facecolor=colours(h["worker"] % 10), alpha=0.55)
        label = f"id {h['worker']}" + (f" g{h['counter'] % (1 << run['gen_bits'])}"
                                       if run.get("gen_bits") else "")
        ax.text(h["from_ms"] + 20, y, label, va="center", fontsize=8)
    for n in run["nodes"]:
        y = n["node"]
        for g in n["gaps"]:
            ax.broken_barh([(g["from_ms"], g["to_ms"] - g["from_ms"])], (y - 0.3, 0.6),
                           facecolor="none", edgecolor="grey", hatch="///", linewidth=0)
        for s in n["stalls"] + n.get("hooks", []):
            ax.broken_barh([(s["from_ms"], s["to_ms"] - s["from_ms"])], (y - 0.3, 0.6),
                           facecolor="grey", alpha=0.45)


def _duplicates_and_faults(ax, run: dict, n_nodes: int) -> None:
    xs = [d["at_b_ms"] for d in run["duplicate_samples"]]
    ys = [d["node_b"] for d in run["duplicate_samples"]]
    xs += [d["at_a_ms"] for d in run["duplicate_samples"]]
    ys += [d["node_a"] for d in run["duplicate_samples"]]
    if xs:
        ax.scatter(xs, ys, marker="x", color="red", s=14, zorder=5,
                   label=f"duplicates ({run['duplicates']:,}; samples)")
        ax.legend(loc="upper right", fontsize=8)
    for i, f in enumerate(run["faults"]):
        ax.axvline(f["at_ms"], color="black", linewidth=0.8, linestyle=":")
        ax.text(f["at_ms"], n_nodes - 0.5 + 0.3 * (i % 2), f["what"][:40], fontsize=7)


def render(runs: list, out_dir: str) -> str:
    os.makedirs(out_dir, exist_ok=True)
    parts = ["## Worker ids from etcd", "", INTRO, "", table(runs), "",
             "### Timelines", ""]
    for r in runs:
        name = f"timeline-{r['scenario']}-{r['behaviour']}.png"
        timeline(r, os.path.join(out_dir, name))
        parts += [f"![{r['scenario']} {r['behaviour']}]({name})", ""]
    text = "\n".join(parts)
    tmp = os.path.join(out_dir, ".worker_ids.md.tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(out_dir, "worker_ids.md"))
    return text


def main(argv: list) -> int:
    if len(argv) != 3:
        print("usage: worker_ids.py WORKER_IDS_JSON OUT_DIR", file=sys.stderr)
        return 2
    try:
        runs = load(argv[1])
    except InputError as e:
        print(f"worker_ids.py: {e}", file=sys.stderr)
        return 2
    render(runs, argv[2])
    print(f"worker_ids.py: {len(runs)} runs -> {argv[2]}/worker_ids.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
