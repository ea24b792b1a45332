// direct.hpp — the reference a MariaDB scheme's figure is read against: its SQL called as an
// application calls it, T threads in this process, each with its own connection through the C
// connector, running the very Client the adapter runs (adapters/mariadb/client.hpp: the same
// statements, retries and failover), timed in the same window as a cell (round_trips.hpp). No
// adapter process, no pipe: what `idbench real --direct` shows beside each MariaDB cell.
//
//   CellFigures d = measure_direct({"ticket-pair", "--engine", "innodb"}, sockets, plan);
//
// A client that cannot connect, or a statement the client cannot get past, is the figures'
// error (the window stops, as for a failing program). adapter_counters holds the clients'
// summed retries, deadlocks and failovers.
//
// `idbench real` runs the direct client for half its window just before a cell and half just
// after it, and reports the two as one (combined()): on a shared machine whose load drifts
// while the cell runs, both figures then see the same conditions on average.
//
// Thread safety: as measure_cell().
#pragma once

#include <string>
#include <vector>

#include "bench/real/round_trips.hpp"

namespace idbench::realbench {

// `scheme_args`: the adapter's arguments ("auto-increment", "ticket-pair --engine myisam" as
// words); `sockets`: the servers', in order. Throws Error for a plan that cannot run;
// plumbing::Interrupted after a signal.
CellFigures measure_direct(const std::vector<std::string>& scheme_args,
                           const std::vector<std::string>& sockets, const CellPlan& plan);

// Two windows of the same plan as one: their IDs, requests, seconds and latencies added up,
// the first error kept, the counters summed.
CellFigures combined(const CellFigures& a, const CellFigures& b);

}  // namespace idbench::realbench
