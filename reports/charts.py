"""charts.py — the report's charts, drawn with Debian's python3-matplotlib as SVG text.

Each public function takes loaded results (inputs.py) and returns one SVG document as a string;
render.py inlines it into report.html, which therefore opens offline. Text stays text in the
SVG (svg.fonttype "none"): the file is smaller and searchable, and the browser's sans-serif
draws it. Output is deterministic for the same input (fixed hash salt, no date in metadata),
so two renders of one run give the same bytes.

A panel shows at most MAX_SERIES labelled series: a reader tells six lines apart, not eighteen.
Where a chart has more, it is drawn as small multiples sharing their axes, one panel per family
of generators (Snowflake variants; UUID variants; the other schemes: counters, DCE; the floors
and references), a family of more than six split in turn. `panel_series` counts what every
panel draws; `_svg` records it in SERIES_LOG, which charts_test.py checks.

This is the only module that draws: the sections (content.py, real_faults.py,
derived_ids_section.py, worker_ids_section.py) name a chart function here and never import
matplotlib themselves.

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
import worker_ids as wi  # noqa: E402
from inputs import (Bench, Locality, locality_generator, number, payload_of,  # noqa: E402
                    policy_label)

plt.rcParams.update({
    "svg.fonttype": "none",
    "svg.hashsalt": "idbench",
    "font.family": "DejaVu Sans",
    "font.size": 9,
    "axes.titlesize": 9.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 8,
    "legend.frameon": False,
})

MAX_SERIES = 6  # labelled series per panel

_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
            "#7f7f7f", "#bcbd22", "#17becf"]
# The registry's order, from the variant description of the run (set_variant_order); a variant
# the description does not name gets the next free colour.
_order: list[str] = []
_assigned: dict[str, str] = {}
_schemes: dict[str, str] = {}  # variant -> its scheme, from the same description


def set_variant_order(names: list[str], schemes: dict[str, str] | None = None) -> None:
    """Colours are given out in this order (the registry's); forgets the colours given so far.
    `schemes` (variant -> scheme, as the description gives it) sorts variants into families."""
    _order[:] = list(names)
    _assigned.clear()
    _schemes.clear()
    _schemes.update(schemes or {})


def colour_of(variant: str) -> str:
    if variant not in _assigned:
        i = _order.index(variant) if variant in _order else len(_order) + len(
            [v for v in _assigned if v not in _order])
        _assigned[variant] = _PALETTE[i % len(_PALETTE)]
    return _assigned[variant]


SNOWFLAKE, UUID, OTHER = "Snowflake variants", "UUID variants", "other schemes"
FAMILY_ORDER = (SNOWFLAKE, UUID, OTHER)


def family_of(variant: str) -> str:
    """The family a variant is drawn with: its scheme Snowflake; a UUID scheme (or no scheme
    and a uuid name); every other scheme (the counters, DCE, a scheme not known here)."""
    scheme = _schemes.get(variant, "")
    if scheme == "Snowflake":
        return SNOWFLAKE
    if scheme.upper().startswith("UUID") or (not scheme and variant.lower().startswith("uuid")):
        return UUID
    return OTHER


def _other_title(variants: list[str]) -> str:
    """The "other schemes" family named by what is in it: "AUTO_INCREMENT, ticket server, DCE"."""
    names = list(dict.fromkeys(_schemes.get(v) or v for v in variants))
    return ", ".join(names) if len(names) <= 3 else ", ".join(names[:2]) + " and others"


def _chunks(items: list, limit: int = MAX_SERIES) -> list[list]:
    """`items` in runs of at most `limit`, as even as the count allows."""
    if len(items) <= limit:
        return [items] if items else []
    n = -(-len(items) // limit)
    size = -(-len(items) // n)
    return [items[i:i + size] for i in range(0, len(items), size)]


def by_family(variants: list[str]) -> list[tuple[str, list[str]]]:
    """(panel title, variants) per family in FAMILY_ORDER, each at most MAX_SERIES."""
    groups: dict[str, list[str]] = {}
    for v in variants:
        groups.setdefault(family_of(v), []).append(v)
    out = []
    for fam in FAMILY_ORDER:
        vs = groups.get(fam, [])
        parts = _chunks(vs)
        for i, part in enumerate(parts):
            title = _other_title(part) if fam == OTHER else fam
            out.append((title + (f" ({i + 1}/{len(parts)})" if len(parts) > 1 else ""), part))
    return out


NODE_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]

# What every chart drawn so far showed, panel by panel: (figure title, [(panel title, labelled
# series)]). charts_test.py reads it; the report does not.
SERIES_LOG: list[tuple[str, list[tuple[str, int]]]] = []


def panel_series(fig) -> list[tuple[str, int]]:
    """(panel title, labelled series) for every panel of a figure: the distinct legend labels
    of what the panel itself draws (lines, markers, bars, shaded spans). A legend placed in a
    spare panel for the others counts nothing there."""
    out = []
    for ax in fig.axes:
        _, labels = ax.get_legend_handles_labels()
        out.append((ax.get_title() or ax.get_ylabel() or "?", len(dict.fromkeys(labels))))
    return out


def _svg(fig) -> str:
    title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    SERIES_LOG.append((title or (fig.axes[0].get_title() if fig.axes else "?"),
                       panel_series(fig)))
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


def _grid(n: int, cols: int, width: float, height: float, **kw):
    """n panels on rows of `cols`, the spare slots of the last row switched off."""
    cols = max(1, min(cols, n))
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(width, height * rows), squeeze=False, **kw)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.axis("off")
    return fig, flat[:n]


def _panel_legend(ax, **kw) -> None:
    """A panel's own legend, under its x axis (at most MAX_SERIES entries)."""
    if ax.get_legend_handles_labels()[1]:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=7.5, ncol=1,
                  handlelength=2.6, **kw)


