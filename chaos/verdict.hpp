// verdict.hpp — what a chaos run's analysis means: which promise the configuration makes,
// whether it was kept, and whether the run gave evidence at all.
//
//   VerdictSetup setup{.policy = "refuse", .nodes = 2, .steps_back = true, .node_field = true};
//   setup.faults = {{start + 400 ms, "NTP steps every clock back 200 ms"}};
//   const Verdict v = judge(analyse(facts), setup);
//   v.passed();   // false: a promise broken, or no evidence (a node that issued nothing)
//
// Evidence: a verdict that passes must rest on IDs. Every node issued at least one ID, and
// for every fault the scenario played, every node issued an ID before the fault's instant and
// one after it. A run without (a generator refusing for the whole run, a time scale so small
// that nothing was issued) is "no evidence" and fails: 0 duplicates from 0 IDs proves nothing.
//
// Fault verification (fault_check.hpp): a clock fault that did not reach the program (a
// statically linked binary reading the clock by raw syscall) is "fault not applied", and one
// the run could not verify is "fault not verified" (for a program whose IDs carry no time,
// "not verified: the IDs carry no time"); both fail, and neither is ever "kept".
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chaos/analysis.hpp"

namespace idbench::chaos {

// A fault the scenario played: its true instant (ns) and what it was.
struct Fault {
  std::int64_t true_ns = 0;
  std::string what;
};

// What the verdict depends on besides the analysis.
struct VerdictSetup {
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

struct Verdict {
  Promise promise;
  bool promise_kept = true;  // false when broken, and when there is no evidence
  bool evidence = true;      // every node issued IDs before and after every fault
  bool fault_applied = true;  // every clock fault verified as reaching the program
  // Duplicates are possible here for a reason outside the promise (unsafe after a step back,
  // a restart without a persisted mark, two nodes with one node id).
  bool duplicates_expected = false;
  bool caught = false;                // duplicates occurred and were found
  std::vector<std::string> findings;  // one line each: what was kept, broken, caught, missing
  std::string summary;
  bool passed() const { return promise_kept && evidence && fault_applied; }
};

// Decides the verdict from the analysis.
Verdict judge(const Analysis& a, const VerdictSetup& setup);

// Why the clock faults are not shown to have reached the program, one line each, starting
// "fault not applied: " or "fault not verified: "; empty when every fault was verified.
std::vector<std::string> fault_gaps(const FaultCheck& check, std::int64_t start_true_ns);

// Why the run is no evidence, one line each ("node 1 issued no ID"); empty when it is.
std::vector<std::string> evidence_gaps(const Analysis& a, const VerdictSetup& setup);

}  // namespace idbench::chaos
