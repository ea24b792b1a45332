// judge.hpp — a worker-id run's verdict: whether any ID was issued twice across the nodes,
// in the shared fault::Verdict (fault/verdict.hpp).
//
//   const WorkerAnalysis a = analyse(logs, end_ns);
//   const fault::Verdict v = judge(a);
//   v.passed();   // false: DUPLICATES, "duplicates issued: 3 among 12000 IDs from 3 nodes"
//
// No ID twice, every node having issued at least one, is "kept"; a node that issued none is
// "no evidence" and fails. Any duplicate is DUPLICATES and fails, whatever the behaviour: an
// unfenced node is expected to duplicate after a pause beyond its lease, and the run says so
// (`idbench worker-ids` prints CAUGHT and exits 1). IDs a node issued under a worker id
// another node claimed after it (zombie IDs) are a finding, not a failure on their own.
//
// Thread safety: a pure function.
#pragma once

#include "coord/analysis.hpp"
#include "fault/verdict.hpp"

namespace idbench::coord {

fault::Verdict judge(const WorkerAnalysis& a);

}  // namespace idbench::coord