# ---------------------------------------------------------------------------------------------
# bench


# The harness's floors and the bench-only references (bench/register.hpp), as the throughput
# chart draws them: name → (legend label, line style). A floor or reference not listed here is
# drawn all the same, under its own name.
FLOOR_LINES = {
    "no-clock": ("floor: no clock read", dict(color="#555555", ls=(0, (1, 1)), marker="^")),
    "clock-once": ("floor: one clock read", dict(color="#555555", ls="-.", marker="v")),
    "clock-once+mutex": ("floor: one clock read + std::mutex (1 thread)",
                         dict(color="#8c564b", ls="-.", marker="D")),
    "clock-once+cas": ("floor: one clock read + compare-exchange (1 thread)",
                       dict(color="#9467bd", ls="-.", marker="P")),
}
REFERENCE_LINES = {
    "clock-under-lock-mutex": ("reference: Twitter's original mutex",
                               dict(color="black", ls="--", marker="x")),
}
FETCH_ADD = ("baseline fetch_add", dict(color="#999999", ls=":", marker="s"))
FLOORS_TITLE = "floors and fetch_add"


def _medians(b: Bench, kind: str, name: str, layout: str | None, threads) -> list[tuple]:
    """(threads, median IDs/s) of one benchmark line, runs without a figure left out."""
    pts = []
    for t in threads:
        r = b.find(kind, name, layout, t)
        y = None if r is None or r.error else r.median("ids_per_s")
        if y:
            pts.append((t, y))
    return pts


def _layout_bound(b: Bench, v: str) -> bool:
    """Whether a variant's IDs follow the layout (Snowflake) rather than ignore it (UUIDs and
    counters run under every layout name with the label 'layout unused')."""
    return any(not r.layout_unused for r in b.runs.values()
               if r.kind == "generate" and r.variant == v and not r.error)


def _reference_family(name: str, families: list[tuple[str, list[str]]]) -> str | None:
    """The family a reference is drawn with: that of the variant its name ends with
    ("clock-under-lock-mutex": mutex's), else the first family."""
    for title, vs in families:
        if any(name.endswith("-" + v) for v in vs):
            return title
    return families[0][0] if families else None


