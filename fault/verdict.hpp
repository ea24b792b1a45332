// verdict.hpp — the one verdict of a run under faults: its outcome, the line it rests on and
// what else was found. chaos/ (clock faults on generators and programs), real/ (faults on real
// database servers) and coord/ (worker ids leased from etcd) each judge their own figures and
// return this type; the judging stays in those folders, the words for outcomes live here.
//
//   fault::Verdict v{.outcome = fault::Outcome::duplicates,
//                    .evidence = "duplicates issued: 3 (3 values): ...",
//                    .findings = {"duplicate 17 x2 at 120.0 ms and 410.3 ms"}};
//   v.passed();                 // false: a system handed out an ID twice
//   fault::name_of(v.outcome);  // "DUPLICATES", the word real_chaos.json's "verdict" holds
//
// A verdict passes only when its outcome is kept, available or caught: everything else is a
// failure of the system (broken, duplicates, unavailable) or a run that proves nothing about
// it (no evidence, fault not applied, not verified, machine starved).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace idbench::fault {

enum class Outcome {
  // Passing outcomes.
  kept,       // "kept": no ID issued twice, on evidence from both sides of every fault
  available,  // "available": every request served through the fault, no ID issued twice
  caught,     // "caught": duplicates possible for a reason outside the promise, and found
  // The system failed.
  broken,       // "BROKEN": a promise the configuration makes was broken (an ID issued twice
                // that it rules out, a wrapped clock, a refusal missing at the lifetime's end)
  duplicates,   // "DUPLICATES": a system handed out an ID twice
  unavailable,  // "unavailable": requests failed, or none was served, while the fault lasted
  // The run proves nothing about the system.
  no_evidence,        // "no evidence": no IDs on both sides of a fault (0 of 0 proves nothing)
  fault_not_applied,  // "fault not applied": the fault did not reach the system
  not_verified,       // "not verified": whether the fault reached it could not be shown
  machine_starved,    // "machine starved": the machine did not let the clients issue
};

// Every outcome, in declaration order.
inline constexpr std::array kOutcomes = {Outcome::kept,         Outcome::available,
                                         Outcome::caught,       Outcome::broken,
                                         Outcome::duplicates,   Outcome::unavailable,
                                         Outcome::no_evidence,  Outcome::fault_not_applied,
                                         Outcome::not_verified, Outcome::machine_starved};
static_assert(kOutcomes.size() == static_cast<std::size_t>(Outcome::machine_starved) + 1);

// The outcome's word, as the results and the console show it ("kept", "DUPLICATES").
std::string_view name_of(Outcome o);

// True for kept, available and caught.
bool passes(Outcome o);

struct Verdict {
  Outcome outcome = Outcome::no_evidence;
  // One line: what the outcome rests on (the numbers, or the first broken promise), as the run
  // shows it; a chaos run's summary line ("kept: 0 duplicates") is this line.
  std::string evidence;
  std::vector<std::string> findings;  // further lines, one each: what was measured or missing
  bool passed() const { return passes(outcome); }
};

}  // namespace idbench::fault
