"""charts.py — the report's charts, drawn with Debian's python3-matplotlib as SVG text.

Each public function takes loaded results (inputs.py) and returns one SVG document as a string;
render.py inlines it into report.html, which therefore opens offline. Text stays text in the
SVG (svg.fonttype "none"): the file is smaller and searchable, and the browser's sans-serif
draws it. Output is deterministic for the same input (fixed hash salt, no date in metadata),
so two renders of one run give the same bytes.

Every variant keeps its colour in every chart (`colour_of`), so a reader follows one variant from
the throughput chart to the timelines without a legend hunt.

Thread safety: matplotlib's pyplot state is global; call from one thread.
"""
from __future__ import annotations

import io
import math
import re

import matplotlib

matplotlib.use("Agg")  # no display: the report is rendered headless, in CI too
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter, NullLocator  # noqa: E402

import units as u  # noqa: E402
import locality_rows as lr  # noqa: E402
from inputs import (Bench, Locality, locality_generator, number, payload_of,  # noqa: E402
                    policy_label)

plt.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "idbench",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
})

_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf"]
# The registry's order, from the variant description of the run (set_variant_order); a variant
# the description does not name gets the next free colour.
_order: list[str] = []
_assigned: dict[str, str] = {}


def set_variant_order(names: list[str]) -> None:
    """Colours are given out in this order (the registry's); forgets the colours given so far."""
    _order[:] = list(names)
    _assigned.clear()


def colour_of(variant: str) -> str:
    if variant not in _assigned:
        i = _order.index(variant) if variant in _order else len(_order) + len(
            [v for v in _assigned if v not in _order])
        _assigned[variant] = _PALETTE[i % len(_PALETTE)]
    return _assigned[variant]


NODE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    # Inline use: drop the XML prolog and DOCTYPE, keep the <svg> element.
    start = text.find("<svg")
    return text[start:] if start >= 0 else text


def _si_axis(ax, axis="y"):
    a = ax.yaxis if axis == "y" else ax.xaxis
    a.set_major_formatter(FuncFormatter(lambda v, _: u.si(v) if v > 0 else "0"))
    # Minor ticks unlabelled: matplotlib's log-scale minor labels crowd the axis and cost
    # most of the time of a render.
    a.set_minor_formatter(NullFormatter())


def _ns_axis(ax):
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: u.duration_ns(v) if v > 0 else "0"))
    ax.yaxis.set_minor_formatter(NullFormatter())


def _legend_entries(axes) -> tuple[list, list[str]]:
    """Every panel's legend entries, each label once, in first-seen order: one legend for a
    figure of several panels."""
    handles, labels = [], []
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    return handles, labels


def _threads_axis(ax, threads):
    ax.set_xscale("log", base=2)
    ax.set_xticks(threads)
    ax.set_xticklabels([str(t) for t in threads])
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("threads")


# ---------------------------------------------------------------------------------------------
# bench


# The harness's floors and the bench-only references (bench/register.hpp), as the throughput
# chart draws them: name → (legend label, line style). A floor or reference not listed here is
# drawn all the same, under its own name.
FLOOR_LINES = {
    "no-clock": ("floor: no clock read (the harness's own cost per ID)",
                 dict(color="#555555", ls=(0, (1, 1)), marker="^")),
    "clock-once": ("floor: one clock read per ID (harness + clock)",
                   dict(color="#555555", ls="-.", marker="v")),
    "clock-once+mutex": ("floor, 1 thread: one clock read + one std::mutex (under mutex)",
                         dict(color="#666666", ls="-.", marker="D")),
    "clock-once+cas": ("floor, 1 thread: one clock read + one compare-exchange (under cas)",
                       dict(color="#666666", ls="-.", marker="P")),
}
REFERENCE_LINES = {
    "clock-under-lock-mutex": ("reference: Twitter's original mutex (clock read under the lock)",
                               dict(color="black", ls="--", marker="x")),
}