def throughput_panels(b: Bench) -> list[dict]:
    """The panels of the throughput chart: {"title", "layout", "lines": [(kind, name, layout)]}.
    A family whose IDs follow the layout gets one panel per layout (with the references of that
    layout); one that ignores it a single panel; the floors and fetch_add one more."""
    layouts = b.layouts("generate")
    variants = b.variants("generate")
    families = by_family(variants)
    bound = [(t, vs) for t, vs in families if any(_layout_bound(b, v) for v in vs)]
    refs = b.variants("reference")
    ref_home = {r: _reference_family(r, bound) for r in refs}
    panels = []
    for title, vs in families:
        if any(_layout_bound(b, v) for v in vs):
            for layout in layouts:
                lines = [("generate", v, layout) for v in vs]
                lines += [("reference", r, layout) for r in refs if ref_home[r] == title
                          and _medians(b, "reference", r, layout, b.threads("generate"))]
                for i, part in enumerate(_chunks(lines)):
                    panels.append({"title": f"{title} · {layout}" + (f" ({i + 1})" if i else ""),
                                   "layout": layout, "lines": part})
        else:
            first = next((lay for lay in layouts if any(
                b.find("generate", v, lay, t) for v in vs for t in b.threads("generate"))),
                layouts[0] if layouts else None)
            panels.append({"title": title, "layout": None,
                           "lines": [("generate", v, first) for v in vs]})
    floor_lines = [("baseline", "fetch_add", None)] + [("floor", f, None)
                                                       for f in b.variants("floor")]
    floor_lines += [("reference", r, lay) for r in refs if ref_home[r] is None
                    for lay in layouts]
    floor_lines = [x for x in floor_lines if _medians(b, x[0], x[1], x[2], b.threads("generate"))]
    for i, part in enumerate(_chunks(floor_lines)):
        panels.append({"title": FLOORS_TITLE + (f" ({i + 1})" if i else ""), "layout": None,
                       "lines": part})
    return panels


def _line_style(b: Bench, kind: str, name: str, layout: str | None) -> tuple[str, dict]:
    if kind == "generate":
        r = next((x for x in b.runs.values() if x.kind == "generate" and x.variant == name
                  and x.layout == layout), None)
        unused = bool(r and r.layout_unused)
        return name, dict(marker="o", ms=4, lw=1.6, color=colour_of(name),
                          ls="--" if unused else "-")
    if kind == "baseline":
        return FETCH_ADD[0], dict(lw=1.1, ms=3.5, **FETCH_ADD[1])
    known = FLOOR_LINES if kind == "floor" else REFERENCE_LINES
    label, style = known.get(name, (f"{kind}: {name}", dict(color="#555555", ls="--")))
    return label, dict(lw=1.2, ms=4.5, **style)


def _draw_panel(ax, b: Bench, panel: dict, threads) -> tuple[list[float], dict]:
    """The panel's lines; returns every value drawn and, per variant with more than one node
    id, its (threads, cap for those node ids) points."""
    ys_all, multi_node = [], {}
    for kind, name, layout in panel["lines"]:
        pts = _medians(b, kind, name, layout, threads)
        if not pts:
            continue
        label, style = _line_style(b, kind, name, layout)
        if kind == "reference" and panel["layout"] is None and layout:
            label += f" ({layout})"
        if kind in ("floor",) and len(pts) == 1:
            style = dict(style, ms=7, mfc=style.get("color"))  # one point: a filled marker
        ax.plot([t for t, _ in pts], [y for _, y in pts], label=label, **style)
        ys_all += [y for _, y in pts]
        if kind == "generate" and panel["layout"]:
            for t, _ in pts:
                r = b.find("generate", name, layout, t)
                cap, nodes = r.median("cap_per_s"), r.median("nodes")
                if cap and nodes and nodes > 1:
                    multi_node.setdefault(name, []).append((t, cap))
    return ys_all, multi_node


