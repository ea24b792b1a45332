// run_json.hpp — a worker-id run's result as JSON (the report's input, reports/
// worker_ids.py): configuration, faults, holdings, stalls, gaps, duplicates, the run's verdict
// (under "verdict", as fault/verdict_json.hpp writes every verdict), per-node figures.
// Times are ms since the run's start (every node ready).
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "coord/driver.hpp"

namespace idbench::coord {

nlohmann::json to_json(const WorkerRunResult& r);

}  // namespace idbench::coord
