"""decision.py — the decision table: each scheme of the classic table with this run's numbers.

Which variants make up a scheme comes from the variant description the results carry (each
variant's `scheme` field; inputs.Description), never from a list of names here. What the classic
table says about a scheme (sortable, made where, ops burden, pick when) is keyed by the scheme's
name. A scheme that table does not know, or a measured variant without a scheme (or without a
description), gets a row of its own with dashes for those words.

Every cell is one value or a short phrase (at most 12 words); what explains it (the real
systems' figures in full, the availability under clock faults, why a figure is a lower bound)
is a numbered note under the table, and the cell says "[n]".

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import units as u
from document import BAD, Notes, Table, cell_notes, cell_text, expanded  # noqa: F401
from inputs import Bench, Chaos, Locality, Results, locality_generator, locality_variants, number
from real_faults import scheme_fault_text, systems_of_scheme
from real_systems import NOT_MEASURED, real_schemes, scheme_cell, scheme_short
from real_systems_locality import real_locality

MAX_WORDS = 12  # words in a cell, its note reference included


@dataclass(frozen=True)
class SchemeWords:
    """A scheme's row of the classic table, each cell a short phrase; the notes say the rest."""

    sortable: str
    made_where: str
    ops_burden: str
    pick_when: str
    note: str = ""  # why the in-process figures are not the scheme's own: a note on them
    sortable_note: str = ""
    ops_note: str = ""
    clock_note: str = ""  # how the clock-faults column reads for this scheme


# The classic table, in its order, and the DCE rule after it.
SEEDS_TABLE = {
    "AUTO_INCREMENT": SchemeWords(
        "yes", "database", "very low", "one database is enough",
        note="AUTO_INCREMENT: the IDs/s and p99 columns are an in-process lower bound (one "
             "shared atomic, no round trip); the real-system column is the scheme itself, "
             "MariaDB's AUTO_INCREMENT, one round trip per request."),
    "UUIDv4": SchemeWords("no", "application", "low", "no order needed, must be unguessable"),
    "ticket server": SchemeWords(
        "yes*", "database", "medium (two servers)", "short numeric ids, many app servers",
        note="ticket server: the IDs/s and p99 columns are an in-process lower bound (two "
             "counters, odd and even, no round trip); the real-system column is Flickr's scheme "
             "on two MariaDB servers, one round trip per request.",
        sortable_note="ticket server: * unique, but the two streams (odd and even) drift apart "
                      "in time."),
    "Snowflake": SchemeWords("yes (k-sorted)", "application", "high (worker ids, clocks)",
                             "millions of ids/s"),
    "UUIDv7": SchemeWords("yes (k-sorted)", "application", "low (a library)",
                          "time order without worker ids"),
    # The 1994 DCE rule for a clock that steps back: a clock sequence that changes with every
    # backward step, so the node keeps issuing at the clock's time without a duplicate.
    "DCE": SchemeWords(
        "v6 yes, v1 no", "application", "low (a library)",
        "time order that keeps issuing when the clock steps back",
        sortable_note="DCE: UUIDv6 is k-sorted; UUIDv1 puts the time's low bits first, so its "
                      "IDs do not sort by time.",
        ops_note="DCE: stable storage for the clock sequence, and a node id.",
        clock_note="DCE: the variants run under the clock-sequence policy; its real peer (a "
                   "library that reads the clock and keeps its state itself, own_clock in the "
                   "description) is shown apart, in-process, in the real-system column, and "
                   "under the clock faults after the rule's own cells."),
}
NOT_IN_THE_TABLE = SchemeWords(u.DASH, u.DASH, u.DASH, "not in the classic table")

PREFERRED_LAYOUT = "twitter"  # the layout whose figures the table shows, when it ran
LOWER_BOUND_NOTE = ("in-process lower bound: the variant stands in for a system that pays a "
                    "round trip per ID, which these figures leave out.")


@dataclass(frozen=True)
class Scheme:
    name: str
    variants: tuple[str, ...]  # registry order
    words: SchemeWords


