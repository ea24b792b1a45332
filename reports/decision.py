"""decision.py — the decision table: each scheme of the classic table with this run's numbers.

Which variants make up a scheme comes from the variant description the results carry (each
variant's `scheme` field; inputs.Description), never from a list of names here. What the classic
table says about a scheme (sortable, made where, ops burden, pick when) is keyed by the scheme's
name; so are the same words for the schemes people run that only real systems stand for
(PostgreSQL's SEQUENCE, Redis INCR, ...: REAL_SCHEME_WORDS), whose rows have the real figures
and no in-process ones. A scheme neither knows, or a measured variant without a scheme (or
without a description), gets a row of its own with dashes for those words.

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
from real_faults import scheme_faults
from real_systems import (NOT_MEASURED, belongs, described_systems, real_schemes, scheme_short,
                          system_texts)
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
    # Whether the scheme's IDs depend on a clock, for a scheme no variant stands for (a
    # variant's own `time_based` says it for the others); None: not known.
    time_based: bool | None = None


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
# The schemes people run that only real systems stand for (no variant), by the scheme name the
# systems' descriptions give; shown when a real system of the scheme was measured.
REAL_SCHEME_WORDS = {
    "SEQUENCE": SchemeWords(
        "yes with CACHE 1*", "database", "low (one database)",
        "one PostgreSQL or MariaDB database is enough",
        sortable_note="SEQUENCE: * nextval() hands values out in order with CACHE 1; with CACHE "
                      "> 1 each session takes a block of values, so they are in order only "
                      "within a session.",
        time_based=False),
    "Instagram next_id()": SchemeWords(
        "yes (k-sorted)", "database", "medium (shard ids, the database's clock)",
        "sharded PostgreSQL needs time-ordered 64-bit ids",
        sortable_note="Instagram next_id(): 41 bits of ms since a custom epoch, then a 13-bit "
                      "shard id and nextval() % 1024: k-sorted by the ms.",
        ops_note="Instagram next_id(): a shard id per schema, and the database server's wall "
                 "clock, which the IDs' time follows.",
        time_based=True),
    "Redis INCR": SchemeWords(
        "yes", "Redis server", "medium (durability settings, failover)",
        "a ticket server, with Redis already in place",
        ops_note="Redis INCR: the counter is as durable as Redis's persistence (appendfsync "
                 "always, everysec, or RDB snapshots only), and replication is asynchronous: "
                 "a promoted replica may not have the last values.",
        time_based=False),
    "UUIDv1": SchemeWords(
        "no", "application or database", "low", "only where version-1 UUIDs are required",
        sortable_note="UUIDv1: the timestamp's low bits come first, so the IDs do not sort by "
                      "time.",
        ops_note="UUIDv1: made by libraries and by database functions alike; the node field "
                 "is a MAC address or random bits, so an ID shows when and on which host it "
                 "was made.",
        time_based=True),
    "ULID": SchemeWords(
        "yes (k-sorted)", "application", "low (a library)", "sortable text ids, no worker ids",
        sortable_note="ULID: 48 bits of Unix ms, then 80 random bits; a monotonic factory "
                      "increments the random part within a ms, so one process's IDs sort.",
        time_based=True),
}
NOT_IN_THE_TABLE = SchemeWords(u.DASH, u.DASH, u.DASH, "not in the classic table")


def real_scheme_words(name: str) -> SchemeWords:
    """The words of a scheme only real systems stand for (names in any case)."""
    return next((w for k, w in REAL_SCHEME_WORDS.items() if k.lower() == name.lower()),
                NOT_IN_THE_TABLE)


PREFERRED_LAYOUT = "twitter"  # the layout whose figures the table shows, when it ran
LOWER_BOUND_NOTE = ("in-process lower bound: the variant stands in for a system that pays a "
                    "round trip per ID, which these figures leave out.")


@dataclass(frozen=True)
class Scheme:
    name: str
    variants: tuple[str, ...]  # registry order
    words: SchemeWords
    real_only: bool = False  # only real systems stand for it: no variant, no in-process figure


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
    out += [Scheme(name, (), real_scheme_words(name), real_only=True)
            for name in real_schemes(results.bench.real) if name.lower() not in known]
    return out


def faulted_systems(results: Results, scheme: str, variants: tuple[str, ...]) -> set[str]:
    """The systems whose real-chaos parts stand for `scheme` by what each part says of its
    system (`belongs`): those that ran under faults without being benched."""
    rf = results.real_faults
    if rf is None or not rf.present:
        return set()
    return {str(p["system"]) for _, p in rf.parts()
            if p.get("system") and belongs(p, scheme, variants)}


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


def _program_cells(ch: Chaos, scheme: str) -> list[dict]:
    return [c for c in ch.programs
            if str(c.get("scheme") or "").lower() == scheme.lower() and not c.get("skipped")]


def _program_word(c: dict) -> str:
    v = c.get("fault_verdict") if isinstance(c.get("fault_verdict"), dict) else {}
    return "error" if c.get("error") else str(v.get("verdict") or "?")


def program_verdicts(ch: Chaos, scheme: str) -> dict[str, dict[str, str]]:
    """The real systems' programs of a scheme under clock faults (chaos --matrix --systems):
    {system: {scenario: verdict word}}, in the order they ran."""
    out: dict[str, dict[str, str]] = {}
    for c in _program_cells(ch, scheme):
        out.setdefault(str(c["system"]), {})[str(c.get("scenario") or "?")] = _program_word(c)
    return out


def _programs_part(ch: Chaos, scheme: str) -> tuple[str, bool, list[str]] | None:
    """The programs' part of the clock-faults cell: (a few words, whether one was not kept, one
    note per program: each fault's verdict and the figures behind it); None without one."""
    lines: dict[str, list[str]] = {}
    for c in _program_cells(ch, scheme):
        behind = (f" ({c['error']})" if c.get("error") else
                  f" ({u.count(number(c.get('duplicates')))} duplicates in "
                  f"{u.count(number(c.get('ids')))} IDs, availability "
                  f"{u.percent(number(c.get('availability')), 0)})")
        lines.setdefault(str(c["system"]), []).append(
            f"{c.get('scenario') or '?'} {_program_word(c)}{behind}")
    if not lines:
        return None
    failed = [n for n, w in program_verdicts(ch, scheme).items()
              if any(x != "kept" for x in w.values())]
    return (f"real programs: {len(failed)} of {len(lines)} not kept", bool(failed),
            [f"{n}, the library in its own process, under clock faults: " + "; ".join(ws)
             for n, ws in lines.items()])


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
    """A cell being built: short parts, the full text each stands for, the fewest words each
    can be cut to, a bad mark, notes."""

    def __init__(self, short: str | None = None, full: str | None = None, bad: bool = False,
                 brief: str | None = None):
        self.parts: list[str] = []
        self.full: list[str] = []
        self.briefs: list[str] = []
        self.bad = False
        self.notes: list[str] = []
        if short is not None:
            self.add(short, full, bad, brief)

    def add(self, short: str, full: str | None = None, bad: bool = False,
            brief: str | None = None) -> None:
        """A part; `brief` (default: its first words) is what it is cut to when the cell would
        pass MAX_WORDS."""
        self.parts.append(short)
        self.full.append(full if full is not None else short)
        self.briefs.append(brief if brief is not None else _first_words(short))
        self.bad |= bad

    def note(self, text: str) -> None:
        if text:
            self.notes.append(text)

    def render(self, notes: Notes) -> Any:
        """The cell: its parts joined ("; "), the first cut to its brief when the whole would
        pass MAX_WORDS (then every part, then only the parts that fit), then "[n]" for each
        note; the full text of every part shown shorter than it is becomes the first note."""
        parts = list(self.parts)
        refs = 1 if self.notes or any(f != p for f, p in zip(self.full, parts)) else 0
        def long(ps):
            return len(ps) > 1 and len("; ".join(ps).split()) + refs > MAX_WORDS
        if long(parts):
            parts[0] = self.briefs[0]
        if long(parts):  # every part cut to its brief, then only as many as fit
            parts = list(self.briefs)
            while long(parts):
                parts = parts[:-2] + [parts[-2] + " …"] if len(parts) > 2 else parts[:1]
        longer = [f for f, p in zip(self.full, parts) if f != p]
        if longer:
            self.notes.insert(0, "; ".join(longer))
        ids = "".join(notes.ref(n) for n in dict.fromkeys(self.notes))
        text = "; ".join(parts) + (f" {ids}" if ids else "")
        return (text, BAD) if self.bad else text