def _medians(b: Bench, kind: str, name: str, layout: str | None, threads) -> list[tuple]:
    """(threads, median IDs/s) of one benchmark line, runs without a figure left out."""
    pts = []
    for t in threads:
        r = b.find(kind, name, layout, t)
        y = None if r is None or r.error else r.median("ids_per_s")
        if y:
            pts.append((t, y))
    return pts


def _variant_lines(ax, b: Bench, layout: str, threads) -> tuple[list[float], dict]:
    """One line per variant; returns every value drawn and, per variant with more than one node
    id, its (threads, cap for those node ids) points."""
    ys_all, multi_node = [], {}
    for v in b.variants("generate"):
        xs, ys = [], []
        unused = False
        for t in threads:
            r = b.find("generate", v, layout, t)
            y = None if r is None or r.error else r.median("ids_per_s")
            if y:
                xs.append(t)
                ys.append(y)
                unused = r.layout_unused
                cap, nodes = r.median("cap_per_s"), r.median("nodes")
                if cap and nodes and nodes > 1:
                    multi_node.setdefault(v, []).append((t, cap))
        if xs:
            ax.plot(xs, ys, marker="o", ms=4, lw=1.6, color=colour_of(v),
                    ls="--" if unused else "-", label=v)
            ys_all += ys
    return ys_all, multi_node


def _reference_lines(ax, b: Bench, layout: str, threads) -> list[float]:
    """The lines every variant is read against: fetch_add (one shared atomic word, the floor of
    any shared counter), the harness's floors, and the bench-only references; returns every
    value drawn."""
    lines = [(_medians(b, "baseline", "fetch_add", None, threads), "baseline fetch_add",
              dict(color="#999999", ls=":", marker="s"))]
    for kind, names, known in (("floor", b.variants("floor"), FLOOR_LINES),
                               ("reference", b.variants("reference"), REFERENCE_LINES)):
        for name in names:
            label, style = known.get(name, (f"{kind}: {name}", dict(color="#555555", ls="--")))
            lines.append((_medians(b, kind, name, layout if kind == "reference" else None,
                                   threads), label, style))
    ys_all = []
    for pts, label, style in lines:
        if pts:
            ax.plot([t for t, _ in pts], [y for _, y in pts], lw=1, ms=3, label=label,
                    **style)
            ys_all += [y for _, y in pts]
    return ys_all


def _cap_lines(ax, cap, lo, hi, near, threads, multi_node) -> float:
    """The format cap when it is near the variants (within 3x above `near`, the fastest
    variant: on the wide layout it is 250x above everything, by design, and only named), and
    the cap for the node ids each multi-node variant used; returns the top of the y axis."""
    cap_drawn = bool(cap) and cap <= near * 3
    if cap:
        if cap_drawn:
            ax.axhline(cap, color="black", lw=1.4)
            ax.annotate(f"format cap, 1 node id: {u.si(cap)} IDs/s", (threads[0], cap),
                        xytext=(2, 3), textcoords="offset points", fontsize=8)
            hi = max(hi, cap)
        else:
            ax.text(0.01, 0.99, f"format cap: {u.si(cap)} IDs/s per node id, far above "
                                "the chart: nothing here is capped",
                    transform=ax.transAxes, va="top", fontsize=8)
    top = hi * 1.6
    ax.set_ylim(lo / 1.6, top)
    # The cap for the node ids a variant used (one per thread for some) may leave the chart at
    # the top; it does not stretch the axis.
    for v, pts in (multi_node.items() if cap_drawn else ()):
        pts = [(threads[0], cap)] + pts if pts[0][0] != threads[0] else pts
        ax.plot([t for t, _ in pts], [c for _, c in pts], color="black", lw=1, ls=":")
        inside = [p for p in pts if p[1] <= top / 1.3] or pts[:1]
        ax.annotate(f"cap × node ids ({v})", inside[-1], xytext=(-4, 4),
                    textcoords="offset points", ha="right", fontsize=7)
    return top


