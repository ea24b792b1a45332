// run_json.hpp — the real-system bench's record as JSON (`idbench real --out`, the
// "real_systems" key of bench.json). Formatting only; real_run.hpp measures.
//
// Schema:
//   {"context": {run context (plumbing/run_context.hpp)}, "complete": bool, "profile": "quick",
//    "config": {"clients": [1, 8], "requests": [1, 1000], "flush": [1, 2], "binlog": false,
//               "warmup_s": 0.5, "seconds": 2},
//    "planned": 24, "errors": 0, "locality_errors": 0,
//    "systems": [{"name", "summary", "scheme", "lower_bound_variant", "mariadb_servers"}],
//    "cells": [{"system": "mariadb-auto-increment", "scheme": "AUTO_INCREMENT",
//               "lower_bound_variant": "auto-increment", "command": "...",
//               "durability": {"innodb_flush_log_at_trx_commit": 1, "binlog": false} | null,
//               "server": "MariaDB 10.11.6, innodb_flush_log_at_trx_commit=1, ..." | "",
//               "clients": 8, "request_size": 1, "seconds": 2.0, "ids": 9000, "requests": 9000,
//               "ids_per_s": 4500.0, "ids_per_s_per_client": 562.5,
//               "latency_ns": {"p50": .., "p99": .., "p999": .., "max": ..},
//               "failed_clients": 0, "error": null | "...",
//               "adapter_counters": {"retries": 0, "deadlocks": 0, "failovers": 0} | null,
//               "system_side": {"ids_per_s", "ids_per_s_per_client", "latency_ns"} | null,
//               "direct": {"seconds", "ids", "requests", "ids_per_s", "ids_per_s_per_client",
//                          "latency_ns", "error", "counters"} | null}],
//    "harness_hop": [cells as above, "system": "harness hop", durability null],
//    "locality": [{"system", "scheme", "lower_bound_variant", "durability", "clients": 8,
//                  "request_size": 1, "planned_rows": 20000, "rows": 20000, "seconds": 3.1,
//                  "engine": "model (innodb (MariaDB 10.11 rules))", "key_type": "bigint",
//                  "leaf_pages": 34, "avg_leaf_fill": 0.93, "splits_per_1k": 1.7, "height": 2,
//                  "note": null | "stopped at the 60 s cap: …", "error": null | "...",
//                  "adapter_counters": {...} | null,
//                  "row_sizes": [{"payload_bytes": 250, "leaf_pages", "avg_leaf_fill",
//                                 "splits_per_1k", "height"}, ...]}]}
//   adapter_counters null: the program printed no summary line (unknown).
//   system_side: what the programs timed themselves (IDBENCH_SYSTEM_TIMES): the system's own
//   IDs/s and latency without the pipe hop; null when they did not (round_trips.hpp).
//   direct: the MariaDB scheme called from idbench's own threads, one connection each
//   (direct.hpp), with --direct; null otherwise. harness_hop: the null adapter (no system) at
//   every client count and request size: the harness's own cost, in no system's figure.
//   "errors" counts the cells, hop cells and direct runs with an error.
//   locality: one entry per (system, client count) of the locality pass (real_locality.hpp):
//   the real IDs in arrival order through the InnoDB model; the figures are null on an error.
//   The top-level figures are key-only; row_sizes holds the same IDs at each other row size.
//   config also carries "locality_rows" (0: no pass), "locality_clients", "locality_max_seconds",
//   "direct" (bool).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "bench/real/real_run.hpp"

namespace idbench::realbench {

// The whole run: its plan, what was recorded so far, and the profile's name ("quick").
nlohmann::json to_json(const RunPlan& plan, const RunRecord& record, const std::string& profile);

}  // namespace idbench::realbench
