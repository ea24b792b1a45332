"""real_systems.py — the real-system bench in the report: the figures a decision-table row shows
beside its in-process lower bound, and the full table of the "Real systems" section.

Which row a real system belongs to comes from the cell itself (`scheme`, `lower_bound_variant`:
the system's description as `idbench real` recorded it), never from a list of names here. A row
shows, per system of its scheme, the per-ID round trip: requests of 1 ID, from 1 client (IDs/s
per client) and from the most clients measured (IDs/s in total), the p99 round trip of both, at
the default durability (innodb_flush_log_at_trx_commit=1) when it ran, else the first measured.
Where the adapter timed the system itself (a cell's `system_side`), that is the figure shown: the
system's own cost, what an application calling it directly pays; the end-to-end figure through
the harness (its pipe hop included) follows it. The harness's hop alone (`harness_hop`, the null
adapter) has a table of its own.

Thread safety: pure functions of their inputs.
"""
from __future__ import annotations

import units as u
from document import BAD, Table
from inputs import Real, number

NOT_MEASURED = "not measured"
DEFAULT_FLUSH = 1  # MariaDB's default innodb_flush_log_at_trx_commit


def flush_of(cell: dict) -> int | None:
    d = cell.get("durability")
    return d.get("innodb_flush_log_at_trx_commit") if isinstance(d, dict) else None


def durability_text(cell: dict) -> str:
    """A cell's durability settings: MariaDB's flush and binlog, else each setting the server
    recorded ("fsync=on, synchronous_commit=on" for PostgreSQL, appendfsync for Redis)."""
    d = cell.get("durability")
    if not isinstance(d, dict):
        return "no server"
    if "innodb_flush_log_at_trx_commit" in d or "binlog" in d:
        return (f"flush_log_at_trx_commit={d.get('innodb_flush_log_at_trx_commit', '?')}, "
                f"binlog {'on' if d.get('binlog') else 'off'}")
    def word(v):
        return ("on" if v else "off") if isinstance(v, bool) else v
    return ", ".join(f"{k}={word(v)}" for k, v in d.items()) or "no settings recorded"


def belongs(c: dict, scheme: str, variants: tuple[str, ...]) -> bool:
    """Whether a system's cell or description stands for `scheme`: by the scheme it names (any
    case), or, for a system that names none, by its in-process counterpart being one of the
    scheme's variants. A system that names another scheme belongs there, whatever its
    counterpart (PostgreSQL's SEQUENCE has AUTO_INCREMENT's variant as its lower bound)."""
    own = c.get("scheme") if isinstance(c.get("scheme"), str) else ""
    if own:
        return own.lower() == scheme.lower()
    return bool(c.get("lower_bound_variant")) and c.get("lower_bound_variant") in variants


def cells_for_scheme(real: Real, scheme: str, variants: tuple[str, ...]) -> list[dict]:
    """The cells of the systems that stand for `scheme` (`belongs`)."""
    return [c for c in real.cells if belongs(c, scheme, variants)]


def described_systems(real: Real, scheme: str, variants: tuple[str, ...]) -> dict[str, dict]:
    """{system name: what the bench recorded of it} for the systems that stand for `scheme`:
    their descriptions (`real.systems`), else their cells' fields."""
    out: dict[str, dict] = {}
    for x in (real.systems or []) + (real.cells or []):
        name = x.get("name") or x.get("system") if isinstance(x, dict) else None
        if name and belongs(x, scheme, variants):
            out.setdefault(str(name), x)
    return out


def real_schemes(real: Real) -> list[str]:
    """The schemes the real systems name, in the order they ran."""
    return list(dict.fromkeys(c["scheme"] for c in real.cells
                              if isinstance(c.get("scheme"), str) and c["scheme"]))


def _p99(cell: dict | None) -> float | None:
    lat = (cell or {}).get("latency_ns")
    return number(lat.get("p99")) if isinstance(lat, dict) else None


def own(cell: dict | None) -> dict | None:
    """The system's own share of a cell (timed inside its adapter), or None."""
    o = (cell or {}).get("system_side")
    return o if isinstance(o, dict) and number(o.get("ids_per_s")) is not None else None