def throughput_chart(b: Bench) -> str:
    layouts = b.layouts("generate")
    threads = b.threads("generate")
    fig, axes = plt.subplots(1, len(layouts), figsize=(5.4 * len(layouts), 4.6), squeeze=False)
    for ax, layout in zip(axes[0], layouts):
        variant_ys, multi_node = _variant_lines(ax, b, layout, threads)
        ys = variant_ys + _reference_lines(ax, b, layout, threads)
        if not ys:
            ax.text(0.5, 0.5, "no data", transform=ax.transAxes, ha="center")
            continue
        ax.set_yscale("log")
        _cap_lines(ax, b.layout_cap_per_s(layout), min(ys), max(ys), max(variant_ys or ys),
                   threads, multi_node)
        _si_axis(ax)
        _threads_axis(ax, threads)
        ax.set_ylabel("IDs per second (log)")
        spec = b.context.get(f"idbench_layout_{layout}", "")
        ax.set_title(f"layout {layout}" + (f"\n{str(spec).split(';')[0]}" if spec else ""))
    handles, labels = _legend_entries(axes[0])
    ncol = min(4, len(labels))
    fig.legend(handles, labels, loc="lower center", ncol=ncol, bbox_to_anchor=(0.5, -0.02))
    rows = -(-len(labels) // max(1, ncol))
    fig.tight_layout(rect=(0, min(0.3, 0.035 * rows + 0.02), 1, 1))
    return _svg(fig)


def latency_chart(b: Bench) -> str:
    rows = []
    gl = b.layouts("generate")
    if gl:
        layout = "wide" if "wide" in gl else gl[0]
        rows.append(("generate", layout, f"tight loop, layout {layout}"))
    ll = b.layouts("load")
    if ll:
        layout = "twitter" if "twitter" in ll else ll[0]
        rate = number(_as_float(b.context.get("idbench_load_rate_per_s")))
        rows.append(("load", layout, f"offered load {u.si(rate) if rate else ''} IDs/s, "
                                     f"layout {layout}"))
    pcts = (("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"))
    fig, axes = plt.subplots(len(rows), 3, figsize=(11, 3.3 * len(rows)), squeeze=False,
                             sharey="row")
    for (kind, layout, title), axrow in zip(rows, axes):
        threads = b.threads(kind)
        for ax, (key, name) in zip(axrow, pcts):
            for v in b.variants(kind):
                xs, ys = [], []
                for t in threads:
                    r = b.find(kind, v, layout, t)
                    y = None if r is None or r.error else r.median(key)
                    if y and y > 0:
                        xs.append(t)
                        ys.append(y)
                if xs:
                    ax.plot(xs, ys, marker="o", ms=3.5, lw=1.4, color=colour_of(v), label=v)
            ax.set_yscale("log")
            _ns_axis(ax)
            _threads_axis(ax, threads)
            ax.set_title(f"{name} — {title}", fontsize=9)
        axrow[0].set_ylabel("latency per call (log)")
    handles, labels = _legend_entries(axes.flat)
    fig.legend(handles, labels, loc="lower center", ncol=min(8, len(labels)),
               bbox_to_anchor=(0.5, -0.01))
    fig.tight_layout(rect=(0, 0.05 if len(rows) > 1 else 0.1, 1, 1))
    return _svg(fig)


def _as_float(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------
# locality


def locality_chart(loc: Locality) -> str:
    gens: dict[str, dict] = {}
    writers: list = []
    for m in loc.at_row():
        g = locality_generator(m)
        w = (m.get("stream") or {}).get("writers")
        gens.setdefault(g, {})[w] = m
        if w not in writers:
            writers.append(w)
    writers = sorted(writers, key=lambda w: (w is None, w or 0))
    names = list(gens)
    metrics = (("avg_leaf_fill", "leaf fill", 100, "%"),
               ("splits_per_1k", "page splits per 1,000 inserts", 1, ""),
               ("pool_miss_rate", "buffer-pool miss rate", 100, "%"))
    fig, axes = plt.subplots(1, 3, figsize=(11, 0.2 * len(names) * max(1, len(writers)) + 1.4),
                             sharey=True)
    height = 0.8 / max(1, len(writers))
    shades = ["#4c72b0", "#dd8452", "#55a868", "#c44e52"]
    for ax, (key, title, scale, unit) in zip(axes, metrics):
        for j, w in enumerate(writers):
            ys, vals = [], []
            for i, g in enumerate(names):
                m = gens[g].get(w)
                v = number(m.get(key)) if m else None
                if v is not None:
                    ys.append(i + (j - (len(writers) - 1) / 2) * height)
                    vals.append(v * scale)
            label = f"{w} writer{'s' if w != 1 else ''}" if w is not None else "writers ?"
            bars = ax.barh(ys, vals, height=height * 0.92, color=shades[j % len(shades)],
                           label=label)
            for bar, v in zip(bars, vals):
                ax.annotate(("<0.1%" if 0 < v < 0.05 else f"{v:.1f}{unit}") if scale == 100
                            else f"{v:.2f}",
                            (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                            xytext=(2, 0), textcoords="offset points", va="center", fontsize=7)
        if key == "avg_leaf_fill":
            for ref, name in ((100 * 15 / 16, "15/16"), (100 * math.log(2), "ln 2")):
                ax.axvline(ref, color="#666666", lw=0.9, ls="--")
                ax.annotate(name, (ref, len(names) - 0.4), ha="center", fontsize=7,
                            color="#444444")
            ax.set_xlim(0, 112)
        else:
            lim = ax.get_xlim()[1]
            ax.set_xlim(0, lim * 1.18 if lim > 0 else 1)
        ax.set_title(title + (f" ({unit})" if unit else ""))
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(range(len(names)))
    axes[0].set_yticklabels(names)
    axes[0].invert_yaxis()
    axes[0].legend(loc="lower left", bbox_to_anchor=(0, 1.06), ncol=len(writers))
    engine = {m.get("engine") for m in loc.matrix}
    fig.suptitle(f"engine: {', '.join(map(str, engine))}; "
                 f"{u.count(number(loc.matrix[0].get('rows')))} rows per stream; "
                 f"payload {loc.decision_payload_bytes} B beside the key", fontsize=8,
                 x=0.99, ha="right")
    fig.tight_layout()
    return _svg(fig)


def row_size_chart(loc: Locality) -> str:
    """Leaf fill against row size, one line per generator, one panel per writer count; the
    crossovers of locality_rows.crossings() circled."""
    ws = lr.writer_counts(loc)
    fig, axes = plt.subplots(1, len(ws), figsize=(5.6 * len(ws), 4.2), sharey=True, squeeze=False)
    sizes = loc.row_sizes()
    for ax, w in zip(axes[0], ws):
        lines = lr.fill_lines(loc, w)
        for i, (label, line) in enumerate(lines.items()):
            xs = sorted(line)
            ax.plot(xs, [100 * line[x] for x in xs], marker=".", lw=1.4, label=label,
                    color=plt.cm.tab10(i % 10), ls="-" if i < 10 else "--")
        for c in lr.crossings(lines):
            ax.plot([c.x], [100 * c.fill], "o", ms=9, mfc="none", mec="#222222", mew=1.1)
        for ref in (100 * 15 / 16, 100 * math.log(2)):
            ax.axhline(ref, color="#888888", lw=0.8, ls=":")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(x) for x in sizes], fontsize=7)
        ax.set_xlabel("payload bytes beside the key")
        ax.set_title(f"{w} writer{'s' if w != 1 else ''}", fontsize=9)
        ax.legend(fontsize=6.5, loc="lower left")
    axes[0][0].set_ylabel("leaf fill (%)")
    lowest = min((100 * f for w in ws for line in lr.fill_lines(loc, w).values()
                  for f in line.values()), default=0)
    axes[0][0].set_ylim(max(0, 10 * math.floor(lowest / 10) - 10), 102)
    fig.suptitle(f"InnoDB model, {u.count(number(loc.matrix[0].get('rows')))} rows per stream; "
                 "circles: crossovers", fontsize=8, x=0.99, ha="right")
    fig.tight_layout()
    return _svg(fig)


ENGINES = (("model", "model", "#4c72b0"), ("innodb", "InnoDB (MariaDB)", "#c44e52"),
           ("sqlite", "SQLite", "#55a868"), ("postgres", "PostgreSQL", "#8172b2"))


def engines_chart(loc: Locality) -> str:
    rows = loc.validation_rows()
    names = [str(r.get("stream", "?")) + (f", {payload_of(r)} B" if payload_of(r) else "")
             for r in rows]
    present = [e for e in ENGINES if any(isinstance(r.get(e[0]), dict) for r in rows)]
    metrics = (("avg_leaf_fill", "leaf fill (%)", 100), ("splits_per_1k",
                                                         "page splits per 1,000 inserts", 1))
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.13 * len(names) * len(present) + 1.4),
                             sharey=True)
    height = 0.84 / max(1, len(present))
    for ax, (key, title, scale) in zip(axes, metrics):
        for j, (k, label, colour) in enumerate(present):
            ys, vals, missing = [], [], []
            for i, r in enumerate(rows):
                y = i + (j - (len(present) - 1) / 2) * height
                e = r.get(k)
                v = number(e.get(key)) if isinstance(e, dict) else None
                if v is None:
                    if isinstance(e, dict):
                        missing.append(y)
                    continue
                ys.append(y)
                vals.append(v * scale)
            ax.barh(ys, vals, height=height * 0.92, color=colour, label=label)
            for y in missing:
                ax.annotate("n/a", (0, y), xytext=(2, 0), textcoords="offset points",
                            va="center", fontsize=6.5, color="#666666")
        if key == "avg_leaf_fill":
            for ref in (100 * 15 / 16, 100 * math.log(2)):
                ax.axvline(ref, color="#666666", lw=0.9, ls="--")
            ax.set_xlim(0, 105)
        ax.set_title(title)
        ax.grid(axis="y", visible=False)
    axes[0].set_yticks(range(len(names)))
    axes[0].set_yticklabels(names)
    axes[0].invert_yaxis()
    axes[0].legend(loc="lower left", bbox_to_anchor=(0, 1.06), ncol=len(present))
    n = number((rows[0].get("model") or {}).get("rows")) if rows else None
    fig.suptitle(f"{u.count(n)} rows per stream; n/a: the engine does not count splits",
                 fontsize=8, x=0.99, ha="right")
    fig.tight_layout()
    return _svg(fig)


