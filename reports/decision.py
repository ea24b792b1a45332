"""decision.py — the decision table of BRIEF §7, each scheme's row filled with this run's numbers.

Which variants make up a scheme comes from the variant description the results carry (each
variant's `scheme` field; inputs.Description), never from a list of names here. What the brief
says about a scheme (sortable, made where, ops burden, pick when) is keyed by the scheme's name.
A scheme the brief does not know, or a measured variant without a scheme (or without a
description), gets a row of its own with dashes for the brief's words.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import units as u
from document import BAD, Table
from inputs import Bench, Chaos, Locality, Results, locality_generator, locality_variants, number
from real_faults import scheme_fault_text, systems_of_scheme
from real_systems import NOT_MEASURED, real_schemes, scheme_cell
from real_systems_locality import with_real_locality


@dataclass(frozen=True)
class SchemeWords:
    """A scheme's row of the brief's table."""

    sortable: str
    made_where: str
    ops_burden: str
    pick_when: str
    note: str = ""  # printed under the table


# The brief's table, in its order.
BRIEF = {
    "AUTO_INCREMENT": SchemeWords(
        "yes", "database", "very low", "one database is enough",
        "the IDs/s and p99 columns are an in-process lower bound (one shared atomic, no round "
        "trip); the real-system column is the scheme itself, MariaDB's AUTO_INCREMENT, one round "
        "trip per request"),
    "UUIDv4": SchemeWords("no", "application", "low", "no order needed, must be unguessable"),
    "ticket server": SchemeWords(
        "yes*", "database", "medium (two servers)", "short numeric ids, many app servers",
        "the IDs/s and p99 columns are an in-process lower bound (two counters, odd and even, no "
        "round trip); the real-system column is Flickr's scheme on two MariaDB servers, one round "
        "trip per request; * unique, but the two streams drift apart in time"),
    "Snowflake": SchemeWords("yes (k-sorted)", "application", "high (worker ids, clocks)",
                             "millions of ids/s"),
    "UUIDv7": SchemeWords("yes (k-sorted)", "application", "low (a library)",
                          "time order without worker ids"),
    # Not in §7's table: the DCE rule of §8 (issue 14), the seeds' forgotten 1994 answer.
    "DCE": SchemeWords(
        "v6 yes (k-sorted); v1 no (time low bits first)", "application",
        "low (a library; stable storage for the clock sequence, a node id)",
        "time order that keeps issuing, without duplicates, when the clock steps back",
        "the variants run under the clock-sequence policy; its real peer (a library that reads "
        "the clock and keeps its state itself, own_clock in the description) is shown apart, "
        "in-process, in the real-system column, and under the clock faults after the rule's "
        "own cells"),
}
NOT_IN_THE_BRIEF = SchemeWords(u.DASH, u.DASH, u.DASH, "not in the brief's table")

PREFERRED_LAYOUT = "twitter"  # the layout whose figures the table shows, when it ran
LOWER_BOUND = "in-process lower bound (no round trip): "  # before a lower bound's figures


@dataclass(frozen=True)
class Scheme:
    name: str
    variants: tuple[str, ...]  # registry order
    words: SchemeWords


def schemes(results: Results) -> list[Scheme]:
    """The brief's schemes, then the description's other schemes that were measured, then each
    measured variant that belongs to no scheme, then the schemes only real systems measured."""
    by_scheme = results.description.schemes()
    measured = dict.fromkeys(results.bench.variants("generate")
                             + locality_variants(results.locality))
    out = [Scheme(name, tuple(by_scheme.get(name, ())), words) for name, words in BRIEF.items()]
    out += [Scheme(name, tuple(vs), NOT_IN_THE_BRIEF) for name, vs in by_scheme.items()
            if name not in BRIEF and any(v in measured for v in vs)]
    grouped = {v for vs in by_scheme.values() for v in vs}
    out += [Scheme(f"({v})", (v,), NOT_IN_THE_BRIEF) for v in measured if v not in grouped]
    known = {s.name.lower() for s in out}
    out += [Scheme(name, (), NOT_IN_THE_BRIEF) for name in real_schemes(results.bench.real)
            if name.lower() not in known]
    return out


def _first_present(options, present):
    for o in options:
        if o in present:
            return o
    return present[0] if present else None


def _bench_value(b: Bench, kind, variant, layout, threads, key):
    r = b.find(kind, variant, layout, threads)
    return None if r is None or r.error else r.median(key)


def _shown_variant(results: Results, s: Scheme, layout: str | None) -> str | None:
    """The variant a row shows: the fastest at 2 threads, else the first that ran anywhere,
    else the scheme's first."""
    b = results.bench
    gen_variants = b.variants("generate")
    if b.present and layout:
        speeds = [(_bench_value(b, "generate", v, layout, 2, "ids_per_s") or
                   _bench_value(b, "generate", v, layout, 1, "ids_per_s") or -1, v)
                  for v in s.variants if v in gen_variants]
        if speeds:
            return max(speeds)[1]
    ran = set(gen_variants) | {locality_generator(m) for m in results.locality.matrix} | {
        c.get("variant") for c in results.chaos.ran()}
    present = [v for v in s.variants if v in ran]
    return present[0] if present else (s.variants[0] if s.variants else None)


