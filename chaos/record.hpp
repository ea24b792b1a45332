// record.hpp — what a chaos node writes to disk and the analyser reads back: one history
// record (fault/history.hpp) per call to `next()`, an ID or a refusal, stamped with the true
// time, and the files around them.
//
// Every file of a run lives in one run directory:
//   node-<k>.inc-<i>.thread-<t>.rec   fault::Records of thread t of incarnation i of node k
//   node-<k>.inc-<i>.messages         the first message of each refusal kind, "kind<TAB>text"
//   node-<k>.inc-<i>.done             written at a clean stop: one line per thread,
//                                     "thread <t> records <n> stuck_since_true_ns <ns|-1>"
//   node-<k>.inc-<i>.probe            ProbeSamples, only when a built-in variant's IDs carry
//                                     no time: the node's own faked clock read every ms
//                                     (fault_check.hpp)
//   node-<k>.inc-<i>.program-error    an external program's failure, one line, written just
//                                     before the node exits because of it
// `k` is the node's index in the run (0..K-1), not its node id: two nodes may share a node id
// (the worker-collision scenario). An incarnation is one process lifetime; a restarted node
// writes incarnation i+1. A killed incarnation has no .done file; what its writer had written
// before the kill is all there is (the writer drains every millisecond, so little is lost).
//
// Records are host-endian: the files never leave the machine that wrote them.
//
// Thread safety: plain values.
#pragma once

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "fault/history.hpp"
#include "plumbing/enum_names.hpp"

namespace idbench::chaos {

using fault::Record;
using fault::RecordKind;
using fault::messages_file_name;
using fault::record_file_name;

// Which ClockError a refusal was; the analyser reports counts per kind.
enum class RefusalKind : std::uint16_t {
  clock_moved_backwards = 1,  // refuse
  wait_bound_exceeded = 2,    // bounded-wait
  borrow_limit_exceeded = 3,  // borrow
  epoch_exhausted = 4,        // every policy, outside the layout's lifetime
  other = 5,                  // any other ClockError
};
inline constexpr int kRefusalKinds = 6;  // index 0 unused, so a kind indexes an array

// The kind's word, in the .messages files and the analysis's refusals_by_kind; a number no
// kind has (a record's detail is read from disk) reads as "other".
inline constexpr std::array<plumbing::Named<RefusalKind>, kRefusalKinds - 1> kRefusalKindNames = {{
    {RefusalKind::clock_moved_backwards, "clock_moved_backwards"},
    {RefusalKind::wait_bound_exceeded, "wait_bound_exceeded"},
    {RefusalKind::borrow_limit_exceeded, "borrow_limit_exceeded"},
    {RefusalKind::epoch_exhausted, "epoch_exhausted"},
    {RefusalKind::other, "other"},
}};
static_assert(plumbing::one_to_one(kRefusalKindNames));

inline std::string_view name_of(RefusalKind kind) {
  return plumbing::name_in(kRefusalKindNames, kind, "other");
}

// One reading of the node's faked clock (through libc, so through libfaketime) with the true
// time beside it; 16 bytes on disk.
struct ProbeSample {
  std::int64_t true_ns = 0;
  std::int64_t fake_ns = 0;
};
static_assert(sizeof(ProbeSample) == 16, "the on-disk probe format is 16 bytes a sample");

inline std::string probe_file_name(int node, int incarnation) {
  return fmt::format("node-{}.inc-{}.probe", node, incarnation);
}
inline std::string program_error_file_name(int node, int incarnation) {
  return fmt::format("node-{}.inc-{}.program-error", node, incarnation);
}
inline std::string done_file_name(int node, int incarnation) {
  return fmt::format("node-{}.inc-{}.done", node, incarnation);
}

}  // namespace idbench::chaos
