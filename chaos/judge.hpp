// judge.hpp — what a chaos run's analysis means: which promise the configuration makes,
// whether it was kept, and whether the run gave evidence at all; the verdict is the shared
// fault::Verdict (fault/verdict.hpp).
//
//   JudgeSetup setup{.policy = "refuse", .nodes = 2, .steps_back = true, .node_field = true};
//   setup.faults = {{start + 400 ms, "NTP steps every clock back 200 ms"}};
//   const fault::Verdict v = judge(analyse(facts), setup);
//   v.passed();    // false: a promise broken, or no evidence (a node that issued nothing)
//   v.evidence;    // the run's summary line: "kept: 0 duplicates", "BROKEN: 2 duplicates ..."
//
// Outcomes: a promise broken is BROKEN (its first finding is the summary); duplicates the
// promise does not rule out are "caught" and pass; none is "kept".
//
// Evidence: a verdict that passes must rest on IDs. Every node issued at least one ID, and
// for every fault the scenario played, every node issued an ID before the fault's instant and
// one after it. A run without (a generator refusing for the whole run, a time scale so small
// that nothing was issued) is "no evidence" and fails: 0 duplicates from 0 IDs proves nothing.
//
// Fault verification (fault_check.hpp): a clock fault that did not reach the program (a
// statically linked binary reading the clock by raw syscall) is "fault not applied", and one
// the run could not verify is "not verified" (its line "fault not verified: ...", or, for a
// program whose IDs carry no time, "not verified: the IDs carry no time"); both fail, and
// neither is ever "kept".
//
// What chaos.json shows beside the verdict (the promise, evidence, whether duplicates were
// expected) comes from the functions below, on the same setup.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chaos/analysis.hpp"
#include "fault/verdict.hpp"

namespace idbench::chaos {

// A fault the scenario played: its true instant (ns) and what it was.
struct Fault {
  std::int64_t true_ns = 0;
  std::string what;
};

// What the verdict depends on besides the analysis.
struct JudgeSetup {
  std::string policy = "refuse";
  bool persist = false;  // a persisted high-water mark
  bool program = false;  // an external program (its own state carries it over restarts)
  int nodes = 1;
  unsigned threads = 1;     // per node: a program runs one instance per thread
  bool steps_back = false;  // the scenario's flags (scenario.hpp)
  bool restarts = false;
  bool same_node_id = false;
  bool exhausts = false;
  bool node_field = false;   // the IDs carry a node id (a Snowflake layout)
  bool random_bits = false;  // the IDs are 128-bit with random bits (UUIDs)
  std::optional<std::int64_t> lifetime_last_unix_ms;
  std::int64_t start_true_ns = 0;  // for messages: fault times are given since the start
  std::vector<Fault> faults;
};

// Decides the verdict from the analysis.
fault::Verdict judge(const Analysis& a, const JudgeSetup& setup);

// The promise the configuration makes.
Promise promise_of(const JudgeSetup& setup);

// Why duplicates are possible here for a reason outside the promise (unsafe after a step back,
// a restart without a persisted mark, two nodes with one node id), "; "-separated; empty when
// they are not.
std::string duplicates_possible_because(const JudgeSetup& setup);

// Why the clock faults are not shown to have reached the program, one line each, starting
// "fault not applied: " or "fault not verified: "; empty when every fault was verified.
std::vector<std::string> fault_gaps(const FaultCheck& check, std::int64_t start_true_ns);

// Why the run is no evidence, one line each ("node 1 issued no ID"); empty when it is.
std::vector<std::string> evidence_gaps(const Analysis& a, const JudgeSetup& setup);

}  // namespace idbench::chaos