def _speed_cells(b: Bench, shown: str | None, layout: str | None, d: dict) -> tuple[str, str]:
    if not (b.present and layout and shown in b.variants("generate")):
        return ("not measured",) * 2 if b.present else ("bench.json missing",) * 2
    ids1 = _bench_value(b, "generate", shown, layout, 1, "ids_per_s")
    ids2 = _bench_value(b, "generate", shown, layout, 2, "ids_per_s")
    cap1 = _bench_value(b, "generate", shown, layout, 1, "cap_ratio")
    p99 = _bench_value(b, "generate", shown, layout, 2, "p99_ns")
    p999 = _bench_value(b, "generate", shown, layout, 2, "p999_ns")
    d.update(ids_per_s_1t=ids1, ids_per_s_2t=ids2, cap_ratio_1t=cap1, p99_ns_2t=p99,
             p999_ns_2t=p999, layout=layout)
    speed = f"{u.si(ids1)} · {u.si(ids2)}" + (f" (cap ratio {u.ratio(cap1)} at 1)"
                                               if cap1 is not None else "")
    return speed, f"{u.duration_ns(p99)} · {u.duration_ns(p999)}"


def _lower_bound(results: Results, shown: str | None, cells: tuple[str, str],
                 d: dict) -> tuple[str, str]:
    """A variant that stands in for a system paying a round trip per ID says so in its cells
    (when they hold its figures)."""
    if ("ids_per_s_1t" not in d or
            results.description.get(shown or "").get("in_process_lower_bound") is not True):
        return cells
    speed, tail = cells
    return LOWER_BOUND + speed, "lower bound: " + tail


def _locality_cells(loc: Locality, s: Scheme, shown: str | None, d: dict) -> tuple[str, str]:
    """Leaf fill per writer count, and splits and pool misses at the most writers (the model),
    at the row size the table describes (loc.decision_payload_bytes)."""
    at_row = loc.at_row()
    loc_shown = _first_present((shown,) + s.variants,
                               [g for g in map(locality_generator, at_row) if g in s.variants])
    entries = [m for m in at_row if locality_generator(m) == loc_shown]
    if not entries:
        return ("not measured",) * 2 if loc.present else ("locality.json missing",) * 2
    fills = {(m.get("stream") or {}).get("writers"): number(m.get("avg_leaf_fill"))
             for m in entries}
    most = max(entries, key=lambda m: number((m.get("stream") or {}).get("writers")) or 0)
    splits, miss = number(most.get("splits_per_1k")), number(most.get("pool_miss_rate"))
    ws = sorted(k for k in fills if k is not None)
    d.update(locality_payload_bytes=loc.decision_payload_bytes,
             leaf_fill_by_writers={str(k): fills[k] for k in ws},
             splits_per_1k_most_writers=splits, pool_miss_rate_most_writers=miss)
    return (" · ".join(u.percent(fills[k], 0) for k in ws),
            f"{u.fixed(splits, 1)} · {u.percent(miss, 1)}")


