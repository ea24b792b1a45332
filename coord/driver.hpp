// driver.hpp — one worker-id run: a private etcd cluster (or given endpoints), N nodes that
// lease their worker ids from it, a fault scenario (scenario.hpp) played on nodes and members,
// then the analysis (analysis.hpp) and the verdict (judge.hpp).
//
//   WorkerRunConfig cfg{.scenario = "pause-beyond-lease", .behaviour = Behaviour::deadline};
//   WorkerRunResult r = run_worker_ids(cfg, stderr);   // progress lines, or nullptr
//   r.analysis.duplicates;                               // 0: the fence held
//   r.verdict.passed();                                  // false: an ID issued twice
//
// The variant is read from the registry's descriptions when not given: the first 64-bit
// Snowflake-family variant that takes one node id per process. The run's files live in a
// fresh temp directory (removed afterwards) unless `keep_dir` names one.
//
// Errors: EtcdMissing (exit 4) when etcd is not installed; EtcdUnavailable (exit 2) when the
// etcd at start is unreachable or has no quorum; Error (exit 2) for a bad configuration or a
// node that fails. Never a silent static fallback.
//
// Thread safety: forks; call from one thread that outlives the run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "coord/analysis.hpp"
#include "coord/etcd_client.hpp"
#include "coord/judge.hpp"
#include "coord/node.hpp"

namespace idbench::coord {

struct WorkerRunConfig {
  std::string scenario = "pause-beyond-lease";
  Behaviour behaviour = Behaviour::unfenced;
  bool etcd = true;          // --worker-ids etcd|static
  int nodes = 3;
  int ttl_s = 2;             // the lease TTL; etcd's election timeout is TTL/2
  std::string variant;       // empty: chosen by description
  std::string layout = "twitter";
  int gen_bits = 4;          // in-id on a layout without gen bits: gen=4 (worker_layout)
  int ids_per_ms = 20;
  std::vector<Endpoint> endpoints;  // non-empty: this etcd instead of a private cluster
  std::string node_binary;   // empty: idbench-coord-node beside this executable
  std::string etcd_binary;   // empty: etcd-server's `etcd`
  std::string keep_dir;
};

// A fault as worker_ids.json shows it: the run's timeline record (fault/timeline.hpp) at its
// CLOCK_MONOTONIC instant.
struct LoggedFault {
  std::int64_t at_ns = 0;
  std::string what;
};

struct WorkerRunResult {
  WorkerRunConfig config;
  std::string variant;
  std::string layout;    // the IDs' layout spec (worker_layout): what decodes them
  int gen_bits = 0;      // in-id: its gen bits, the width of the fencing token; else 0
  std::string scenario_summary;
  std::int64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC: every node ready .. stop
  std::int64_t margin_ms = 0;
  std::vector<LoggedFault> faults;
  WorkerAnalysis analysis;
  fault::Verdict verdict;  // judge(analysis)
};

WorkerRunResult run_worker_ids(const WorkerRunConfig& config, std::FILE* progress);

// The variant a run uses when none is named (see above); throws Error when none fits.
std::string default_worker_variant();
// Throws Error unless `name` is a 64-bit Snowflake-family variant taking one node id.
void check_worker_variant(const std::string& name);

}  // namespace idbench::coord
