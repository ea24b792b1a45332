// real_locality.hpp — where a real system's IDs land in a clustered index: C clients, each with
// its own instance of the program (its own adapter process and database connection), ask for
// one ID per round trip until `rows` IDs have arrived; the IDs, in the order the harness
// received them, go through the InnoDB model (bench/locality/innodb_model.hpp): leaf pages,
// leaf fill, splits.
//
//   LocalityPlan plan{.clients = 8, .rows = 20'000};
//   LocalityFigures f = measure_locality(spec, plan);   // f.metrics->avg_leaf_fill
//
// Why arrival order: an application inserts its row as soon as it has the ID, so the table sees
// the IDs of several clients interleaved as they come back — for a database scheme, several
// connections to one server; for a library (Python's uuid1, npm's uuid v7), several
// application servers each with its own instance. One client shows the system's own order.
// One ID per request, because that is how these systems are used (a request of 1,000 from
// each client would interleave whole blocks, an order no table sees).
//
// The key column is the IDs' width (BIGINT for 64-bit IDs, BINARY(16) for UUIDs). The same IDs
// then go through the model once per row size in plan.payloads (bytes beside the key): a
// person's table has rows, and how far pages fill depends on how many rows fit in one, so the
// real IDs are judged at the row sizes the in-process matrix measures, not only key-only.
// Collecting stops at plan.max_seconds; the figures then hold the IDs that arrived (`rows` <
// `planned_rows`) and `note` says so. A program that fails is the figures' `error` (the model is
// not run); a signal ends the pass with plumbing::Interrupted. Measuring only: no formatting.
//
// Thread safety: call from one thread at a time; it starts plan.clients threads and joins them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/locality/engines.hpp"
#include "external/program.hpp"
#include "external/stderr_capture.hpp"

namespace idbench::realbench {

struct LocalityPlan {
  int clients = 1;
  std::uint64_t rows = 20'000;
  // Row sizes beyond key-only to run the IDs at (0 is always run: `metrics`); each is cheap,
  // the IDs are collected once.
  std::vector<int> payloads = {};
  double max_seconds = 60;          // collecting stops here, whatever has arrived
  std::uint64_t first_node_id = 0;  // client k runs with node id first_node_id + k
};

struct LocalityFigures {
  int clients = 0;
  std::uint64_t planned_rows = 0;
  std::uint64_t rows = 0;  // IDs received and inserted into the model
  double seconds = 0;      // collecting them
  std::optional<locality::Metrics> metrics;  // key-only; nullopt when the program failed
  // The same IDs at each of plan.payloads other than 0, in that order (payload bytes, figures).
  std::vector<std::pair<int, locality::Metrics>> at_payloads;
  std::string error;  // the first client's failure; empty when none
  std::string note;   // "stopped at the 60 s cap: 9,000 of 20,000 IDs"; empty when complete
  std::optional<external::Counters> adapter_counters;
  std::vector<std::string> stderr_lines;
};

// Throws Error for a plan that cannot run (clients < 1, rows 0), plumbing::Interrupted after a
// signal.
LocalityFigures measure_locality(const external::ExecSpec& spec, const LocalityPlan& plan);

}  // namespace idbench::realbench
