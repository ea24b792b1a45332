"""real_systems.py — the real-system bench in the report: the figures a decision-table row shows
beside its in-process lower bound, and the full table of the "Real systems" section.

Which row a real system belongs to comes from the cell itself (`scheme`, `lower_bound_variant`:
the system's description as `idbench real` recorded it), never from a list of names here. A row
shows, per system of its scheme, the per-ID round trip: requests of 1 ID, from 1 client (IDs/s
per client) and from the most clients measured (IDs/s in total), the p99 round trip of both, at
the default durability (innodb_flush_log_at_trx_commit=1) when it ran, else the first measured.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

from typing import Any

import units as u
from document import BAD, Table
from inputs import Real, number

NOT_MEASURED = "not measured"
DEFAULT_FLUSH = 1  # MariaDB's default innodb_flush_log_at_trx_commit


def flush_of(cell: dict) -> int | None:
    d = cell.get("durability")
    return d.get("innodb_flush_log_at_trx_commit") if isinstance(d, dict) else None


def durability_text(cell: dict) -> str:
    d = cell.get("durability")
    if not isinstance(d, dict):
        return "no server"
    return (f"flush_log_at_trx_commit={d.get('innodb_flush_log_at_trx_commit', '?')}, "
            f"binlog {'on' if d.get('binlog') else 'off'}")


def cells_for_scheme(real: Real, scheme: str, variants: tuple[str, ...]) -> list[dict]:
    """The cells of the systems that stand for `scheme`: by the scheme's name (any case), or,
    for a system that names no scheme, by its in-process counterpart being one of its variants."""
    def belongs(c: dict) -> bool:
        own = c.get("scheme") if isinstance(c.get("scheme"), str) else ""
        if own:
            return own.lower() == scheme.lower()
        return bool(c.get("lower_bound_variant")) and c.get("lower_bound_variant") in variants
    return [c for c in real.cells if belongs(c)]


def real_schemes(real: Real) -> list[str]:
    """The schemes the real systems name, in the order they ran."""
    return list(dict.fromkeys(c["scheme"] for c in real.cells
                              if isinstance(c.get("scheme"), str) and c["scheme"]))


def _p99(cell: dict | None) -> float | None:
    lat = (cell or {}).get("latency_ns")
    return number(lat.get("p99")) if isinstance(lat, dict) else None


def _counters_text(cell: dict) -> str:
    c = cell.get("adapter_counters")
    if not isinstance(c, dict):
        return ""
    bad = [f"{u.count(number(v))} {k}" for k, v in c.items() if number(v)]
    return f" ({', '.join(bad)})" if bad else ""


def per_id_figures(cells: list[dict]) -> tuple[dict | None, dict | None]:
    """(1 client, most clients) at 1 ID per request and the shown durability; either None."""
    flushes = [flush_of(c) for c in cells]
    flush = DEFAULT_FLUSH if DEFAULT_FLUSH in flushes else (flushes[0] if flushes else None)
    ones = [c for c in cells if c.get("request_size") == 1 and flush_of(c) == flush]
    one = next((c for c in ones if c.get("clients") == 1), None)
    many = max((c for c in ones if number(c.get("clients")) and c["clients"] > 1),
               key=lambda c: c["clients"], default=None)
    return one, many


def _system_text(system: str, cells: list[dict], d: dict) -> tuple[str, bool]:
    one, many = per_id_figures(cells)
    if one is None and many is None:
        return f"{system}: no 1-ID cell", False
    shown = one or many
    parts, bad = [], False
    for c, what in ((one, "per client"), (many, None)):
        if c is None:
            continue
        label = what or f"at {c['clients']} clients"
        if c.get("error"):
            parts.append(f"{label}: failed ({c['error']})")
            bad = True
        else:
            per = number(c.get("ids_per_s_per_client")) if what else number(c.get("ids_per_s"))
            parts.append(f"{u.si(per)} IDs/s {label}, p99 {u.duration_ns(_p99(c))}"
                         + _counters_text(c))
    d.setdefault("real", []).append({
        "system": system, "durability": shown.get("durability"), "server": shown.get("server"),
        "ids_per_s_per_client_1": number((one or {}).get("ids_per_s_per_client")),
        "ids_per_s_many": number((many or {}).get("ids_per_s")),
        "clients_many": (many or {}).get("clients"),
        "p99_ns_1": _p99(one), "p99_ns_many": _p99(many)})
    return f"{system}: " + " · ".join(parts) + f" ({durability_text(shown)})", bad


def scheme_cell(real: Real, scheme: str, variants: tuple[str, ...], d: dict) -> Any:
    """The decision table's real-system text of a scheme, in full (the table's note), and its
    figures into `d`."""
    cells = cells_for_scheme(real, scheme, variants) if real.present else []
    if not cells:
        return NOT_MEASURED
    by_system: dict[str, list[dict]] = {}
    for c in cells:
        by_system.setdefault(str(c.get("system")), []).append(c)
    texts = [_system_text(name, cs, d) for name, cs in by_system.items()]
    text = "; ".join(t for t, _ in texts)
    return (text, BAD) if any(bad for _, bad in texts) else text


def scheme_short(d: dict, failed: bool) -> str:
    """The decision table's real-system cell: a few words from the figures scheme_cell put
    into `d` ("939 IDs/s per client, p99 12.6 ms"; "2 systems: 898–3.29 k IDs/s per client")."""
    systems = d.get("real") or []
    if not systems:
        return NOT_MEASURED
    per = [x["ids_per_s_per_client_1"] for x in systems
           if number(x.get("ids_per_s_per_client_1")) is not None]
    if len(systems) == 1:
        x = systems[0]
        if per:
            text = f"{u.si(per[0])} IDs/s per client, p99 {u.duration_ns(x.get('p99_ns_1'))}"
        elif number(x.get("ids_per_s_many")) is not None:
            text = f"{u.si(x['ids_per_s_many'])} IDs/s at {x.get('clients_many')} clients"
        else:
            text = "no 1-ID figure"
    else:
        lo, hi = (min(per), max(per)) if per else (None, None)
        text = (f"{len(systems)} systems: " + (u.si(lo) if lo == hi else
                                              f"{u.si(lo)}–{u.si(hi)}") + " IDs/s per client")
    return text + ("; a cell failed" if failed else "")


def real_table(real: Real) -> Table:
    rows = []
    for c in real.cells:
        lat = c.get("latency_ns") if isinstance(c.get("latency_ns"), dict) else {}
        counters = c.get("adapter_counters")
        rows.append([
            str(c.get("system", u.DASH)), durability_text(c), str(c.get("clients", u.DASH)),
            u.count(number(c.get("request_size"))), u.si(number(c.get("ids_per_s"))),
            u.si(number(c.get("ids_per_s_per_client"))), u.count(number(c.get("requests"))),
            u.duration_ns(number(lat.get("p50"))), u.duration_ns(number(lat.get("p99"))),
            u.duration_ns(number(lat.get("p999"))),
            ", ".join(f"{k} {u.count(number(v))}" for k, v in counters.items())
            if isinstance(counters, dict) else "unknown",
            (str(c["error"]), BAD) if c.get("error") else ""])
    return Table(["system", "durability", "clients", "IDs/request", "IDs/s", "IDs/s per client",
                  "requests", "p50", "p99", "p99.9", "adapter counters", "error"], rows,
                 align="lllrrrrrrrll",
                 caption="Every cell of the real-system bench: each client thread has its own "
                         "adapter process and database connection; a round trip is one request "
                         "(N IDs asked, N lines read), timed on the monotonic clock. Adapter "
                         "counters: what the adapter reported at exit (retries, deadlocks, "
                         "failovers), summed over its clients; unknown when it reported none.")