def _cap_lines(ax, cap, near, top, threads, multi_node) -> None:
    """The format cap when it is near the variants (within 3x above `near`, the fastest
    variant of the panel: on the wide layout it is 250x above everything, by design, and only
    named), and the cap for the node ids each multi-node variant used."""
    cap_drawn = bool(cap) and cap <= near * 3
    if cap:
        if cap_drawn:
            ax.axhline(cap, color="black", lw=1.4)
            ax.annotate(f"format cap, 1 node id: {u.si(cap)} IDs/s", (threads[0], cap),
                        xytext=(2, 3), textcoords="offset points", fontsize=7.5)
        else:
            ax.text(0.02, 0.98, f"format cap {u.si(cap)} IDs/s per node id:\nfar above, "
                                "nothing here is capped",
                    transform=ax.transAxes, va="top", fontsize=7)
    # The cap for the node ids a variant used (one per thread for some) may leave the chart at
    # the top; it does not stretch the axis.
    for v, pts in (multi_node.items() if cap_drawn else ()):
        pts = [(threads[0], cap)] + pts if pts[0][0] != threads[0] else pts
        ax.plot([t for t, _ in pts], [c for _, c in pts], color="black", lw=1, ls=":")
        inside = [p for p in pts if p[1] <= top / 1.3] or pts[:1]
        ax.annotate(f"cap × node ids ({v})", inside[-1], xytext=(-4, 4),
                    textcoords="offset points", ha="right", fontsize=7)


def _layout_words(b: Bench, layout: str) -> str:
    """"ts=41,node=5+5,seq=12" of a layout's description, for a panel title."""
    spec = str(b.context.get(f"idbench_layout_{layout}", "")).split(";")[0]
    return ",".join(spec.split(",")[:3])


def throughput_chart(b: Bench) -> str:
    threads = b.threads("generate")
    panels = throughput_panels(b)
    fig, axes = _grid(len(panels), 3, 11, 3.9, sharey=True)
    drawn = []
    for ax, panel in zip(axes, panels):
        ys, multi = _draw_panel(ax, b, panel, threads)
        drawn.append((ax, panel, ys, multi))
        _threads_axis(ax, threads)
        words = _layout_words(b, panel["layout"]) if panel["layout"] else ""
        ax.set_title(panel["title"] + (f"\n{words}" if words else ""), fontsize=9)
    every = [y for _, _, ys, _ in drawn for y in ys]
    if not every:
        axes[0].text(0.5, 0.5, "no data", transform=axes[0].transAxes, ha="center")
        return _svg(fig)
    lo, hi = min(every), max(every)
    caps = []
    for ax, panel, ys, multi in drawn:
        cap = b.layout_cap_per_s(panel["layout"]) if panel["layout"] else None
        if cap and ys and cap <= max(ys) * 3:
            caps.append(cap)
    hi = max([hi] + caps)
    top = hi * 1.8
    for ax, panel, ys, multi in drawn:
        ax.set_yscale("log")
        ax.set_ylim(lo / 1.6, top)
        if panel["layout"] and ys:
            _cap_lines(ax, b.layout_cap_per_s(panel["layout"]),
                       max(y for y in ys), top, threads, multi)
        _si_axis(ax)
        _panel_legend(ax)
    for ax in axes[::3]:
        ax.set_ylabel("IDs per second (log)")
    fig.tight_layout(h_pad=1.0, w_pad=1.2)
    return _svg(fig)


LATENCY_PCTS = (("p50_ns", "p50"), ("p99_ns", "p99"), ("p999_ns", "p99.9"))


def latency_mode(b: Bench, kind: str) -> tuple[str, str] | None:
    """(layout, words) the latency chart of `kind` shows (Bench.latency_layout); None when
    `kind` did not run."""
    layout = b.latency_layout(kind)
    if layout is None:
        return None
    if kind == "generate":
        return layout, f"tight loop, layout {layout}"
    rate = number(_as_float(b.context.get("idbench_load_rate_per_s")))
    return layout, f"offered load {u.si(rate) if rate else ''} IDs/s, layout {layout}"


def latency_chart(b: Bench, kind: str = "generate") -> str:
    """p50, p99 and p99.9 against threads for one kind of run (the tight loop, or offered
    load): one row of three panels per family of variants, sharing the y axis."""
    if latency_mode(b, kind) is None:  # the other kind, rather than nothing
        kind = "load" if kind == "generate" else "generate"
    mode = latency_mode(b, kind)
    if mode is None:
        raise ValueError("no generate/ or load/ benchmarks")
    layout, words = mode
    threads = b.threads(kind)
    families = by_family(b.variants(kind))
    fig, axes = plt.subplots(len(families), 3, figsize=(11, 2.25 * len(families) + 0.5),
                             squeeze=False, sharey=True, sharex=True)
    for (title, vs), axrow in zip(families, axes):
        for ax, (key, name) in zip(axrow, LATENCY_PCTS):
            for v in vs:
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
            ax.set_title(f"{name} · {title}", fontsize=8.5)
        axrow[0].set_ylabel("latency per call (log)")
        axrow[-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), fontsize=7.5,
                         title=title, title_fontsize=7.5)
    for ax in axes[:-1].flat:
        ax.set_xlabel("")
    fig.suptitle(words, fontsize=8.5, x=0.01, ha="left")
    fig.tight_layout()
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