# ---------------------------------------------------------------------------------------------
# chaos timelines

# The DCE clock sequence beside the other answers that keep their promise; unsafe last.
_POLICY_ORDER = ["refuse", "wait", "bounded-wait", "borrow", "clock-sequence", "unsafe"]


def _policy_rank(cell):
    p = str(cell.get("policy", ""))
    base = p.split(":")[0]
    return (_POLICY_ORDER.index(base) if base in _POLICY_ORDER else len(_POLICY_ORDER),
            p, bool(cell.get("persist")), policy_label(cell))


def _event_label(event: dict, time_scale: float) -> str:
    """A short label for a clock event: '−200 ms'.

    The size comes from the event's `step_ms` when chaos.json has it. Otherwise it is read
    from the event's text, which names the unscaled size (scenario.cpp keeps `why` as a
    string_view that `scaled()` cannot rewrite), so it is multiplied by the cell's time scale:
    at --time-scale 0.5 the "−1 s" step is really −0.5 s, as the IDs show."""
    step = number(event.get("step_ms"))
    if step is not None:
        return _signed_ms(step)
    what = str(event.get("what", ""))
    m = re.search(r"(back|forward|by)\s+([−+-]?)(\d+(?:\.\d+)?)\s*(ms|s)\b", what)
    if m:
        sign = -1 if m.group(1) == "back" or m.group(2) in ("−", "-") else 1
        ms = float(m.group(3)) * (1000 if m.group(4) == "s" else 1)
        return _signed_ms(sign * ms * time_scale)
    m = re.search(r"\(([−+-])(\d+(?:\.\d+)?)\s*(ms|s)\)", what)
    if m:
        sign = -1 if m.group(1) in ("−", "-") else 1
        ms = float(m.group(2)) * (1000 if m.group(3) == "s" else 1)
        return _signed_ms(sign * ms * time_scale)
    return what if len(what) <= 18 else what[:16] + "…"


