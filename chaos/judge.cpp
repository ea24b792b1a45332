// judge.cpp — judging a chaos run's analysis (see judge.hpp).
#include "chaos/judge.hpp"

#include <fmt/format.h>

#include "generators/layout.hpp"
#include "generators/policy.hpp"

namespace idbench::chaos {
namespace {

std::string plural(std::size_t n, std::string_view what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// Nodes are kept apart by distinct node ids or by random bits; a 64-bit counter has neither.
// A shared node id undoes the first, not the second.
bool collided(const JudgeSetup& s) { return s.same_node_id && s.node_field; }

// One finding per broken promise; returns how many duplicates broke one.
std::size_t broken_duplicates(const Analysis& a, const Promise& p, bool program,
                              std::vector<std::string>& findings) {
  std::size_t broken = 0;
  if (p.within_process && a.duplicates_within_process > 0) {
    broken += a.duplicates_within_process;
    findings.push_back(fmt::format(
        "BROKEN: {} within one {}", plural(a.duplicates_within_process, "duplicate"),
        program ? "program instance" : "process under a policy that promises uniqueness"));
  }
  if (p.across_restart && a.duplicates_across_restart > 0) {
    broken += a.duplicates_across_restart;
    findings.push_back(fmt::format("BROKEN: {} across a restart {}",
                                   plural(a.duplicates_across_restart, "duplicate"),
                                   program ? "of the program" : "despite the persisted mark"));
  }
  if (p.across_instances && a.duplicates_across_instances > 0) {
    broken += a.duplicates_across_instances;
    findings.push_back(fmt::format("BROKEN: {} across program instances with distinct node ids",
                                   plural(a.duplicates_across_instances, "duplicate")));
  }
  if (p.across_nodes && a.duplicates_across_nodes > 0) {
    broken += a.duplicates_across_nodes;
    findings.push_back(fmt::format("BROKEN: {} across nodes with distinct node ids",
                                   plural(a.duplicates_across_nodes, "duplicate")));
  }
  if (a.wrapped_ids > 0) {
    findings.push_back(
        fmt::format("BROKEN: {} carry a timestamp from before the run (a wrapped clock)",
                    plural(a.wrapped_ids, "ID")));
  }
  return broken;
}

// A scenario that crosses the lifetime: every policy must refuse, naming the last date.
bool exhaustion_ok(const Analysis& a, const JudgeSetup& s, std::vector<std::string>& findings) {
  if (!s.exhausts || !s.lifetime_last_unix_ms) return true;
  const std::string last = format_utc_ms(*s.lifetime_last_unix_ms);
  const auto n = a.refusals_by_kind.find("epoch_exhausted");
  const auto msg = a.refusal_messages.find("epoch_exhausted");
  if (n == a.refusals_by_kind.end() || n->second == 0) {
    findings.push_back("BROKEN: never refused past the end of the lifetime (" + last + ")");
    return false;
  }
  if (msg == a.refusal_messages.end() || msg->second.find(last) == std::string::npos) {
    findings.push_back("BROKEN: the refusal does not name the last date " + last);
    return false;
  }
  findings.push_back(
      fmt::format("refused {} past the lifetime: \"{}\"", plural(n->second, "call"), msg->second));
  return true;
}

std::string fault_line(const FaultVerification& f, std::int64_t start_true_ns) {
  const std::string observed =
      f.observed_ms ? fmt::format("{:+.1f} ms", *f.observed_ms) : std::string("nothing");
  const std::string expected = f.kind == "base" ? "the faked clock's offset" : "a change of";
  return fmt::format("node {} at +{:.2f} s ({}): expected {} {:+.1f} ms, the {} showed {} ({})",
                     f.node, static_cast<double>(f.at_true_ns - start_true_ns) / 1e9, f.what,
                     expected, f.expected_ms, f.how == "probe" ? "probe" : "IDs", observed, f.how);
}

// The outcome, weighed in the order the summary line is: a broken promise first, then a fault
// not shown to have reached the program, then missing evidence. A run whose IDs carry no time
// and whose scenario played no clock fault passes on its IDs (its line still says "not
// verified").
fault::Outcome outcome_of(bool kept, const std::vector<std::string>& gaps,
                          const std::vector<std::string>& unfaulted, const Analysis& a) {
  using fault::Outcome;
  if (!kept) return Outcome::broken;
  const bool shown = gaps.empty() && unfaulted.empty();
  if (!a.fault_check.unverifiable.empty() && !shown) return Outcome::not_verified;
  if (!unfaulted.empty()) {
    return a.fault_check.any(FaultOutcome::not_applied) ? Outcome::fault_not_applied
                                                        : Outcome::not_verified;
  }
  if (!gaps.empty()) return Outcome::no_evidence;
  return a.duplicates > 0 ? Outcome::caught : Outcome::kept;
}

}  // namespace

Promise promise_of(const JudgeSetup& s) {
  Promise p;
  p.within_process = Policy::parse(s.policy).promises_uniqueness();
  p.across_restart = p.within_process && s.persist;
  p.across_nodes = (s.node_field || s.random_bits) && !collided(s) && s.nodes > 1;
  p.across_instances = s.program && (s.node_field || s.random_bits) && s.threads > 1;
  p.program = s.program;
  return p;
}

std::string duplicates_possible_because(const JudgeSetup& s) {
  const Promise p = promise_of(s);
  std::vector<std::string> reasons;
  if (!p.within_process && (s.steps_back || s.restarts)) {
    reasons.emplace_back("unsafe resets its sequence when the clock goes back");
  }
  if (s.restarts && !p.across_restart && p.within_process) {
    reasons.emplace_back("a restart without a persisted mark forgets the last tick");
  }
  if (collided(s)) reasons.emplace_back("two nodes share a node id");
  if (!s.node_field && !s.random_bits && s.program && s.nodes * s.threads > 1) {
    reasons.emplace_back(
        "its IDs are described as carrying neither a node id nor random bits: its instances, "
        "each given its own node id, may repeat each other");
  } else if (!s.node_field && !s.random_bits && s.nodes > 1) {
    reasons.emplace_back("a counter per process has no node field");
  }
  std::string why;
  for (const auto& r : reasons) why += (why.empty() ? "" : "; ") + r;
  return why;
}

std::vector<std::string> fault_gaps(const FaultCheck& check, std::int64_t start_true_ns) {
  std::vector<std::string> gaps;
  for (const FaultOutcome o : {FaultOutcome::not_applied, FaultOutcome::unverified}) {
    for (const FaultVerification& f : check.faults) {
      if (f.outcome != o) continue;
      gaps.push_back(fmt::format("fault {}: {}",
                                 o == FaultOutcome::not_applied ? "not applied" : "not verified",
                                 fault_line(f, start_true_ns)));
    }
  }
  return gaps;
}

std::vector<std::string> evidence_gaps(const Analysis& a, const JudgeSetup& setup) {
  std::vector<std::string> gaps;
  if (a.nodes.empty()) gaps.emplace_back("no node ran");
  for (const NodeFigures& n : a.nodes) {
    if (!n.first_id_true_ns) {
      gaps.push_back(fmt::format("node {} issued no ID", n.node));
      continue;
    }
    for (const Fault& f : setup.faults) {
      const double at_s = static_cast<double>(f.true_ns - setup.start_true_ns) / 1e9;
      if (*n.first_id_true_ns >= f.true_ns) {
        gaps.push_back(
            fmt::format("node {} issued no ID before +{:.2f} s ({})", n.node, at_s, f.what));
      }
      if (*n.last_id_true_ns <= f.true_ns) {
        gaps.push_back(
            fmt::format("node {} issued no ID after +{:.2f} s ({})", n.node, at_s, f.what));
      }
    }
    // A restart under a regression proves something only if the restarted process ran while
    // its clock was behind its last ID before the kill.
    for (const RestartWindow& r : n.restarts) {
      const auto since_start = [&setup](std::int64_t t) {
        return static_cast<double>(t - setup.start_true_ns) / 1e9;
      };
      if (!r.first_call_true_ns) {
        gaps.push_back(fmt::format("node {} (incarnation {}) made no call after its restart",
                                   n.node, r.incarnation));
      } else if (*r.first_call_true_ns >= r.behind_until_true_ns) {
        gaps.push_back(fmt::format(
            "node {} (incarnation {}) made its first call at +{:.2f} s, after its clock had "
            "caught up with its last ID before the restart (+{:.2f} s): it never ran behind",
            n.node, r.incarnation, since_start(*r.first_call_true_ns),
            since_start(r.behind_until_true_ns)));
      }
    }
  }
  return gaps;
}

fault::Verdict judge(const Analysis& a, const JudgeSetup& setup) {
  fault::Verdict v;
  const std::size_t broken = broken_duplicates(a, promise_of(setup), setup.program, v.findings);
  const bool exhausted_right = exhaustion_ok(a, setup, v.findings);
  if (!a.self_check_ok) {
    v.findings.push_back("BROKEN (harness): the checker and the classifier disagree");
  }
  const bool kept = broken == 0 && a.wrapped_ids == 0 && exhausted_right && a.self_check_ok;
  const std::vector<std::string> gaps = evidence_gaps(a, setup);
  const std::vector<std::string> unfaulted = fault_gaps(a.fault_check, setup.start_true_ns);
  const std::string why = duplicates_possible_because(setup);
  v.outcome = outcome_of(kept, gaps, unfaulted, a);
  if (!kept) {
    v.evidence = v.findings.empty() ? "BROKEN" : v.findings.front();
  } else if (!a.fault_check.unverifiable.empty()) {
    v.evidence = "not verified: " + a.fault_check.unverifiable;
  } else if (!unfaulted.empty()) {
    v.evidence = unfaulted.front();
  } else if (!gaps.empty()) {
    v.evidence = fmt::format("no evidence: {}", gaps.front());
  } else if (a.duplicates > 0) {
    v.evidence = fmt::format("caught {} (expected: {})", plural(a.duplicates, "duplicate"),
                             why.empty() ? "outside the promise" : why);
    v.findings.push_back(v.evidence);
  } else if (!why.empty()) {
    v.evidence = fmt::format("kept: 0 duplicates (possible here: {})", why);
  } else {
    v.evidence = "kept: 0 duplicates";
  }
  for (const auto& g : gaps) v.findings.push_back("no evidence: " + g);
  for (const auto& g : unfaulted) v.findings.push_back(g);
  return v;
}

}  // namespace idbench::chaos
