// run_json.hpp — the JSON of locality results, as `locality --json` prints them and
// locality.json holds them (reports/inputs.py reads it):
//
//   a run:         Metrics fields + {"stream": {...}, "payload_bytes": B, "context": {...}}
//   a validation:  {"validation": [rows], "innodb_ran", "pass", "unavailable", "context"}
//   the matrix:    {"context", "complete", "matrix": [runs], "validation": object | null}
//                  ("validation" absent while the matrix is still running)
//
// "context" is plumbing::current_run_context(), the block every idbench result carries.
//
// Thread safety: reentrant.
#pragma once

#include <nlohmann/json.hpp>

#include "bench/locality/engines.hpp"
#include "bench/locality/single_run.hpp"
#include "bench/locality/validate.hpp"

namespace idbench::locality {

nlohmann::json to_json(const Metrics& m);
nlohmann::json to_json(const RunSpec& spec, const RunResult& result);  // a run
nlohmann::json to_json(const ValidationReport& report);
// The run context, which has no value of its own to take: what every document carries.
nlohmann::json context_json();

}  // namespace idbench::locality