REAL_ONLY = "real system only"
REAL_ONLY_NOTE = (
    "real system only: in-process figures (IDs/s, p99, the InnoDB model's leaf fill, splits and "
    "pool misses) exist only for a scheme with an idbench variant; a scheme only real systems "
    "stand for has the real-system column and the leaf fill of its real IDs.")
CLOCK_NOT_RUN_NOTE = (
    "clock faults: not run: no fault on a clock in these results reached the scheme's real "
    "systems. A server's clock is stepped by idbench real-chaos (./run.sh real-chaos --full "
    "runs all of its clock scenarios), a library's by idbench chaos --matrix --systems.")


def _speed_pair(results: Results, s: Scheme, shown: str | None, layout: str | None,
                d: dict) -> tuple[_Cell, _Cell, bool]:
    """The IDs/s and p99 cells, and whether they are an in-process lower bound."""
    if s.real_only:
        speed = _Cell(REAL_ONLY)
        speed.note(REAL_ONLY_NOTE)
        return speed, _Cell(u.DASH), False
    speed_text, tail_text = _speed_cells(results.bench, shown, layout, d)
    lower = is_lower_bound(results, shown, d)
    speed = _Cell(speed_text + (", lower bound" if lower else ""))
    tail = _Cell(("lower bound: " if lower else "") + tail_text)
    if lower:
        speed.note(s.words.note or LOWER_BOUND_NOTE)
    return speed, tail, lower