def _signed_ms(ms: float) -> str:
    sign = "−" if ms < 0 else "+"
    a = abs(ms)
    return f"{sign}{a / 1000:g} s" if a >= 1000 else f"{sign}{a:g} ms"


def _broken(points, gap):
    """x, lo, hi with NaN where consecutive points are further apart than `gap`, so lines do
    not bridge a stretch in which no ID was issued."""
    xs, lo, hi = [], [], []
    prev = None
    for p in points:
        if prev is not None and p[0] - prev > gap:
            xs.append(math.nan)
            lo.append(math.nan)
            hi.append(math.nan)
        xs.append(p[0] / 1000)
        lo.append(p[1] / 1000)
        hi.append(p[2] / 1000)
        prev = p[0]
    return xs, lo, hi


def _timeline_nodes(ax, t: dict) -> tuple[float, float, float, int]:
    """Each node's band of ID times, and its refused and down stretches. Returns (last x,
    lowest y, highest y, how many per-node strips the bottom of the panel holds)."""
    nodes = t.get("nodes") if isinstance(t.get("nodes"), list) else []
    xmax, ymin, ymax = 0.0, math.inf, -math.inf
    strips = 0  # nodes with a refused/down strip at the bottom of the panel
    for k, node in enumerate(nodes):
        pts = [p for p in node.get("points", []) if isinstance(p, list) and len(p) >= 3
               and all(number(x) is not None for x in p[:3])]
        if not pts:
            continue
        xs_all = [p[0] for p in pts]
        steps = sorted(b - a for a, b in zip(xs_all, xs_all[1:]) if b > a)
        gap = 2.5 * steps[len(steps) // 2] if steps else math.inf
        x, lo, hi = _broken(pts, gap)
        colour = NODE_COLOURS[k % len(NODE_COLOURS)]
        ax.fill_between(x, lo, hi, color=colour, alpha=0.35, lw=0)
        ax.plot(x, [(a + b) / 2 for a, b in zip(lo, hi)], color=colour, lw=1.1,
                label=f"node {node.get('node', k)}")
        xmax = max(xmax, max(xs_all) / 1000)
        ymin = min(ymin, min(p[1] for p in pts) / 1000)
        ymax = max(ymax, max(p[2] for p in pts) / 1000)
        # Refused and down stretches: full-height shading, plus a strip per node at the
        # bottom so two nodes' intervals stay apart.
        for kind, colour_span in (("refused", "#d62728"), ("down", "#7f7f7f")):
            for iv in node.get(kind, []) or []:
                if isinstance(iv, list) and len(iv) == 2 and None not in iv:
                    ax.axvspan(iv[0] / 1000, iv[1] / 1000, color=colour_span, alpha=0.10,
                               lw=0, label=kind if kind == "refused" else "down / frozen")
                    ax.axvspan(iv[0] / 1000, iv[1] / 1000, ymin=0.012 + 0.03 * k,
                               ymax=0.034 + 0.03 * k, color=colour, alpha=0.9, lw=0)
                    strips = max(strips, k + 1)
                    xmax = max(xmax, iv[1] / 1000)
    return xmax, ymin, ymax, strips


def _timeline_marks(ax, c: dict, t: dict) -> None:
    """Duplicates (a sample) and the clock events of one cell."""
    dups = [d for d in t.get("duplicates", []) or []
            if isinstance(d, list) and len(d) >= 2 and None not in d[:2]]
    if dups:
        ax.scatter([d[0] / 1000 for d in dups], [d[1] / 1000 for d in dups], marker="x",
                   s=22, color="#d62728", lw=1.2, zorder=5, label="duplicate (sample)")
    scale = number((c.get("config") or {}).get("time_scale")) or 1.0
    for i, e in enumerate(x for x in t.get("events", []) or [] if isinstance(x, dict)):
        x = number(e.get("x_ms"))
        if x is None:
            continue
        ax.axvline(x / 1000, color="#444444", lw=0.8, ls=":")
        # Staggered: steps 0.3 s apart would print their labels over each other.
        ax.annotate(_event_label(e, scale), (x / 1000, 1), xycoords=("data", "axes fraction"),
                    xytext=(2, -9 - 9 * (i % 2)), textcoords="offset points", fontsize=7,
                    color="#333333")


def _timeline_panel(ax, c: dict) -> None:
    """One cell (one policy): ID time against true time."""
    t = c["timeline"]
    xmax, ymin, ymax, strips = _timeline_nodes(ax, t)
    if math.isinf(ymin):
        ax.text(0.5, 0.5, "no IDs issued", transform=ax.transAxes, ha="center")
        ymin, ymax = 0, max(xmax, 1)
    # Where a correct clock puts the IDs: y = x (both measured from the reference start).
    ax.plot([0, xmax], [0, xmax], color="#888888", lw=0.9, ls="--", label="true time")
    _timeline_marks(ax, c, t)
    lo_y, hi_y = min(ymin, 0), max(ymax, xmax)
    span = hi_y - lo_y if hi_y > lo_y else 1
    # Room at the top for the event labels and at the bottom for the per-node strips.
    lo_y -= span * (0.04 + 0.045 * strips)
    hi_y += span * 0.12
    ax.set_ylim(lo_y, hi_y)
    ax.set_xlim(0, xmax * 1.01 if xmax else 1)
    dupn = number(c.get("duplicates"))
    avail = number(c.get("availability"))
    verdict = ("BROKEN" if c.get("promise_kept") is False else
               "caught" if dupn else "kept" if c.get("promise_kept") else "?")
    policy = policy_label(c)
    figures = (f"{u.count(dupn)} dup, {u.count(number(c.get('refusals')))} refused, avail. "
               f"{u.percent(avail, 0)} — {verdict}")
    # A long label (clock-sequence gen=2 + persisted mark) puts the figures on a line of their own.
    ax.set_title(f"{policy}:" + ("\n" if len(policy) > 24 else " ") + figures, fontsize=8.5,
                 color="#b00020" if verdict == "BROKEN" else "black")
    ax.set_xlabel("true time since start (s)")
    ref = t.get("reference_start_utc")
    ax.set_ylabel("time in IDs (s)" + (f"\n0 = {ref}" if ref else ""), fontsize=7.5)


def _timeline_legend(fig, axes, n: int, scenario: str) -> None:
    """One legend for every panel: in the spare panel (5 policies on a 2×3 grid), else below."""
    spare = list(axes.flat)[n:]
    handles, labels = _legend_entries(list(axes.flat)[:n])
    order = ("node", "true time", "refused", "down / frozen", "duplicate (sample)")
    ranked = sorted(zip(handles, labels), key=lambda hl: next(
        (i for i, o in enumerate(order) if hl[1].startswith(o)), len(order)))
    handles, labels = [h for h, _ in ranked], [lab for _, lab in ranked]
    if spare:
        for ax in spare:
            ax.axis("off")
        spare[0].legend(handles, labels, loc="center", fontsize=8.5, frameon=False,
                        title=f"{scenario}\nstrips at the bottom: refused/down per node",
                        title_fontsize=8)
    else:
        fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)),
                   bbox_to_anchor=(0.5, -0.02))


def timeline_chart(scenario: str, cells: list[dict]) -> str:
    cells = sorted(cells, key=_policy_rank)
    n = len(cells)
    cols = 3 if n > 2 else n
    rowsn = math.ceil(n / cols)
    fig, axes = plt.subplots(rowsn, cols, figsize=(11, 3.1 * rowsn), squeeze=False)
    for ax, c in zip(axes.flat, cells):
        _timeline_panel(ax, c)
    _timeline_legend(fig, axes, n, scenario)
    fig.tight_layout()
    return _svg(fig)
