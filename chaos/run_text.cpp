// run_text.cpp — a chaos run as text (see run_text.hpp).
#include "chaos/run_text.hpp"

#include <fmt/format.h>

namespace idbench::chaos {

std::string to_text(const RunResult& r) {
  const Analysis& a = r.analysis;
  std::string out;
  out += fmt::format("{} · {} · {}{} · {} node{}: {}\n", r.config.scenario, r.config.variant,
                     r.config.policy, r.config.persist_dir.empty() ? "" : " · persisted mark",
                     r.config.nodes, r.config.nodes == 1 ? "" : "s", r.verdict.evidence);
  const bool program = r.config.exec.has_value();
  out += fmt::format(
      "  ids {}  duplicates {} (within {} {}, across a restart {}, {}across nodes {})  order "
      "violations {}\n",
      a.ids, a.duplicates, program ? "an instance" : "a process", a.duplicates_within_process,
      a.duplicates_across_restart,
      program ? fmt::format("across instances {}, ", a.duplicates_across_instances) : "",
      a.duplicates_across_nodes, a.order_violations);
  out += fmt::format(
      "  refusals {}  availability {:.2f}%  max stall {:.1f} ms  k-sort bound "
      "{:.1f} ms",
      a.refusals, 100 * a.availability, a.max_stall_ms, a.ksort_bound_ms);
  if (a.id_skew_min_ms) {
    out += fmt::format("  ID skew {:+.0f} … {:+.0f} ms", *a.id_skew_min_ms, *a.id_skew_max_ms);
  }
  out += "\n";
  for (const auto& [kind, msg] : a.refusal_messages) {
    out += fmt::format("  {} ×{}: {}\n", kind,
                       a.refusals_by_kind.count(kind) ? a.refusals_by_kind.at(kind) : 0, msg);
  }
  for (const auto& ex : a.duplicate_examples) {
    std::string places;
    for (const auto& p : ex.places) {
      places +=
          fmt::format(" node{}/inc{}/thread{}@{:.1f}ms", p.node, p.incarnation, p.thread, p.at_ms);
    }
    out += fmt::format("  duplicate {} at{}\n", ex.id, places);
  }
  for (const auto& f : r.verdict.findings) out += "  " + f + "\n";
  const FaultCheck& fc = a.fault_check;
  if (!fc.faults.empty()) {
    std::size_t applied = 0;
    for (const auto& f : fc.faults) applied += f.outcome == FaultOutcome::applied ? 1 : 0;
    const char* gap = fault_gaps(fc, r.start_true_ns).empty() ? ""
                      : fc.any(FaultOutcome::not_applied)     ? " — FAULT NOT APPLIED"
                                                              : " — NOT VERIFIED";
    out += fmt::format("  fault check ({}): {} of {} clock faults applied{}\n", fc.method, applied,
                       fc.faults.size(), gap);
  }
  out += fmt::format("  promise: {}\n", promise_of(r.judged_on).text());
  return out;
}

}  // namespace idbench::chaos
