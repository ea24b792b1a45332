// history.hpp — the one record of what a node did under faults: an ID it issued, a refusal it
// returned, or a request that failed, stamped with the true time and the monotonic time. chaos/
// nodes write it (one file per thread), and so do real/'s client nodes (real/client_node.hpp);
// the checkers read it back with read_records(), a live reader with read_new_records(). Fault
// events are the timeline's (timeline.hpp: FaultRecord).
//
//   fault::Record r{.hi = 0, .lo = id, .true_ns = plumbing::true_ns(),
//                   .mono_ns = plumbing::monotonic_ns(), .kind = fault::kind_word(RecordKind::id)};
//   std::fwrite(&r, sizeof r, 1, f);                       // what a node's writer does
//   std::vector<fault::Record> all = fault::read_records(path);   // what a checker reads
//
// Files: `node-<k>.inc-<i>.thread-<t>.rec` in a run directory (record_file_name): k is the
// node's index in the run, i its incarnation (one process lifetime: a restarted node writes
// i+1), t the thread. A killed node's file ends where its writer was; read_records() keeps the
// whole records and drops a record the kill cut short.
//
// Records are host-endian: the files never leave the machine that wrote them.
//
// Thread safety: plain values; the readers only read their file.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace idbench::fault {

enum class RecordKind : std::uint16_t {
  id = 1,              // hi, lo: the ID
  refusal = 2,         // the generator refused (a clock error); detail: the domain's kind
  failed_request = 3,  // a request to a program or server failed; detail: the domain's kind
};

struct Record {
  // The ID (hi = 0 for 64-bit IDs). For a refusal or a failure: what the domain puts there
  // (chaos: how many ms behind the clock was, when the error says).
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  // When the call returned or threw: CLOCK_REALTIME and CLOCK_MONOTONIC read by raw system
  // calls (plumbing/raw_time.hpp), which libfaketime does not intercept.
  std::int64_t true_ns = 0;
  std::int64_t mono_ns = 0;
  // How long the call took on the monotonic clock, in µs, saturating.
  std::uint32_t call_us = 0;
  std::uint16_t kind = 0;    // RecordKind
  std::uint16_t detail = 0;  // the domain's sub-kind (chaos: RefusalKind)
};
static_assert(sizeof(Record) == 40, "the on-disk format is 40 bytes a record");

inline std::uint16_t kind_word(RecordKind k) { return static_cast<std::uint16_t>(k); }
inline bool is(const Record& r, RecordKind k) { return r.kind == kind_word(k); }

inline std::string record_file_name(int node, int incarnation, int thread) {
  return fmt::format("node-{}.inc-{}.thread-{}.rec", node, incarnation, thread);
}

// The text a node keeps beside its records (chaos: the first message of each refusal kind;
// real-chaos clients: one line per failed request, numbered by the record's lo).
inline std::string messages_file_name(int node, int incarnation) {
  return fmt::format("node-{}.inc-{}.messages", node, incarnation);
}

// A call's duration for Record::call_us: whole µs from `from_mono_ns` to `to_mono_ns`,
// saturating at both ends.
inline std::uint32_t call_us(std::int64_t from_mono_ns, std::int64_t to_mono_ns) {
  const std::int64_t us = (to_mono_ns - from_mono_ns) / 1000;
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(us, 0, UINT32_MAX));
}

// Every whole record of the file at `path`, in the order written; empty when the file does not
// exist (a node killed before it created it issued nothing).
std::vector<Record> read_records(const std::string& path);

// The whole records written to the file at `path` from byte `offset` on, for a reader that
// follows a running node's file; `offset` moves past them (never into a record the writer has
// not finished, which the next call reads whole). Empty when the file does not exist yet.
std::vector<Record> read_new_records(const std::string& path, std::uint64_t& offset);

}  // namespace idbench::fault
