"""real_systems_locality.py — the locality of the real systems' IDs in the report: the decision
table's leaf-fill cell of a scheme gets its real systems' figures beside the in-process one, and
the "Real systems" section gets a table of every locality pass.

Each pass (bench.json real_systems "locality", bench/real/real_locality.hpp) took one system's
IDs, one per request, from 1 client or from several clients interleaved as they arrived, and
inserted them in that order into the InnoDB model: leaf pages, leaf fill, splits. Which row a
system belongs to comes from the entry itself (its `scheme`, `lower_bound_variant`), as for the
bench cells (real_systems.cells_for_scheme).

Missing or malformed entries are never guessed: a figure that is not there is a dash, a pass
that failed shows its error, a run without passes leaves the cells as they were.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from typing import Any

import units as u
from document import BAD, Table
from inputs import Real, number
from real_systems import cells_for_scheme


def _clients(e: dict) -> float:
    return number(e.get("clients")) or 0


def passes_by_system(entries: list[dict]) -> dict[str, list[dict]]:
    """System → its passes, fewest clients first, in the order the systems ran."""
    out: dict[str, list[dict]] = {}
    for e in entries:
        out.setdefault(str(e.get("system")), []).append(e)
    return {k: sorted(v, key=_clients) for k, v in out.items()}


def _fill_text(e: dict) -> str:
    if e.get("error"):
        return "failed"
    return u.percent(number(e.get("avg_leaf_fill")), 0)


def _system_text(system: str, passes: list[dict]) -> tuple[str, bool]:
    """'mariadb-auto-increment 89 % · 71 % (1 · 8 clients)', and whether a pass failed."""
    fills = " · ".join(_fill_text(e) for e in passes)
    clients = " · ".join(str(e.get("clients", u.DASH)) for e in passes)
    # A pass that hit its time cap says how many IDs it had.
    capped = "".join(
        f"; {e.get('clients')} client{'s' if e.get('clients') != 1 else ''}: "
        f"{u.count(number(e['rows']))} of {u.count(number(e['planned_rows']))} IDs"
        for e in passes if not e.get("error") and number(e.get("rows")) is not None
        and number(e.get("planned_rows")) and e["rows"] < e["planned_rows"])
    return (f"{system} {fills} ({clients} client{'s' if clients != '1' else ''}{capped})",
            any(e.get("error") for e in passes))


def real_locality(real: Real, scheme: str, variants: tuple[str, ...],
                  d: dict) -> tuple[str, str, bool] | None:
    """The locality of a scheme's real systems' IDs for its decision-table row: (the full text,
    "real IDs: mariadb-auto-increment 89 % · 71 % (1 · 8 clients)"; a few words, "real 89 % ·
    71 %"; whether a pass failed), or None when no real system of the scheme had a
    locality pass. The figures go into `d["real_locality"]`."""
    entries = cells_for_scheme(Real(cells=real.locality), scheme, variants) if real.present else []
    if not entries:
        return None
    by_system = passes_by_system(entries)
    texts = [_system_text(name, ps) for name, ps in by_system.items()]
    d["real_locality"] = [{k: e.get(k) for k in ("system", "clients", "rows", "leaf_pages",
                                                 "avg_leaf_fill", "splits_per_1k", "error")}
                          for e in entries]
    failed = any(b for _, b in texts)
    if len(by_system) == 1:
        short = "real " + " · ".join(_fill_text(e) for e in next(iter(by_system.values())))
    else:
        fills = [number(e.get("avg_leaf_fill")) for e in entries if not e.get("error")]
        fills = [f for f in fills if f is not None]
        span = (u.DASH if not fills else u.percent(fills[0], 0) if len(fills) == 1 else
                f"{u.percent(min(fills), 0).split()[0]}–{u.percent(max(fills), 0)}")
        short = f"real {span} ({len(by_system)} systems)" + ("; a pass failed" if failed
                                                             else "")
    return "real IDs: " + "; ".join(t for t, _ in texts), short, failed


def with_real_locality(fill: Any, real: Real, scheme: str, variants: tuple[str, ...],
                       d: dict) -> Any:
    """The leaf-fill text of a scheme's row with its real systems' figures beside the
    in-process one, in full ("94 % · 94 %; real IDs: mariadb-auto-increment 89 % · 71 % (1 · 8
    clients)"); `fill` unchanged when no real system of the scheme had a locality pass."""
    found = real_locality(real, scheme, variants, d)
    if found is None:
        return fill
    text, _, failed = found
    base, bad = fill if isinstance(fill, tuple) else (fill, None)
    joined = f"{base}; {text}"
    return (joined, BAD) if bad is not None or failed else joined


def real_locality_table(real: Real) -> Table:
    rows = []
    for e in real.locality:
        rows.append([
            str(e.get("system", u.DASH)), str(e.get("clients", u.DASH)),
            u.count(number(e.get("rows"))), str(e.get("key_type") or u.DASH),
            u.count(number(e.get("leaf_pages"))), u.percent(number(e.get("avg_leaf_fill")), 1),
            u.fixed(number(e.get("splits_per_1k")), 1), u.fixed(number(e.get("seconds")), 1),
            (str(e["error"]), BAD) if e.get("error") else str(e.get("note") or "")])
    return Table(["system", "clients", "IDs", "key", "leaf pages", "leaf fill", "splits/1k",
                  "collected in s", "error or note"], rows, align="lrrlrrrrl",
                 caption="The locality of the real systems' IDs: each system's IDs, one per "
                         "request, from 1 client and from several clients (each with its own "
                         "adapter and connection) interleaved as they arrived, inserted in that "
                         "order into the InnoDB model (a table keyed by the ID: BIGINT, or "
                         "BINARY(16) for UUIDs). Fewer IDs than asked: collecting hit its time "
                         "cap (the note says so).")


def add_real_locality(section: Any, real: Real, summary: dict) -> None:
    """The locality passes into the Real systems section (a sentence when there are none)."""
    if not real.locality:
        section.p("The locality of the real systems' IDs was not measured in this run "
                  "(idbench real --locality-rows).")
        return
    rows = number(real.config.get("locality_rows"))
    section.p(f"Locality of the real IDs: {u.count(rows)} IDs per pass"
              + (f", at most {real.config.get('locality_max_seconds')} s each"
                 if real.config.get("locality_max_seconds") is not None else "")
              + ". An application inserts its row as soon as it has the ID, so several clients' "
                "IDs reach the table interleaved in the order they arrive; a Python or Node "
                "generator stands for several application servers each with its own instance.")
    section.table(real_locality_table(real))
    summary.setdefault("real_systems", {})["locality"] = [
        {k: e.get(k) for k in ("system", "scheme", "clients", "rows", "planned_rows", "key_type",
                               "leaf_pages", "avg_leaf_fill", "splits_per_1k", "error", "note")}
        for e in real.locality]