def _real_cell(results: Results, s: Scheme, peers: tuple[str, ...], layout: str | None,
               lower: bool, d: dict) -> _Cell:
    """The real-system cell: a few words over the scheme's real systems, one note each, then
    its real peers' in-process figures."""
    texts = system_texts(results.bench.real, s.name, s.variants, d)
    bad = any(b for _, b in texts)
    real = _Cell(scheme_short(d, bad), bad=bad)
    for text, _ in texts:
        real.note(text)
    if s.words.note and not lower:
        real.note(s.words.note)
    for p in peers:
        short, full = _peer_speed(results.bench, p, layout, d)
        if real.parts == [NOT_MEASURED]:
            real = _Cell(short, full)
        else:
            real.add(short, full)
    return real


def _locality_pair(results: Results, s: Scheme, shown: str | None,
                   d: dict) -> tuple[_Cell, _Cell]:
    """The leaf-fill cell (the model's, then the real IDs' where a pass ran) and the splits
    cell; a scheme without a variant has its real IDs' fill alone."""
    found = real_locality(results.bench.real, s.name, s.variants, d)
    if s.real_only:
        return (_Cell(found[1], found[0], found[2]) if found else _Cell(u.DASH)), _Cell(u.DASH)
    fill_text, locality_text = _locality_cells(results.locality, s, shown, d)
    fill = _Cell(fill_text)
    if found is not None:
        full, short, failed = found
        fill.add(short, full, failed)
    return fill, _Cell(locality_text)