def _is_baseline_line(label: str) -> bool:
    """A line of the single-writer BIGINT baselines ("sequential bigint = ..."), not a variant."""
    return all(" bigint" in part for part in label.split(" = "))


def row_size_panels(loc: Locality) -> list[tuple[str, dict[str, dict[int, float]]]]:
    """(panel title, lines) of the row-size chart: one panel per writer count; where that has
    more than MAX_SERIES lines, one per family of generators, the BIGINT baselines in each."""
    panels = []
    for w in lr.writer_counts(loc):
        lines = lr.fill_lines(loc, w)
        title = f"{w} writer{'s' if w != 1 else ''}"
        if len(lines) <= MAX_SERIES:
            panels.append((title, lines))
            continue
        base = {k: v for k, v in lines.items() if _is_baseline_line(k)}
        room = max(1, MAX_SERIES - len(base))
        groups: dict[str, list[str]] = {}
        for k in lines:
            if k not in base:
                groups.setdefault(family_of(k.split(" = ")[0]), []).append(k)
        for fam in FAMILY_ORDER:
            for part in _chunks(groups.get(fam, []), room):
                panels.append((f"{title} · {fam if fam != OTHER else _other_title(part)}",
                               {**{k: lines[k] for k in part}, **base}))
    return panels


def _fill_line_style(label: str, i: int) -> dict:
    first = label.split(" = ")[0]
    if _is_baseline_line(label):
        return dict(color="#555555" if "sequential" in first else "#aaaaaa", ls="--")
    return dict(color=colour_of(first), ls="-")


def row_size_chart(loc: Locality) -> str:
    """Leaf fill against row size, one line per generator, one panel per writer count (and per
    family when a writer count has more lines than a panel shows); the crossovers of
    locality_rows.crossings() circled."""
    panels = row_size_panels(loc)
    fig, axes = _grid(len(panels), 2, 11, 4.0, sharey=True)
    sizes = loc.row_sizes()
    for ax, (title, lines) in zip(axes, panels):
        for i, (label, line) in enumerate(lines.items()):
            xs = sorted(line)
            ax.plot(xs, [100 * line[x] for x in xs], marker=".", lw=1.4, label=label,
                    **_fill_line_style(label, i))
        for c in lr.crossings(lines):
            ax.plot([c.x], [100 * c.fill], "o", ms=9, mfc="none", mec="#222222", mew=1.1)
        for ref in (100 * 15 / 16, 100 * math.log(2)):
            ax.axhline(ref, color="#888888", lw=0.8, ls=":")
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(x) for x in sizes], fontsize=7)
        ax.set_xlabel("payload bytes beside the key")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="lower left")
    axes[0].set_ylabel("leaf fill (%)")
    lowest = min((100 * f for _, lines in panels for line in lines.values()
                  for f in line.values()), default=0)
    axes[0].set_ylim(max(0, 10 * math.floor(lowest / 10) - 10), 102)
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
        # Two nodes are named one by one; more share one entry (the strips tell them apart),
        # so that a panel keeps to MAX_SERIES labelled series.
        label = (f"node {node.get('node', k)}" if len(nodes) <= 2 else
                 f"nodes 0–{len(nodes) - 1}, one colour each" if k == 0 else "_")
        ax.plot(x, [(a + b) / 2 for a, b in zip(lo, hi)], color=colour, lw=1.1, label=label)
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


# ---------------------------------------------------------------------------------------------
# The real systems under faults (real_faults.py), worker ids derived (derived_ids_section.py)
# and leased (worker_ids_section.py)


