// run_records.hpp — loading a chaos run's files: everything its nodes wrote (record.hpp), read
// once, before any analysis, so the analysis passes (analysis.hpp) are pure functions.
//
//   const RunRecords records = load_run_records(facts);   // reads facts.run_dir
//   const Analysis a = analyse(facts, records);           // no file access
//
// A file a killed node never created reads as empty; a record file cut short by a kill -9
// keeps its whole records (the cut one is lost); a `.done` file names the threads still inside
// next() at the stop.
//
// Thread safety: reads files; no shared state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "chaos/record.hpp"

namespace idbench::chaos {

struct RunFacts;

// One process lifetime of one node, as it was written to disk.
struct IncarnationRecords {
  std::vector<std::vector<Record>> threads;       // per thread, in call order
  std::vector<std::int64_t> stuck_since_true_ns;  // per thread: -1, or still in next() since
  std::map<std::string, std::string> messages;    // refusal kind → first message
  std::vector<ProbeSample> probe;                 // empty unless the node probed its clock
};

struct RunRecords {
  std::vector<std::vector<IncarnationRecords>> nodes;  // [node][incarnation]
};

// Reads every file `facts` names (one per node, incarnation and thread).
RunRecords load_run_records(const RunFacts& facts);

}  // namespace idbench::chaos
