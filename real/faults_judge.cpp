// faults_judge.cpp — the verdicts of the fault scenarios, from their figures and fault instants.
#include "real/faults_judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace idbench::real {
namespace {

constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

using fault::Outcome;

fault::Verdict verdict(Outcome outcome, std::string evidence) {
  return fault::Verdict{outcome, std::move(evidence), {}};
}

std::string duplicates_text(const FaultFigures& f) {
  return fmt::format("duplicates issued: {} ({} values)", f.duplicates, f.duplicated_values);
}

void add_order_findings(const FaultFigures& f, fault::Verdict& v) {
  v.findings.push_back(fmt::format(
      "order: {} per-client violations, {} IDs below one issued before them (k-sort bound "
      "{:.1f} ms)",
      f.order_violations, f.regressions, f.ksort_bound_ms));
  for (const std::string& e : f.duplicate_examples) v.findings.push_back("duplicate " + e);
}

// The verdict of a fault on a server, in the order the evidence is weighed: the fault must
// have reached it, then no ID may repeat, then IDs on both sides of the fault are needed.
fault::Verdict weigh(const FaultFigures& f, bool applied, bool both_sides,
                     const std::string& numbers, std::string_view kept_words) {
  if (!applied) return verdict(Outcome::fault_not_applied, numbers);
  if (f.duplicates > 0) {
    return verdict(Outcome::duplicates, fmt::format("{}: {}", duplicates_text(f), numbers));
  }
  if (!both_sides) return verdict(Outcome::no_evidence, numbers);
  return verdict(Outcome::kept, fmt::format("{}: {}", kept_words, numbers));
}

// Probes after `from_ns` that show the server's clock behind true time by more than half of
// `expected_ms`; false when no probe was taken then.
bool probes_show(const FaultRecords& r, std::int64_t from_ns, double expected_ms,
                 std::string& text) {
  bool any = false, all = true;
  for (const ClockProbe& p : r.probes) {
    text += fmt::format("{}{:+.0f} ms at {:.0f} ms", text.empty() ? "" : ", ",
                        p.server_minus_true_ms, r.ms_since_start(p.true_ns));
    if (p.true_ns < from_ns) continue;
    any = true;
    all = all && p.server_minus_true_ms <= -expected_ms / 2;
  }
  return any && all;
}

struct SkewAround {
  SkewRange first, second;
  std::string text;
};

// Embedded time − true time before `at_ns - skip_ns / 10` and from `at_ns + skip_ns` on;
// nullopt unless the IDs on both sides carry a time. A little is left out before the fault too:
// the step is recorded once its write landed, so a reply that arrived just before that instant
// may already carry the stepped time.
std::optional<SkewAround> skew_around(const FaultPart& p, std::int64_t at_ns, std::int64_t skip_ns,
                                      std::string_view what) {
  const auto before = skew_between(p.records, p.id_time, 0, at_ns - skip_ns / 10, p.layout);
  const auto after = skew_between(p.records, p.id_time, at_ns + skip_ns, kForever, p.layout);
  if (!before || !after) return std::nullopt;
  return SkewAround{*before, *after,
                    fmt::format("embedded time − true time: {:.1f}..{:.1f} ms before {}, "
                                "{:.1f}..{:.1f} ms after it",
                                before->min_ms, before->max_ms, what, after->min_ms,
                                after->max_ms)};
}

// A fault on a server's clock at `at_ns`, `behind_s` seconds back: applied when the probes
// taken from then on show the clock behind, weighed on the IDs before and after it.
fault::Verdict weigh_clock_fault(const FaultPart& p, std::int64_t at_ns, double behind_s,
                                 const std::string& lead, std::string_view event) {
  std::string probes;
  const bool applied = probes_show(p.records, at_ns, behind_s * 1e3, probes);
  const std::uint64_t before = ids_between(p.records, 0, at_ns);
  const std::uint64_t after = ids_between(p.records, at_ns, kForever);
  const std::string numbers =
      fmt::format("{}{} IDs before {}, {} after; the server's own clock − true time: {}", lead,
                  before, event, after, probes);
  return weigh(p.figures, applied, before > 0 && after > 0, numbers, "no duplicates");
}

// The servers' pids at the probes: one pid throughout says the part was served by one server
// process, never restarted; nullopt when no probe knew its pid.
std::optional<std::string> pid_text(const FaultRecords& r) {
  std::vector<std::int64_t> pids;
  for (const ClockProbe& c : r.probes) {
    if (c.server_pid > 0 && std::find(pids.begin(), pids.end(), c.server_pid) == pids.end()) {
      pids.push_back(c.server_pid);
    }
  }
  if (pids.empty()) return std::nullopt;
  if (pids.size() == 1) {
    return fmt::format("one server process throughout, never restarted: pid {} at all {} probes",
                       pids[0], r.probes.size());
  }
  std::string list;
  for (const std::int64_t pid : pids) list += fmt::format("{}{}", list.empty() ? "" : ", ", pid);
  return fmt::format("the server process changed between the probes: pids {}", list);
}

}  // namespace

