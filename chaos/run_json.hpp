// run_json.hpp — a chaos run as JSON (for `--json` and chaos.json); run_text.hpp renders the
// same run for a person. Measuring code does not format: the driver returns a RunResult, this
// file renders it.
//
// The JSON of one run has, at least, the keys every reader of chaos.json relies on —
// scenario, variant, policy, nodes, ids, duplicates, order_violations, refusals, availability,
// max_stall_ms, ksort_bound_ms, promise_kept — then the detail behind them (among it the
// whole verdict under "fault_verdict", as fault/verdict_json.hpp writes every verdict; the
// older "verdict" key stays the evidence line) and, with
// `with_timeline`, the down-sampled timeline a report draws (see analysis.hpp). Every JSON
// document idbench chaos writes carries a `context` block: machine, commit, build, clock
// source.
//
// Thread safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "chaos/driver.hpp"

namespace idbench::chaos {

nlohmann::ordered_json to_json(const RunResult& r, bool with_timeline);

// The shared run context (plumbing/run_context.hpp: machine, commit and dirty marker, build,
// clock source, date), written as every idbench result writes it.
nlohmann::ordered_json context_json();
// What only a chaos run has, for its "config" block: which injector faked the nodes' clocks
// and how (for libfaketime, its path and version).
nlohmann::ordered_json clocks_json(ClockInjector injector);

}  // namespace idbench::chaos