def scheme_chaos(ch: Chaos, variants: tuple[str, ...]) -> dict:
    """What the chaos matrix found for a scheme's variants; {} when none of them ran."""
    cells = [c for c in ch.ran() if c.get("variant") in variants]
    if not cells:
        return {}
    promising = [c for c in cells if c.get("duplicates_expected") is False]
    broken = [c for c in cells if c.get("promise_kept") is False]
    dups_promised = sum(number(c.get("duplicates")) or 0 for c in promising)
    step = {}
    for c in cells:
        if c.get("scenario") == "ntp-step-back" and not c.get("persist"):
            a = number(c.get("availability"))
            if a is not None and c.get("policy") != "unsafe":
                p = c.get("policy")
                step[p] = min(step.get(p, 1.0), a)
    skew = [number(c.get("ksort_bound_ms")) for c in cells if c.get("scenario") == "skew"]
    skew = [x for x in skew if x is not None]
    return {"cells": len(cells), "promising_cells": len(promising),
            "duplicates_where_promised_none": dups_promised, "broken": len(broken),
            "ntp_step_back_availability": step, "ksort_bound_ms_under_skew":
            max(skew) if skew else None}


def _clock_cell(results: Results, s: Scheme, shown: str | None, chaos: dict) -> Any:
    ch = results.chaos
    if chaos:
        step = chaos["ntp_step_back_availability"]
        avail = ""
        if step:
            hi = max(step, key=step.get)
            lo = min(step, key=step.get)
            avail = (f"; ntp-step-back availability {u.percent(step[hi], 0)} ({hi})"
                     + (f" … {u.percent(step[lo], 0)} ({lo})" if lo != hi else ""))
        if chaos["broken"]:
            return f"{chaos['broken']} broken promise{'s' if chaos['broken'] != 1 else ''}", BAD
        return (f"{u.count(chaos['duplicates_where_promised_none'])} duplicates in "
                f"{chaos['promising_cells']} cells that promise none{avail}")
    if not ch.present:
        return "chaos.json missing"
    if any(c.get("variant") in s.variants for c in ch.cells):
        return "did not run (skipped or failed)"
    if results.description.get(shown or "").get("time_based") is False:
        return "no clock: not in the chaos matrix"
    return "not in this chaos matrix"


def real_peers(results: Results, variants: tuple[str, ...]) -> tuple[str, ...]:
    """A scheme's real peers: its variants that are a real library run in-process, reading the
    clock and keeping its state itself (`own_clock` in the description). The row shows them
    apart from the scheme's own variants; () when every variant is one."""
    peers = tuple(v for v in variants if results.description.get(v).get("own_clock") is True)
    return peers if len(peers) < len(variants) else ()


def _joined(cell: Any, text: str, bad: bool) -> Any:
    """A cell with `text` after it, marked bad when either part is."""
    first, was_bad = cell if isinstance(cell, tuple) else (cell, False)
    joined = f"{first}; {text}"
    return (joined, BAD) if was_bad or bad else joined


def _peer_speed_text(b: Bench, peer: str, layout: str | None, d: dict) -> str:
    """A real peer's in-process figures, for the real-system column."""
    if not (b.present and layout and peer in b.variants("generate")):
        return f"{peer} (real peer, in-process): not measured"
    ids1 = _bench_value(b, "generate", peer, layout, 1, "ids_per_s")
    ids2 = _bench_value(b, "generate", peer, layout, 2, "ids_per_s")
    p99 = _bench_value(b, "generate", peer, layout, 2, "p99_ns")
    d.setdefault("real_peer_bench", {})[peer] = {"ids_per_s_1t": ids1, "ids_per_s_2t": ids2,
                                                 "p99_ns_2t": p99}
    return (f"{peer} (real peer, in-process, no round trip): {u.si(ids1)} · {u.si(ids2)} IDs/s "
            f"at 1 · 2 threads, p99 {u.duration_ns(p99)} at 2")


