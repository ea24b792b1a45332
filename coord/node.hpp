// node.hpp — one worker-id node: a process that takes its worker id from etcd (or is given
// one), issues IDs from a Snowflake-family variant under it, and records what it did.
//
// The driver (driver.hpp) starts `idbench-coord-node` and reads one line, "ready", once the
// node holds its first id; closing the node's stdin stops it. Meanwhile the node issues
// `ids_per_ms` IDs at the start of every wall-clock millisecond (so nodes that share a worker
// id collide in the same ticks, as a fleet at that rate would), and writes
//   node-<k>.ids     binary records: int64 CLOCK_MONOTONIC ns, uint64 ID (host order)
//   node-<k>.events  text lines: claim <ns> <worker> <counter> <revision> | lost <ns>
//                    | stall <from_ns> <to_ns> | hook <from_ns> <to_ns> | renewals <n>
//
// Behaviours (issue 15): `unfenced` issues with the id it holds whatever happens to the
// lease; `deadline` checks the lease deadline (worker_lease.hpp) before every batch and, past
// it, stops, claims an id again and only then issues; `in-id` does the same and also puts
// the low `gen_bits` of the claim counter in the node field: node = worker << gen | counter.
//
// Test hook (`inject_pause_*`): the first deadline check at or after `inject_pause_at_ms`
// (since ready) passes, then the node pauses for `inject_pause_ms` — keep-alives frozen too,
// as in a process-wide pause — and then issues 10 ms of batches without checking again (one
// check for a block of IDs): a pause exactly between the check and the act.
//
// Thread safety: run_coord_node is the body of a process; call it once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "coord/etcd_client.hpp"

namespace idbench::coord {

enum class Behaviour { unfenced, deadline, in_id };
// "unfenced", "deadline", "in-id"; parse returns false for an unknown name.
std::string_view name_of(Behaviour b);
bool parse_behaviour(std::string_view name, Behaviour& out);

struct CoordNodeConfig {
  int index = 0;
  std::string variant;
  std::string layout = "twitter";
  Behaviour behaviour = Behaviour::unfenced;
  int gen_bits = 0;             // in-id: generation bits taken from the node field
  bool etcd = true;             // false: `static_id` is the worker id (--worker-ids static)
  std::uint64_t static_id = 0;
  std::vector<Endpoint> endpoints;
  std::string prefix = "idbench/workers/";
  int ttl_s = 2;
  std::int64_t margin_ms = 500;
  int ids_per_ms = 20;
  std::int64_t inject_pause_at_ms = -1;  // < 0: no injected pause
  std::int64_t inject_pause_ms = 0;
  std::string out_dir;
};

// Returns the exit status: 0 after a clean stop, 2 for a refused configuration or an etcd
// that cannot be reached at start (message on stderr), 3 on an I/O failure.
int run_coord_node(const CoordNodeConfig& config);

}  // namespace idbench::coord
