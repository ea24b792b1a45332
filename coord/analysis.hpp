// analysis.hpp — what a worker-id run measured, from the nodes' files (node.hpp): duplicates
// across nodes, who held which worker id when, per-node unavailability, lease churn and the
// worker-id space consumed. Measures only; formatting is the CLI's and the report's.
//
//   std::vector<NodeLog> logs = {read_node_log(dir, 0), ...};
//   WorkerAnalysis a = analyse(logs, end_ns);
//   a.duplicates;       // IDs issued more than once (extra copies), across all nodes
//   a.nodes[0].zombie_ids;  // IDs node 0 issued under an id someone had claimed after it
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fault/history.hpp"

namespace idbench::coord {

struct Span {
  std::int64_t from_ns = 0, to_ns = 0;
};

struct ClaimEvent {
  std::int64_t at_ns = 0;
  std::uint64_t worker = 0, counter = 0;
  std::int64_t revision = 0;
};

// Everything one node wrote.
struct NodeLog {
  int node = 0;
  std::vector<fault::Record> ids;  // in issue order: lo the ID, mono_ns when it was issued
  std::vector<ClaimEvent> claims;
  std::vector<Span> stalls;   // the fence stopped the node, until it held an id again
  std::vector<Span> hooks;    // injected pauses between the check and the act
  std::vector<std::int64_t> lost;  // etcd said the lease was gone
  std::int64_t renewals = 0;
};

// Reads node-<k>.inc-0.thread-0.rec and node-<k>.events; throws Error naming a malformed line or file.
NodeLog read_node_log(const std::string& dir, int node);

struct Holding {
  int node = 0;
  std::uint64_t worker = 0, counter = 0;
  Span span;  // from the claim to the node's next stall or claim, or the run's end
};

struct Duplicate {
  std::uint64_t id = 0;
  int node_a = 0, node_b = 0;
  std::int64_t at_a_ns = 0, at_b_ns = 0;
};

inline constexpr std::int64_t kGapNs = 20'000'000;  // a node issues every ms: 20 ms is a stop

struct WorkerNodeFigures {
  int node = 0;
  std::int64_t ids = 0;
  int claims = 0;               // lease churn: ids this node claimed
  std::int64_t stalled_ns = 0;  // stopped by its fence
  std::int64_t unavailable_ns = 0;  // every gap > kGapNs from its first ID to the end
  std::vector<Span> gaps;
  std::vector<Span> stalls, hooks;  // as the node logged them
  std::vector<std::int64_t> lost;
  std::int64_t zombie_ids = 0;  // issued under a worker id another node claimed after it
  std::int64_t renewals = 0;
};

struct WorkerAnalysis {
  std::int64_t ids = 0;
  std::int64_t duplicates = 0;           // extra copies of IDs
  std::vector<Duplicate> samples;        // at most kMaxSamples, spread over the run
  std::vector<Holding> holdings;
  std::vector<WorkerNodeFigures> nodes;
  int workers_claimed = 0;               // distinct worker ids ever claimed
  std::uint64_t worker_space_used = 0;   // highest claimed worker id + 1
  static constexpr std::size_t kMaxSamples = 2000;
};

WorkerAnalysis analyse(const std::vector<NodeLog>& logs, std::int64_t end_ns);

}  // namespace idbench::coord