def real_fault_timeline(part: dict) -> str:
    """IDs issued per server per bucket, failed requests, and the fault's events, of one
    system through one fault (real_chaos.json)."""
    t = part["timeline"]
    xs = [x / 1000 for x in t["t_ms"]]
    bucket_s = number(t.get("bucket_ms")) or 100
    fig, ax = plt.subplots(figsize=(8, 2.6))
    servers = t.get("ids_per_server") or []
    for i, ids in enumerate(servers):
        ax.step(xs, ids, where="post", color=NODE_COLOURS[i % len(NODE_COLOURS)],
                label=(f"server {i}" if len(servers) < MAX_SERIES else
                       f"servers 0–{len(servers) - 1}" if i == 0 else "_"))
    if any(t.get("failures") or []):
        ax.step(xs, t["failures"], where="post", color="#d62728", label="failed requests")
    for e in part.get("events") or []:
        x = number(e.get("t_ms")) if isinstance(e, dict) else None
        if x is not None:
            ax.axvline(x / 1000, color="#555", linestyle=":", linewidth=1)
    ax.set_xlabel("seconds since the start")
    ax.set_ylabel(f"IDs per {bucket_s:g} ms")
    ax.legend(loc="upper right", fontsize="small")
    verdict = part.get("verdict") if isinstance(part.get("verdict"), dict) else {}
    ax.set_title(f"{part.get('system', '?')}: {verdict.get('verdict', '?')}", fontsize="medium")
    return _svg(fig)


def _objects(xs) -> list[dict]:
    return [x for x in xs if isinstance(x, dict)] if isinstance(xs, list) else []


def collision_chart(doc: dict, derivation: str) -> str:
    """P(collision) against N for one derivation of a worker id (derived_ids.json), one panel
    per address plan (one for the plan-free ones), one colour per node width: lines exact, dots
    simulated with their interval."""
    curves = [c for c in _objects(doc.get("curves"))
              if c.get("derivation") == derivation and isinstance(c.get("bits"), int)]
    plans = list(dict.fromkeys(c.get("plan") for c in curves))
    fig, axes = plt.subplots(1, len(plans), figsize=(3.0 * len(plans) + 1.5, 2.8),
                             sharey=True, squeeze=False)
    bits_order = sorted({c["bits"] for c in curves})
    layouts = {x.get("bits"): ", ".join(map(str, x.get("layouts") or []))
               for x in _objects(doc.get("widths"))}
    for ax, plan in zip(axes[0], plans):
        for cv in (c for c in curves if c.get("plan") == plan):
            colour = NODE_COLOURS[bits_order.index(cv["bits"]) % len(NODE_COLOURS)]
            line = [p for p in cv.get("exact_line") or [] if isinstance(p, list) and len(p) == 2]
            if line:
                ax.plot([p[0] for p in line], [p[1] for p in line], color=colour, linewidth=1.2,
                        label=f"{cv['bits']} bits ({layouts.get(cv['bits'], '')})")
            pts = [p for p in _objects(cv.get("points"))
                   if isinstance(p.get("ci"), list) and len(p["ci"]) == 2 and all(
                       number(x) is not None for x in (p.get("n"), p.get("p"), *p["ci"]))]
            ax.errorbar([p["n"] for p in pts], [p["p"] for p in pts],
                        yerr=[[max(0.0, p["p"] - p["ci"][0]) for p in pts],
                              [max(0.0, p["ci"][1] - p["p"]) for p in pts]],
                        fmt="o", markersize=2.5, color=colour, elinewidth=0.8,
                        label=None if line else f"{cv['bits']} bits (simulated)")
        ax.set_xscale("log")
        ax.set_ylim(-0.03, 1.03)
        for y in (0.01, 0.5):
            ax.axhline(y, color="#999", linestyle=":", linewidth=0.8)
        ax.set_title(plan or derivation, fontsize="medium")
        ax.set_xlabel("live processes N")
    axes[0][0].set_ylabel("P(two share an id)")
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="x-small")
    return _svg(fig)


def worker_ids_timeline(run: dict) -> str:
    """Which node held which worker id when, in one worker-ids run (worker_ids.py draws it)."""
    return _svg(wi.timeline_figure(run))