def _clock_cell(results: Results, s: Scheme, shown: str | None, chaos: dict,
                peers: tuple[str, ...], d: dict) -> _Cell:
    """The clock-faults cell: what the chaos matrix found for the scheme's variants (a scheme
    only real systems stand for: whether it reads a clock), for its real peers and its real
    programs (one note each), and what its real systems did under real-chaos's faults, one
    verdict per fault. A scheme that reads a clock with no evidence of a clock fault says the
    clock faults did not run, never that they were kept."""
    clock = _Cell() if s.real_only else _Cell(*_clock_text(results, s, shown, chaos))
    if s.real_only and s.words.time_based is False:
        clock.add("no clock")
    clock.note(s.words.clock_note)
    for p in peers:
        peer_chaos = scheme_chaos(results.chaos, (p,))
        d.setdefault("real_peer_chaos", {})[p] = peer_chaos
        short, full, bad = _clock_text(results, Scheme(p, (p,), NOT_IN_THE_TABLE), p, peer_chaos)
        clock.add(f"peer {p}: {_first_words(short)}", f"real peer {p}: {full}", bad)
    programs = _programs_part(results.chaos, s.name)
    if programs:
        d["programs_under_clock_faults"] = program_verdicts(results.chaos, s.name)
        clock.add(programs[0], bad=programs[1], brief="real programs: " + (
            "not kept" if programs[1] else "kept"))
        for line in programs[2]:
            clock.note(line)
    described = described_systems(results.bench.real, s.name, s.variants)
    faults = scheme_faults(results.real_faults,
                           set(described) | faulted_systems(results, s.name, s.variants))
    if faults is not None:
        d["real_faults"] = faults.full
        clock.add(faults.short, faults.full, faults.failed, faults.brief)
    if (s.real_only and s.words.time_based is not False and not programs
            and not (faults and faults.clock)):
        where = ("real-chaos --full" if any(x.get("server_kind") for x in described.values())
                 else "chaos --systems")
        clock.add(f"clock faults: not run ({where})", brief="clock faults: not run")
        clock.note(CLOCK_NOT_RUN_NOTE)
    return clock


def _row(results: Results, scheme: Scheme, layout: str | None, notes: Notes) -> tuple[list, dict]:
    peers = real_peers(results, scheme.variants)
    s = Scheme(scheme.name, tuple(v for v in scheme.variants if v not in peers), scheme.words,
               scheme.real_only)
    w = s.words
    shown = _shown_variant(results, s, layout)
    d: dict[str, Any] = {"scheme": s.name, "variants": list(scheme.variants), "shown": shown,
                         "real_peers": list(peers), "real_only": s.real_only}
    speed, tail, lower = _speed_pair(results, s, shown, layout, d)
    real = _real_cell(results, s, peers, layout, lower, d)
    fill, splits = _locality_pair(results, s, shown, d)

    timed = any(v in {c.get("variant") for c in results.chaos.ran()} for v in s.variants)
    chaos = d["chaos"] = scheme_chaos(results.chaos, s.variants) if timed else {}
    sortable = _Cell(w.sortable)
    sortable.note(w.sortable_note)
    if chaos.get("ksort_bound_ms_under_skew") is not None:
        sortable.add(f"k-sort bound {u.duration_ms(chaos['ksort_bound_ms_under_skew'])} "
                     "under skew")
    ops = _Cell(w.ops_burden)
    ops.note(w.ops_note)
    name = s.name + (f" ({shown})" if shown and (len(s.variants) > 1 or shown != s.variants[0])
                     else "")
    clock = _clock_cell(results, s, shown, chaos, peers, d)
    row = [name, sortable.render(notes), w.made_where, ops.render(notes), w.pick_when,
           speed.render(notes), tail.render(notes), real.render(notes), fill.render(notes),
           splits.render(notes), clock.render(notes)]
    return row, d


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
    "row with this run's numbers, then the schemes only real systems stand for. Where a scheme "
    "has several variants, the fastest at 2 threads is shown. IDs/s at 1 · 2 threads and the "
    "p99 · p99.9 "
    "per call at 2 threads are measured in process on the {layout} layout. The real-system "
    "column is the scheme running for real (idbench real): requests of 1 ID, each client "
    "thread with its own adapter and connection, at the stated durability; IDs/s per client "
    "from 1 client, and the p99 round trip. Leaf fill, splits and pool misses are the InnoDB "
    "model's, with {rows}. Clock faults: what the chaos matrix found for the scheme's "
    "variants, what its real programs did under clock faults (chaos --matrix --systems: one "
    "note each), and what its real systems did under real-chaos's faults, one verdict per "
    "fault, the settings it failed at after \"with\".")


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