def _with_peers(results: Results, peers: tuple[str, ...], layout: str | None, real: Any,
                clock: Any, d: dict) -> tuple[Any, Any]:
    """The real-system and clock-faults cells with the scheme's real peers added."""
    for p in peers:
        text = _peer_speed_text(results.bench, p, layout, d)
        real = text if real == NOT_MEASURED else _joined(real, text, False)
        chaos = scheme_chaos(results.chaos, (p,))
        d.setdefault("real_peer_chaos", {})[p] = chaos
        peer_clock = _clock_cell(results, Scheme(p, (p,), NOT_IN_THE_BRIEF), p, chaos)
        text, bad = peer_clock if isinstance(peer_clock, tuple) else (peer_clock, False)
        clock = _joined(clock, f"real peer {p}: {text}", bad)
    return real, clock


def _row(results: Results, scheme: Scheme, layout: str | None) -> tuple[list, dict]:
    peers = real_peers(results, scheme.variants)
    s = Scheme(scheme.name, tuple(v for v in scheme.variants if v not in peers), scheme.words)
    shown = _shown_variant(results, s, layout)
    d: dict[str, Any] = {"scheme": s.name, "variants": list(scheme.variants), "shown": shown,
                         "real_peers": list(peers)}
    speed, tail = _lower_bound(results, shown, _speed_cells(results.bench, shown, layout, d), d)
    real = scheme_cell(results.bench.real, s.name, s.variants, d)
    fill, locality = _locality_cells(results.locality, s, shown, d)
    fill = with_real_locality(fill, results.bench.real, s.name, s.variants, d)
    timed = any(v in {c.get("variant") for c in results.chaos.ran()} for v in s.variants)
    chaos = d["chaos"] = scheme_chaos(results.chaos, s.variants) if timed else {}
    sortable = s.words.sortable
    if chaos.get("ksort_bound_ms_under_skew") is not None:
        sortable += f"; k-sort bound {u.duration_ms(chaos['ksort_bound_ms_under_skew'])} under skew"
    name = s.name + (f" ({shown})" if shown and (len(s.variants) > 1 or shown != s.variants[0])
                     else "")
    clock = _clock_cell(results, s, shown, chaos)
    real, clock = _with_peers(results, peers, layout, real, clock, d)
    faults = scheme_fault_text(results.real_faults, systems_of_scheme(results.bench.real, s.name,
                                                                        s.variants))
    if faults is not None:
        d["real_faults"] = faults[0]
        clock = _joined(clock, faults[0], faults[1])
    return [name, sortable, s.words.made_where, s.words.ops_burden, s.words.pick_when, speed,
            tail, real, fill, locality, clock], d


def locality_row_words(payload: int) -> str:
    """Which rows the locality figures describe, for a column header."""
    return "key-only rows" if payload == 0 else f"rows of key + {payload} B"


REAL_COLUMN = "real system, 1 ID/request: IDs/s per client · at T clients, p99 round trip"


def decision_table(results: Results) -> tuple[Table, list[dict], list[str]]:
    """The table, the figures behind each row (for summary.json), and the notes under it."""
    layout = _first_present((PREFERRED_LAYOUT,), results.bench.layouts("generate"))
    rows_words = locality_row_words(results.locality.decision_payload_bytes)
    rows, data, notes = [], [], []
    for s in schemes(results):
        row, d = _row(results, s, layout)
        rows.append(row)
        data.append(d)
        if s.words.note:
            notes.append(f"{s.name}: {s.words.note}.")
    t = Table(["scheme (variant)", "sortable", "made where", "ops burden", "pick when",
               f"IDs/s 1 · 2 threads ({layout or '?'})", "p99 · p99.9, 2 threads",
               REAL_COLUMN, f"leaf fill 1 · 8 writers, {rows_words}",
               f"splits/1k · pool miss, 8 writers, {rows_words}",
               "clock faults"],
              rows, align="lllllllllll",
              caption="The seeds' decision table (BRIEF §7), each row with this run's numbers. "
                      "Where a scheme has several variants, the fastest at 2 threads is shown. "
                      "The real-system column is the scheme running for real (idbench real): "
                      "requests of 1 ID, each client thread with its own adapter and connection, "
                      "at the stated durability; beside it, a variant marked 'in-process lower "
                      "bound' is the same scheme as atomics inside the process.")
    return t, data, notes
