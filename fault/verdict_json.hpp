// verdict_json.hpp — a fault::Verdict as the one JSON object every result file carries it in:
// real_chaos.json (each scenario and part, under "verdict"), worker_ids.json (each run, under
// "verdict") and chaos.json (each cell, under "fault_verdict": its "verdict" key was already the
// evidence line, and readers rely on that).
//
//   fault::to_json(fault::Verdict{.outcome = fault::Outcome::duplicates,
//                                 .evidence = "duplicates issued: 3 among 1200 IDs from 3 nodes"})
//   // {"verdict": "DUPLICATES", "passed": false,
//   //  "evidence": "duplicates issued: 3 among 1200 IDs from 3 nodes", "findings": []}
//
// "verdict" is fault::name_of(outcome), the word the report and the gate read; "passed" is
// Verdict::passed(); "findings" is an array of lines, empty when nothing else was found.
//
// Thread safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>

#include "fault/verdict.hpp"

namespace idbench::fault {

// Ordered, so a file written with ordered_json keeps the keys in the order above; an
// nlohmann::json document converts it on assignment.
nlohmann::ordered_json to_json(const Verdict& v);

}  // namespace idbench::fault