def schemes(results: Results) -> list[Scheme]:
    """The classic schemes, then the description's other schemes that were measured, then each
    measured variant that belongs to no scheme, then the schemes only real systems measured."""
    by_scheme = results.description.schemes()
    measured = dict.fromkeys(results.bench.variants("generate")
                             + locality_variants(results.locality))
    out = [Scheme(name, tuple(by_scheme.get(name, ())), words)
           for name, words in SEEDS_TABLE.items()]
    out += [Scheme(name, tuple(vs), NOT_IN_THE_TABLE) for name, vs in by_scheme.items()
            if name not in SEEDS_TABLE and any(v in measured for v in vs)]
    grouped = {v for vs in by_scheme.values() for v in vs}
    out += [Scheme(f"({v})", (v,), NOT_IN_THE_TABLE) for v in measured if v not in grouped]
    known = {s.name.lower() for s in out}
    out += [Scheme(name, (), NOT_IN_THE_TABLE) for name in real_schemes(results.bench.real)
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
        return ("not measured",) * 2 if b.present else ("no bench.json",) * 2
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


def is_lower_bound(results: Results, shown: str | None, d: dict) -> bool:
    """Whether a row's figures are a variant standing in for a system that pays a round trip
    per ID (the description's in_process_lower_bound), when the row has figures."""
    return ("ids_per_s_1t" in d and
            results.description.get(shown or "").get("in_process_lower_bound") is True)


def _locality_cells(loc: Locality, s: Scheme, shown: str | None, d: dict) -> tuple[str, str]:
    """Leaf fill per writer count, and splits and pool misses at the most writers (the model),
    at the row size the table describes (loc.decision_payload_bytes)."""
    at_row = loc.at_row()
    loc_shown = _first_present((shown,) + s.variants,
                               [g for g in map(locality_generator, at_row) if g in s.variants])
    entries = [m for m in at_row if locality_generator(m) == loc_shown]
    if not entries:
        return ("not measured",) * 2 if loc.present else ("no locality.json",) * 2
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


def program_verdicts(ch: Chaos, scheme: str) -> dict[str, dict[str, str]]:
    """The real systems' programs of a scheme under clock faults (chaos --matrix --systems):
    {system: {scenario: verdict word}}, in the order they ran."""
    out: dict[str, dict[str, str]] = {}
    for c in ch.programs:
        if str(c.get("scheme") or "").lower() != scheme.lower() or c.get("skipped"):
            continue
        v = c.get("fault_verdict") if isinstance(c.get("fault_verdict"), dict) else {}
        word = "error" if c.get("error") else str(v.get("verdict") or "?")
        out.setdefault(str(c["system"]), {})[str(c.get("scenario") or "?")] = word
    return out


def _programs_text(verdicts: dict[str, dict[str, str]]) -> tuple[str, str, bool]:
    """The programs' part of the clock-faults cell: (a few words, in full, any not kept)."""
    failed = {n: w for n, w in verdicts.items() if any(x != "kept" for x in w.values())}
    full = "; ".join(f"{n}: " + ", ".join(f"{sc} {w}" for sc, w in w.items())
                     for n, w in verdicts.items())
    short = f"real programs: {len(failed)} of {len(verdicts)} not kept"
    return short, "real programs under clock faults: " + full, bool(failed)


def _clock_text(results: Results, s: Scheme, shown: str | None,
                chaos: dict) -> tuple[str, str, bool]:
    """(the clock-faults cell in a few words, in full, whether a promise broke)."""
    ch = results.chaos
    if chaos:
        if chaos["broken"]:
            text = f"{chaos['broken']} broken promise{'s' if chaos['broken'] != 1 else ''}"
            return text, text, True
        step = chaos["ntp_step_back_availability"]
        avail = ""
        if step:
            hi = max(step, key=step.get)
            lo = min(step, key=step.get)
            avail = (f"; ntp-step-back availability {u.percent(step[hi], 0)} ({hi})"
                     + (f" … {u.percent(step[lo], 0)} ({lo})" if lo != hi else ""))
        dups = u.count(chaos["duplicates_where_promised_none"])
        return (f"{dups} duplicates in {chaos['promising_cells']} cells",
                f"{dups} duplicates in {chaos['promising_cells']} cells that promise none{avail}",
                False)
    if not ch.present:
        text = "no chaos.json"
    elif any(c.get("variant") in s.variants for c in ch.cells):
        text = "did not run (skipped or failed)"
    elif results.description.get(shown or "").get("time_based") is False:
        text = "no clock: not in the chaos matrix"
    else:
        text = "not in this chaos matrix"
    return text, text, False


def _first_words(text: str) -> str:
    """A cell's first words, when other parts must share it: "no clock", "0 duplicates"."""
    return text.split(":")[0].split(" in ")[0]


def _peer_speed(b: Bench, peer: str, layout: str | None, d: dict) -> tuple[str, str]:
    """A real peer's in-process figures for the real-system column: (a few words, in full)."""
    if not (b.present and layout and peer in b.variants("generate")):
        return (f"peer {peer}: not measured",
                f"{peer} (real peer, in-process): not measured")
    ids1 = _bench_value(b, "generate", peer, layout, 1, "ids_per_s")
    ids2 = _bench_value(b, "generate", peer, layout, 2, "ids_per_s")
    p99 = _bench_value(b, "generate", peer, layout, 2, "p99_ns")
    d.setdefault("real_peer_bench", {})[peer] = {"ids_per_s_1t": ids1, "ids_per_s_2t": ids2,
                                                 "p99_ns_2t": p99}
    return (f"peer {peer}: {u.si(ids1)} · {u.si(ids2)} in-process",
            f"{peer} (real peer, in-process, no round trip): {u.si(ids1)} · {u.si(ids2)} IDs/s "
            f"at 1 · 2 threads, p99 {u.duration_ns(p99)} at 2")


class _Cell:
    """A cell being built: short parts, the full text they stand for, a bad mark, notes."""

    def __init__(self, short: str, full: str | None = None, bad: bool = False):
        self.parts = [short]
        self.full = [full if full is not None else short]
        self.bad = bad
        self.notes: list[str] = []

    def add(self, short: str, full: str, bad: bool = False) -> None:
        self.parts.append(short)
        self.full.append(full)
        self.bad |= bad

    def note(self, text: str) -> None:
        if text:
            self.notes.append(text)

    def render(self, notes: Notes) -> Any:
        """The cell: its parts joined ("; "), the first in its first words when the whole would
        pass MAX_WORDS (then every part, then only the parts that fit), then "[n]" for each
        note; the full text of every part shown shorter than it is becomes the first note."""
        parts = list(self.parts)
        refs = 1 if self.notes or any(f != p for f, p in zip(self.full, parts)) else 0
        def long(ps):
            return len(ps) > 1 and len("; ".join(ps).split()) + refs > MAX_WORDS
        if long(parts):
            parts[0] = _first_words(parts[0])
        if long(parts):  # every part in its first words, then only as many as fit
            parts = [_first_words(p) for p in parts]
            while long(parts):
                parts = parts[:-2] + [parts[-2] + " …"] if len(parts) > 2 else parts[:1]
        longer = [f for f, p in zip(self.full, parts) if f != p]
        if longer:
            self.notes.insert(0, "; ".join(longer))
        ids = "".join(notes.ref(n) for n in dict.fromkeys(self.notes))
        text = "; ".join(parts) + (f" {ids}" if ids else "")
        return (text, BAD) if self.bad else text


def _row(results: Results, scheme: Scheme, layout: str | None, notes: Notes) -> tuple[list, dict]:
    peers = real_peers(results, scheme.variants)
    s = Scheme(scheme.name, tuple(v for v in scheme.variants if v not in peers), scheme.words)
    w = s.words
    shown = _shown_variant(results, s, layout)
    d: dict[str, Any] = {"scheme": s.name, "variants": list(scheme.variants), "shown": shown,
                         "real_peers": list(peers)}
    speed_text, tail_text = _speed_cells(results.bench, shown, layout, d)
    lower = is_lower_bound(results, shown, d)
    speed = _Cell(speed_text + (", lower bound" if lower else ""))
    tail = _Cell(("lower bound: " if lower else "") + tail_text)
    if lower:
        speed.note(w.note or LOWER_BOUND_NOTE)

    real_full = scheme_cell(results.bench.real, s.name, s.variants, d)
    real_bad = isinstance(real_full, tuple)
    real = _Cell(scheme_short(d, real_bad), cell_text(real_full), real_bad)
    if w.note and not lower:
        real.note(w.note)
    for p in peers:
        short, full = _peer_speed(results.bench, p, layout, d)
        if real.parts == [NOT_MEASURED]:
            real = _Cell(short, full)
        else:
            real.add(short, full)

    fill_text, locality_text = _locality_cells(results.locality, s, shown, d)
    fill = _Cell(fill_text)
    found = real_locality(results.bench.real, s.name, s.variants, d)
    if found is not None:
        full, short, failed = found
        fill.add(short, full, failed)

    timed = any(v in {c.get("variant") for c in results.chaos.ran()} for v in s.variants)
    chaos = d["chaos"] = scheme_chaos(results.chaos, s.variants) if timed else {}
    sortable = _Cell(w.sortable)
    sortable.note(w.sortable_note)
    if chaos.get("ksort_bound_ms_under_skew") is not None:
        sortable.add(f"k-sort bound {u.duration_ms(chaos['ksort_bound_ms_under_skew'])} "
                     "under skew",
                     f"k-sort bound {u.duration_ms(chaos['ksort_bound_ms_under_skew'])} "
                     "under skew")
    ops = _Cell(w.ops_burden)
    ops.note(w.ops_note)
    name = s.name + (f" ({shown})" if shown and (len(s.variants) > 1 or shown != s.variants[0])
                     else "")
    clock = _Cell(*_clock_text(results, s, shown, chaos))
    clock.note(w.clock_note)
    for p in peers:
        peer_chaos = scheme_chaos(results.chaos, (p,))
        d.setdefault("real_peer_chaos", {})[p] = peer_chaos
        short, full, bad = _clock_text(results, Scheme(p, (p,), NOT_IN_THE_TABLE), p, peer_chaos)
        clock.add(f"peer {p}: {_first_words(short)}", f"real peer {p}: {full}", bad)
    programs = program_verdicts(results.chaos, s.name)
    if programs:
        d["programs_under_clock_faults"] = programs
        clock.add(*_programs_text(programs))
    faults = scheme_fault_text(results.real_faults, systems_of_scheme(results.bench.real, s.name,
                                                                        s.variants))
    if faults is not None:
        d["real_faults"] = faults[0]
        clock.add(_fault_short(results, s), faults[0], faults[1])
    row = [name, sortable.render(notes), w.made_where, ops.render(notes), w.pick_when,
           speed.render(notes), tail.render(notes), real.render(notes), fill.render(notes),
           _Cell(locality_text).render(notes), clock.render(notes)]
    return row, d


def _fault_short(results: Results, s: Scheme) -> str:
    """The real systems under faults in a few words: the first failed verdict, else kept."""
    systems = systems_of_scheme(results.bench.real, s.name, s.variants)
    verdicts = [(p.get("verdict") or {}) for _, p in (results.real_faults.parts()
                                                       if results.real_faults else [])
                if p.get("system") in systems]
    failed = [v.get("verdict", "?") for v in verdicts if v.get("passed") is False]
    return f"real system under faults: {failed[0] if failed else 'kept'}"


def real_peers(results: Results, variants: tuple[str, ...]) -> tuple[str, ...]:
    """A scheme's real peers: its variants that are a real library run in-process, reading the
    clock and keeping its state itself (`own_clock` in the description). The row shows them
    apart from the scheme's own variants; () when every variant is one."""
    peers = tuple(v for v in variants if results.description.get(v).get("own_clock") is True)
    return peers if len(peers) < len(variants) else ()


def locality_row_words(payload: int) -> str:
    """Which rows the locality figures describe, for a column header."""
    return "key-only rows" if payload == 0 else f"rows of key + {payload} B"


REAL_COLUMN = "real system, 1 ID per request"
NOTES_INTRO = (
    "The classic decision table (the five schemes every design discussion starts from), each "
    "row with this run's numbers. Where a scheme has several "
    "variants, the fastest at 2 threads is shown. IDs/s at 1 · 2 threads and the p99 · p99.9 "
    "per call at 2 threads are measured in process on the {layout} layout. The real-system "
    "column is the scheme running for real (idbench real): requests of 1 ID, each client "
    "thread with its own adapter and connection, at the stated durability; IDs/s per client "
    "from 1 client, and the p99 round trip. Leaf fill, splits and pool misses are the InnoDB "
    "model's, with {rows}. Clock faults: what the chaos matrix found for the scheme's "
    "variants, and what the real systems did under faults.")


def decision_table(results: Results) -> tuple[Table, list[dict], list[str]]:
    """The table (its notes in `Table.notes`), the figures behind each row (for summary.json),
    and the notes: note n is notes[n - 1], which the cells refer to as "[n]"."""
    layout = _first_present((PREFERRED_LAYOUT,), results.bench.layouts("generate"))
    rows_words = locality_row_words(results.locality.decision_payload_bytes)
    notes = Notes()
    rows, data = [], []
    for s in schemes(results):
        row, d = _row(results, s, layout, notes)
        rows.append(row)
        data.append(d)
    t = Table(["scheme (variant)", "sortable", "made where", "ops burden", "pick when",
               f"IDs/s 1 · 2 threads ({layout or '?'})", "p99 · p99.9, 2 threads",
               REAL_COLUMN, f"leaf fill 1 · 8 writers, {rows_words}",
               f"splits/1k · pool miss, 8 writers, {rows_words}",
               "clock faults"],
              rows, align="lllllllllll",
              caption="Numbers in brackets point to the notes under the table.",
              notes=notes.texts,
              notes_intro=NOTES_INTRO.format(layout=layout or "?", rows=rows_words))
    return t, data, notes.texts