std::uint64_t ids_between(const FaultRecords& r, std::int64_t from_ns, std::int64_t to_ns,
                          std::optional<std::uint16_t> server) {
  return static_cast<std::uint64_t>(std::count_if(r.ids.begin(), r.ids.end(), [&](const auto& s) {
    return s.true_ns >= from_ns && s.true_ns < to_ns && (!server || s.server == *server);
  }));
}

std::optional<SkewRange> skew_between(const FaultRecords& r, IdTime id_time, std::int64_t from_ns,
                                      std::int64_t to_ns, const std::string& layout) {
  if (id_time == IdTime::none || (id_time == IdTime::layout && layout.empty())) {
    return std::nullopt;
  }
  // Read for IdTime::layout only; its epoch is in the past of IDs already issued.
  const Layout parsed =
      Layout::parse(layout.empty() ? "twitter" : layout, std::numeric_limits<std::int64_t>::max());
  std::optional<SkewRange> out;
  for (const IssuedId& s : r.ids) {
    if (s.true_ns < from_ns || s.true_ns >= to_ns) continue;
    const auto t = unix_ms_of(id_time, s.id, parsed);
    if (!t) continue;
    const double v = static_cast<double>(*t) - static_cast<double>(s.true_ns) / 1e6;
    if (!out) out = SkewRange{v, v};
    out->min_ms = std::min(out->min_ms, v);
    out->max_ms = std::max(out->max_ms, v);
  }
  return out;
}

fault::Verdict judge_ticket_restore(const FaultPart& p, std::int64_t copied_ns,
                                    std::int64_t restored_ns) {
  const FaultFigures& f = p.figures;
  const FaultRecords& r = p.records;
  const std::uint64_t between = ids_between(r, copied_ns, restored_ns, 0);
  const std::uint64_t after = ids_between(r, restored_ns, kForever, 0);
  const std::string numbers = fmt::format(
      "server 0 issued {} IDs between the copy and the restore and {} after it; {} IDs in all",
      between, after, f.ids);
  fault::Verdict v;
  if (f.duplicates > 0) {
    v = verdict(Outcome::duplicates, fmt::format("{}: the restored counter went back ({})",
                                                 duplicates_text(f), numbers));
  } else if (between == 0 || after == 0) {
    v = verdict(Outcome::no_evidence, numbers);
  } else {
    v = verdict(Outcome::kept, fmt::format("no duplicates ({})", numbers));
  }
  add_order_findings(f, v);
  return v;
}

fault::Verdict judge_ticket_server_down(const FaultPart& p, std::int64_t killed_ns,
                                        std::int64_t restart_ns) {
  const std::int64_t back_ns = restart_ns;
  const FaultFigures& f = p.figures;
  const FaultRecords& r = p.records;
  // A reply already on its way when the kill landed may arrive a moment later.
  const std::uint64_t from_dead = ids_between(r, killed_ns + 50'000'000, back_ns, 1);
  const std::uint64_t served = ids_between(r, killed_ns, back_ns, 0);
  const double down_ms = static_cast<double>(back_ns - killed_ns) / 1e6;
  const std::string numbers = fmt::format(
      "{} requests, {} failed; while server 1 was down ({:.0f} ms) server 0 served {}; longest "
      "gap {:.1f} ms; the servers' latest IDs drifted up to {} apart",
      f.requests, f.failures, down_ms, served, f.longest_gap_ms, f.max_server_lag);
  fault::Verdict v;
  if (from_dead > 0) {
    v = verdict(Outcome::fault_not_applied,
                fmt::format("server 1 issued {} IDs while it was killed ({})", from_dead, numbers));
  } else if (f.duplicates > 0) {
    v = verdict(Outcome::duplicates, fmt::format("{} ({})", duplicates_text(f), numbers));
  } else if (f.failures > 0 || served == 0) {
    v = verdict(Outcome::unavailable, numbers);
  } else {
    v = verdict(Outcome::available, fmt::format("every request served: {}", numbers));
  }
  add_order_findings(f, v);
  return v;
}