def shown_figures(cell: dict, per_client: bool) -> tuple[float | None, float | None, bool]:
    """(IDs/s, p99 ns, whether they are the system's own): the system's own share when the
    adapter timed it, else the end-to-end figure."""
    key = "ids_per_s_per_client" if per_client else "ids_per_s"
    o = own(cell)
    src = o if o is not None else cell
    return number(src.get(key)), _p99(src), o is not None


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
            per, p99, is_own = shown_figures(c, what is not None)
            e2e = number(c.get("ids_per_s_per_client")) if what else number(c.get("ids_per_s"))
            parts.append(f"{u.si(per)} IDs/s {label}, p99 {u.duration_ns(p99)}"
                         + (f" (the system's own; {u.si(e2e)} through the harness)"
                            if is_own else "") + _counters_text(c))
    one_fig = shown_figures(one, True) if one else (None, None, False)
    many_fig = shown_figures(many, False) if many else (None, None, False)
    d.setdefault("real", []).append({
        "system": system, "durability": shown.get("durability"), "server": shown.get("server"),
        "ids_per_s_per_client_1": one_fig[0], "ids_per_s_many": many_fig[0],
        "clients_many": (many or {}).get("clients"),
        "p99_ns_1": one_fig[1], "p99_ns_many": many_fig[1],
        "systems_own": one_fig[2] or many_fig[2]})
    return f"{system}: " + " · ".join(parts) + f" ({durability_text(shown)})", bad


def system_texts(real: Real, scheme: str, variants: tuple[str, ...],
                 d: dict) -> list[tuple[str, bool]]:
    """The decision table's real-system text of a scheme, one (text, failed) per system (one
    note each), and their figures into `d`; [] when no system of the scheme was measured."""
    cells = cells_for_scheme(real, scheme, variants) if real.present else []
    by_system: dict[str, list[dict]] = {}
    for c in cells:
        by_system.setdefault(str(c.get("system")), []).append(c)
    return [_system_text(name, cs, d) for name, cs in by_system.items()]


def scheme_short(d: dict, failed: bool) -> str:
    """The decision table's real-system cell: a few words from the figures system_texts put
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


def _side(d: dict | None) -> list:
    """IDs/s, p50 and p99 of a cell's system side or direct client, "–" when not measured."""
    if not isinstance(d, dict):
        return [u.DASH] * 3
    if d.get("error"):
        return [(f"failed ({d['error']})", BAD), u.DASH, u.DASH]
    lat = d.get("latency_ns") if isinstance(d.get("latency_ns"), dict) else {}
    return [u.si(number(d.get("ids_per_s"))), u.duration_ns(number(lat.get("p50"))),
            u.duration_ns(number(lat.get("p99")))]


def real_table(real: Real) -> Table:
    rows = []
    for c in real.cells:
        lat = c.get("latency_ns") if isinstance(c.get("latency_ns"), dict) else {}
        counters = c.get("adapter_counters")
        rows.append([
            str(c.get("system", u.DASH)), durability_text(c), str(c.get("clients", u.DASH)),
            u.count(number(c.get("request_size"))), *_side(own(c)),
            u.si(number(c.get("ids_per_s"))), u.si(number(c.get("ids_per_s_per_client"))),
            u.count(number(c.get("requests"))),
            u.duration_ns(number(lat.get("p50"))), u.duration_ns(number(lat.get("p99"))),
            u.duration_ns(number(lat.get("p999"))), *_side(c.get("direct")),
            ", ".join(f"{k} {u.count(number(v))}" for k, v in counters.items())
            if isinstance(counters, dict) else "unknown",
            (str(c["error"]), BAD) if c.get("error") else ""])
    return Table(["system", "durability", "clients", "IDs/request", "own IDs/s", "own p50",
                  "own p99", "IDs/s", "IDs/s per client", "requests", "p50", "p99", "p99.9",
                  "direct IDs/s", "direct p50", "direct p99", "adapter counters", "error"], rows,
                 align="lllrrrrrrrrrrrrrll",
                 caption="Every cell of the real-system bench: each client thread has its own "
                         "adapter process and database connection; a round trip is one request "
                         "(N IDs asked, N lines read), timed on the monotonic clock. Own: the "
                         "system's own share, timed inside the adapter around the statements "
                         "(or library calls) that make the IDs, without the harness's pipe hop; "
                         "IDs/s sums each client's IDs over its own time. Direct: the same SQL "
                         "from idbench's threads, one connection each (idbench real --direct), "
                         "the reference. Adapter counters: what the adapter reported at exit "
                         "(retries, deadlocks, failovers), summed over its clients; unknown when "
                         "it reported none.")


def hop_table(real: Real) -> Table:
    rows = []
    for h in real.harness_hop:
        lat = h.get("latency_ns") if isinstance(h.get("latency_ns"), dict) else {}
        rows.append([str(h.get("clients", u.DASH)), u.count(number(h.get("request_size"))),
                     u.si(number(h.get("ids_per_s"))), u.si(number(h.get("ids_per_s_per_client"))),
                     u.duration_ns(number(lat.get("p50"))), u.duration_ns(number(lat.get("p99"))),
                     (str(h["error"]), BAD) if h.get("error") else ""])
    return Table(["clients", "IDs/request", "IDs/s", "IDs/s per client", "p50", "p99", "error"],
                 rows, align="llrrrrl",
                 caption="The harness's own cost, in no system's figure: the same requests "
                         "answered by the null adapter (a counter, no system) through the same "
                         "process and pipe. A cell's end-to-end round trip is about its own "
                         "share plus this.")
