// node.hpp — one worker-id node: a process that takes its worker id from etcd (or is given
// one), issues IDs from a Snowflake-family variant under it, and records what it did.
//
// The driver (driver.hpp) starts `idbench-coord-node` and reads one line, "ready", once the
// node holds its first id; closing the node's stdin stops it. Meanwhile the node issues
// `ids_per_ms` IDs at the start of every wall-clock millisecond (so nodes that share a worker
// id collide in the same ticks, as a fleet at that rate would), and writes
//   node-<k>.inc-0.thread-0.rec   one fault::Record per ID (fault/history.hpp): the ID, its
//                    true and monotonic time (a node is never restarted: always incarnation 0)
//   node-<k>.events  text lines: claim <ns> <worker> <counter> <revision> | lost <ns>
//                    | stall <from_ns> <to_ns> | hook <from_ns> <to_ns> | renewals <n>
//
// Behaviours: `unfenced` issues with the id it holds whatever happens to the
// lease; `deadline` checks the lease deadline (worker_lease.hpp) before every batch and, past
// it, stops, claims an id again and only then issues; `in-id` does the same and also carries
// the claim counter, mod 2^gen, in the layout's `gen` field (layout.hpp: `gen=BITS`, the top
// bits of the node field), so `Layout::decode(id).gen` is the fencing token and the trade,
// each gen bit halving the node space, is the layout's. The variant's own policy leaves that
// field 0 (only clock-sequence writes it, and worker-id runs never choose it); the node
// stamps the counter into each ID it issues.
//
// Test hook (`inject_pause_*`): the first deadline check at or after `inject_pause_at_ms`
// (since ready) passes, then the node pauses for `inject_pause_ms` — keep-alives frozen too,
// as in a process-wide pause — and then issues 10 ms of batches without checking again (one
// check for a block of IDs): a pause exactly between the check and the act.
//
// Thread safety: run_coord_node is the body of a process; call it once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coord/etcd_client.hpp"
#include "generators/layout.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench::coord {

enum class Behaviour { unfenced, deadline, in_id };
// The words `--behaviour` takes and results carry.
inline constexpr std::array<plumbing::Named<Behaviour>, 3> kBehaviourNames = {{
    {Behaviour::unfenced, "unfenced"},
    {Behaviour::deadline, "deadline"},
    {Behaviour::in_id, "in-id"},
}};
static_assert(plumbing::one_to_one(kBehaviourNames) &&
              kBehaviourNames.size() == static_cast<std::size_t>(Behaviour::in_id) + 1);
std::string_view name_of(Behaviour b);
// The behaviour a word names; nullopt for an unknown word.
std::optional<Behaviour> behaviour_named(std::string_view name);

struct CoordNodeConfig {
  int index = 0;
  std::string variant;
  std::string layout = "twitter";  // in-id: a layout with gen bits (worker_layout)
  Behaviour behaviour = Behaviour::unfenced;
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

// The layout a run's IDs use: `layout` as it is, except that `in-id` needs gen bits: a
// layout without them gets `gen_bits` taken from the top of its node field, the rest one
// `worker` part (twitter, node 5+5, gen_bits 4: ts=41,node=6,gen=4,seq=12 with twitter's
// epoch); one with them keeps its own. Throws LayoutError
// for a bad layout, Error when the gen bits would leave no node bit.
Layout worker_layout(const std::string& layout, Behaviour behaviour, int gen_bits);

// Returns the exit status: 0 after a clean stop, 2 for a refused configuration or an etcd
// that cannot be reached at start (message on stderr), 3 on an I/O failure.
int run_coord_node(const CoordNodeConfig& config);

}  // namespace idbench::coord