fault::Verdict judge_kill9(const FaultPart& p, std::int64_t killed_ns, std::int64_t back_ns) {
  const FaultFigures& f = p.figures;
  const std::uint64_t before = ids_between(p.records, 0, killed_ns);
  const std::uint64_t after = ids_between(p.records, back_ns, kForever);
  const std::string numbers = fmt::format(
      "{} IDs before the crash, {} after recovery; {} failed requests, longest gap {:.0f} ms",
      before, after, f.failures, f.longest_gap_ms);
  fault::Verdict v = weigh(f, true, before > 0 && after > 0, numbers, "no value handed out twice");
  add_order_findings(f, v);
  return v;
}

// uuid-clock-back. The probes say whether the server's wall clock stepped; the IDs, where they
// carry a time, say whether the scheme's own clock did, and the evidence says both. MariaDB's
// UUID() counts its time from a monotonic timer anchored at start-up (my_uuid), so the step of
// a running server's wall clock never reaches it: that is a finding about UUID(), measured in
// its IDs, and the verdict is "kept" (unique, and its time never went back) with the evidence
// saying that its time did not follow the wall clock. Not "fault not applied" (the probe shows
// the server's clock moved, which is the fault played), and not a bare "no duplicates" either,
// which would pass as if UUID() had survived a clock that went back under it.
fault::Verdict judge_uuid_clock_back(const FaultPart& p, std::int64_t step_ns, double step_s) {
  fault::Verdict v = weigh_clock_fault(p, step_ns, step_s, "", "the step");
  // Replies in flight at the step are left out: they may carry either clock.
  std::string said =
      "the IDs carry no time that could show the step (only their uniqueness and order are "
      "judged)";
  if (const auto skew = skew_around(p, step_ns, 200'000'000, "the step")) {
    const double moved_ms = skew->second.min_ms - skew->first.min_ms;
    if (skew->second.max_ms <= skew->first.min_ms - step_s * 500) {
      said = fmt::format("the IDs' time followed the stepped wall clock ({})", skew->text);
    } else if (std::abs(moved_ms) < step_s * 100) {
      said = fmt::format(
          "the IDs' time did not follow the wall clock: it advances with a monotonic clock since "
          "start-up ({})",
          skew->text);
    } else {
      said = fmt::format("the IDs' time moved {:+.0f} ms, not with the {:.0f} ms step ({})",
                         moved_ms, -step_s * 1e3, skew->text);
    }
  }
  if (v.passed()) v.evidence = fmt::format("{}; {}", v.evidence, said);
  v.findings.push_back(said);
  if (const auto pids = pid_text(p.records)) v.findings.push_back(*pids);
  add_order_findings(p.figures, v);
  return v;
}

fault::Verdict judge_restart_behind(const FaultPart& p, std::int64_t back_ns, double behind_s) {
  fault::Verdict v = weigh_clock_fault(
      p, back_ns, behind_s, fmt::format("restarted {:.3f} s behind; ", behind_s), "the restart");
  if (const auto skew = skew_around(p, back_ns, 0, "the restart")) v.findings.push_back(skew->text);
  add_order_findings(p.figures, v);
  return v;
}

fault::Verdict overall_verdict(const FaultRun& run) {
  fault::Verdict out{Outcome::kept, "", {}};
  for (const FaultPart& p : run.parts) {
    const std::string who = p.label.empty() ? p.system : p.system + " " + p.label;
    out.findings.push_back(fmt::format("{}: {}", who, fault::name_of(p.verdict.outcome)));
    if (!p.verdict.passed() && out.passed()) {
      out.outcome = p.verdict.outcome;
      out.evidence = fmt::format("{}: {}", who, p.verdict.evidence);
    }
  }
  if (out.passed()) {
    const bool available = std::all_of(run.parts.begin(), run.parts.end(), [](const auto& p) {
      return p.verdict.outcome == Outcome::available;
    });
    if (available && !run.parts.empty()) out.outcome = Outcome::available;
    out.evidence = run.parts.empty() ? "no parts ran" : run.parts.front().verdict.evidence;
    if (run.parts.empty()) out.outcome = Outcome::no_evidence;
  }
  return out;
}

}  // namespace idbench::real
